package text

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSanitize: nothing a terminal acts on survives Sanitize, what it
// writes is left alone by a second pass, and safe text is untouched;
// JSONSafe keeps JSON valid and its meaning; Clip cuts on a character
// boundary.
func FuzzSanitize(f *testing.F) {
	for _, s := range controlClasses {
		f.Add("x" + s + "y")
	}
	f.Add("plain ascii")
	f.Add("日本語 \\x1b literal")
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		if raw := rawControl(out); raw != "" {
			t.Fatalf("Sanitize(%q) = %q keeps %q raw", s, out, raw)
		}
		if again := Sanitize(out); again != out {
			t.Fatalf("second pass changes %q to %q", out, again)
		}
		if rawControl(s) == "" && out != s {
			t.Fatalf("safe %q changed to %q", s, out)
		}
		j, _ := json.Marshal(s)
		js := JSONSafe(j)
		if raw := rawControl(string(js)); raw != "" {
			t.Fatalf("JSONSafe(%s) = %s keeps %q raw", j, js, raw)
		}
		var a, b string
		json.Unmarshal(j, &a)
		if err := json.Unmarshal(js, &b); err != nil || a != b {
			t.Fatalf("JSONSafe(%s) = %s: %q, %v; want %q", j, js, b, err, a)
		}
		if !utf8.ValidString(s) {
			return
		}
		for _, n := range []int{0, 1, 3, len(s) / 2} {
			c := Clip(s, n)
			if !utf8.ValidString(c) || (len(s) > n && !strings.Contains(c, "more bytes)")) {
				t.Fatalf("Clip(%q, %d) = %q", s, n, c)
			}
		}
	})
}
