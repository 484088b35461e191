package text

import "testing"

// Class 21.7: two connector names that read the same on a terminal are
// look-alikes; names that merely differ are not.
func TestLookAlikeNamesReadTheSame(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"orders", "оrders", true},             // Cyrillic о
		{"orders", "orders\u200b", true},       // zero width space
		{"orders", "\ufefforders", true},       // byte-order mark
		{"orders", "o\u0301\u0302rders", true}, // combining marks
		{"jdbc-shop-1", "jdbc-shop-l", true},
		{"PAYMENTS", "РAYMENTS", true}, // Cyrillic Р
		{"orders", "orders", false},
		{"orders", "Orders", false},
		{"orders", "orders-v2", false},
		{"jdbc-shop", "jdbc-crm", false},
	} {
		if got := LookAlike(tt.a, tt.b); got != tt.want {
			t.Errorf("LookAlike(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
