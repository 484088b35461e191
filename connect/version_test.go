package connect

import "testing"

func TestVersionGating(t *testing.T) {
	tests := []struct {
		version    string
		get, alter bool
	}{
		{"3.4.0", false, false},
		{"3.4.1-SNAPSHOT", false, false},
		{"3.5.0", true, false},
		{"3.5.2", true, false},
		{"3.6.0", true, true},
		{"3.6.1", true, true},
		{"3.7.0-ce", true, true},
		{"4.0.0-SNAPSHOT", true, true},
		{"4.1.0", true, true},
		{"10.0.0", true, true},
		{"7.4.0-ccs", false, false}, // CP 7.4 = AK 3.4
		{"7.5.0-ccs", true, false},  // CP 7.5 = AK 3.5
		{"7.5.3-ce", true, false},
		{"7.6.1-ccs", true, true},
		{"7.9.0-ce", true, true},
		{"8.0.0-ccs", true, true},
		{"6.2.1-ccs", false, false}, // AK 2.8
		{"5.5.0-ce", false, false},  // AK 2.5
		{"", false, false},
		{"garbage", false, false},
		{"3", false, false},
		{"v3.6.0", false, false},
		{"3.x.0", false, false},
		{"-3.6.0", false, false},
	}
	for _, tt := range tests {
		s := ServerInfo{Version: tt.version}
		if got := s.SupportsGetOffsets(); got != tt.get {
			t.Errorf("%q SupportsGetOffsets = %v, want %v", tt.version, got, tt.get)
		}
		if got := s.SupportsStop(); got != tt.get {
			t.Errorf("%q SupportsStop = %v, want %v", tt.version, got, tt.get)
		}
		if got := s.SupportsAlterOffsets(); got != tt.alter {
			t.Errorf("%q SupportsAlterOffsets = %v, want %v", tt.version, got, tt.alter)
		}
	}
}

func TestApacheVersion(t *testing.T) {
	tests := []struct {
		in           string
		major, minor int
		ok           bool
	}{
		{"3.6.1", 3, 6, true},
		{"3.7.0-ce", 3, 7, true},
		{"4.0.0-SNAPSHOT", 4, 0, true},
		{"7.5.0-ccs", 3, 5, true},
		{"7.8.1-ce", 3, 8, true},
		{"8.0.0-ccs", 4, 0, true},
		{"6.0.0-ccs", 2, 6, true},
		{"6.1.0-ce", 2, 7, true},
		{"5.4.1-ccs", 2, 4, true},
		{" 3.9.0 ", 3, 9, true},
		{"3.6", 3, 6, true},
		{"3.6.0+build.1", 3, 6, true},
		{"x.y", 0, 0, false},
	}
	for _, tt := range tests {
		ma, mi, ok := apacheVersion(tt.in)
		if ma != tt.major || mi != tt.minor || ok != tt.ok {
			t.Errorf("apacheVersion(%q) = %d.%d %v, want %d.%d %v", tt.in, ma, mi, ok, tt.major, tt.minor, tt.ok)
		}
	}
}
