package metrics

import (
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"koff/model/text"
)

// labelMax caps a label value's bytes: a megabyte of connector name must
// not make every series of it a megabyte.
const labelMax = 512

// label makes an outside string (a connector, group or topic name) a
// valid label value, shown as koff shows it everywhere else: bytes that
// are not UTF-8 become \xff, controls \n or \x1b (model/text's
// sanitiser), and past labelMax bytes it is clipped, saying how much was
// left out. Prometheus refuses a label value that is not UTF-8, and one
// refused value would fail the whole scrape.
func label(s string) string {
	if len(s) <= labelMax && plain(s) {
		return s
	}
	s = text.Sanitize(text.Clip(s, labelMax))
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD") // cannot happen: Sanitize escapes every invalid byte
	}
	return s
}

// plain says s is printable ASCII, which label leaves as it is.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7E {
			return false
		}
	}
	return true
}

// build is what koff_build_info says besides the version.
var build = func() (b struct{ revision, goVersion string }) {
	if bi, ok := debug.ReadBuildInfo(); ok {
		b.goVersion = bi.GoVersion
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				b.revision = s.Value
			}
		}
	}
	return b
}()
