package kit

import (
	"strings"

	"koff/model/text"
)

// guardFrame is the last guard on what the dashboard draws: the frame keeps
// the SGR sequences (colours, bold) that styles write, and everything else a
// terminal would act on (other escape sequences, C0, DEL, C1 and bidi
// controls, bytes that are not UTF-8) is shown escaped, by the one
// sanitiser. Screens sanitise every outside string themselves, so a
// newline in a name cannot break a row; this makes one a screen forgot
// harmless too. A clean frame, the usual case, is returned as it is.
func GuardFrame(s string) string {
	if cleanFrame(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 64)
	forRuns(s, func(plain, sgr string) {
		b.Write(text.SanitizeOutput([]byte(plain)))
		b.WriteString(sgr)
	})
	return b.String()
}

func cleanFrame(s string) bool {
	clean := true
	forRuns(s, func(plain, _ string) {
		clean = clean && text.SafeOutput(plain)
	})
	return clean
}

// forRuns splits s into text runs, each followed by the SGR sequence that
// ends it ("" for the last).
func forRuns(s string, f func(text, sgr string)) {
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			continue
		}
		if n := sgrLen(s[i:]); n > 0 {
			f(s[start:i], s[i:i+n])
			i += n - 1
			start = i + 1
		}
	}
	f(s[start:], "")
}

// sgrLen is the length of the SGR sequence (ESC [ params m) s begins
// with, or 0.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c == ';', c == ':':
		case c == 'm':
			return i + 1
		default:
			return 0
		}
	}
	return 0
}
