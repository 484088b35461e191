package text

import (
	"encoding/binary"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Sanitize makes a string from outside koff (a key or value from the
// topic, a connector or group name, a REST body, a broker's error, a
// file's contents) safe to print on a terminal: every byte that a terminal
// would act on rather than show is written out visibly instead. C0 controls
// (tab and newline too: the layout brings its own) and DEL become \x1b,
// \n, \t, \r, \x7f; C1 controls, which xterm and VTE obey as ESC-sequences,
// become \u009b; bidi overrides and isolates, which reorder what is shown,
// become \u202e; zero-width characters and byte-order marks, which hide a
// difference between two names, become \u200b and \ufeff; a run of more
// than maxMarks combining marks, which smears over the lines around it,
// becomes \u0301\u0301…; bytes that are not UTF-8 become \xff. Everything
// else, backslashes included, is left as it is.
func Sanitize(s string) string {
	i := firstUnsafe(s)
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	b = append(b, s[:i]...)
	return string(appendSanitized(b, s[i:], false))
}

// SafeOutput reports whether SanitizeOutput would leave s as it is.
func SafeOutput(s string) bool {
	for i := firstUnsafe(s); i < len(s); i += 1 + firstUnsafe(s[i+1:]) {
		if s[i] != '\n' && s[i] != '\t' {
			return false
		}
	}
	return true
}

// SanitizeOutput is Sanitize for whole lines of a command's output: it
// keeps newlines and tabs, which the output's own layout uses, and
// escapes the rest as Sanitize does. Fields are sanitised before they are
// laid out; this is the guard behind them.
func SanitizeOutput(p []byte) []byte {
	i := firstUnsafe(p)
	for i < len(p) && (p[i] == '\n' || p[i] == '\t') {
		i += 1 + firstUnsafe(p[i+1:])
	}
	if i == len(p) {
		return p
	}
	b := make([]byte, 0, len(p)+16)
	b = append(b, p[:i]...)
	return appendSanitized(b, string(p[i:]), true)
}

// SanitizeBytes is Sanitize for bytes.
func SanitizeBytes(p []byte) string { return Sanitize(string(p)) }

// firstUnsafe is the index of the first byte Sanitize would change, or
// len(s): the common, all-printable case costs no allocation (nor a copy
// of bytes into a string).
func firstUnsafe[T ~string | ~[]byte](s T) int {
	for i := 0; i < len(s); {
		if i+8 <= len(s) && printable8(uint64(s[i])|uint64(s[i+1])<<8|uint64(s[i+2])<<16|uint64(s[i+3])<<24|
			uint64(s[i+4])<<32|uint64(s[i+5])<<40|uint64(s[i+6])<<48|uint64(s[i+7])<<56) {
			i += 8
			continue
		}
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		if c < 0x80 {
			return i
		}
		r, n := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		if (r == utf8.RuneError && n == 1) || unsafeRune(r) {
			return i
		}
		if isMark(r) {
			run, end := markRun(string(s[i:min(i+utf8.UTFMax*(maxMarks+1), len(s))]))
			if run > maxMarks {
				return i
			}
			n = end
		}
		i += n
	}
	return len(s)
}

// maxMarks is the longest run of combining marks shown as marks: two
// stack on one letter in Vietnamese; more is a name made to look like
// another, or to spill over the rows around it.
const maxMarks = 2

func isMark(r rune) bool {
	return r >= 0x300 && (unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r))
}

// markRun counts the combining marks that s starts with (up to
// maxMarks+1) and the bytes they take.
func markRun(s string) (run, end int) {
	for end < len(s) && run <= maxMarks {
		r, n := utf8.DecodeRuneInString(s[end:])
		if !isMark(r) {
			break
		}
		run++
		end += n
	}
	return run, end
}

// printable8 reports whether the 8 bytes of w are all printable ASCII
// (0x20 to 0x7e), which every check here leaves as they are: the output
// of a million partitions is a hundred megabytes, checked 8 bytes at a
// time. (A byte below n shows in (w - n·0x01…) &^ w & 0x80… for n ≤ 0x80,
// a byte of 0x7f as a zero byte of w ^ 0x7f….)
func printable8(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	del := w ^ 0x7f*ones
	return (w|(w-0x20*ones)&^w|(del-ones)&^del)&highs == 0
}

// unsafeRune reports the non-ASCII runes a terminal acts on or that
// reorder or break the line: C1 controls, bidi controls, and the Unicode
// line and paragraph separators.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	case r >= 0x200b && r <= 0x200d, r >= 0x2060 && r <= 0x2064, r == 0xfeff, r == 0x180e, r == 0xad:
		// Zero-width: two names that differ only here look the same.
		return true
	}
	return false
}

func appendSanitized(b []byte, s string, layout bool) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			switch {
			case c >= 0x20 && c < 0x7f, layout && (c == '\n' || c == '\t'):
				b = append(b, c)
			case c == '\n':
				b = append(b, `\n`...)
			case c == '\r':
				b = append(b, `\r`...)
			case c == '\t':
				b = append(b, `\t`...)
			default:
				b = appendHexByte(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = appendHexByte(b, c)
		case unsafeRune(r):
			b = appendU4(b, r)
		case isMark(r):
			run, end := markRun(s[i:])
			if run <= maxMarks {
				b = append(b, s[i:i+end]...)
				n = end
				break
			}
			// The whole run, however long, escaped.
			for n = 0; i+n < len(s); {
				m, k := utf8.DecodeRuneInString(s[i+n:])
				if !isMark(m) {
					break
				}
				b = appendRune(b, m)
				n += k
			}
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
}

// appendRune escapes r as \uXXXX, or \UXXXXXXXX beyond the BMP.
func appendRune(b []byte, r rune) []byte {
	if r <= 0xffff {
		return appendU4(b, r)
	}
	const hex = "0123456789abcdef"
	b = append(b, '\\', 'U')
	for shift := 28; shift >= 0; shift -= 4 {
		b = append(b, hex[r>>shift&0xf])
	}
	return b
}

func appendHexByte(b []byte, c byte) []byte {
	const hex = "0123456789abcdef"
	return append(b, '\\', 'x', hex[c>>4], hex[c&0xf])
}

func appendU4(b []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// JSONSafe rewrites JSON text so that it carries no byte a terminal acts
// on, and means the same: DEL, C1 and bidi controls and the line
// separators, which JSON allows raw inside strings (and Go's encoding/json
// and Jackson leave raw), become \u escapes; C0 controls, which JSON
// allows only as whitespace between tokens (tab, newline, carriage
// return), become \u escapes too; a byte that is not UTF-8 becomes
// \ufffd, as encoding/json reads it; a run of more combining marks than a
// letter takes becomes \u escapes, as Sanitize writes it out. Valid JSON
// stays valid and decodes to the same value.
func JSONSafe(p []byte) []byte {
	i := firstJSONUnsafe(p)
	if i == len(p) {
		return p
	}
	b := make([]byte, 0, len(p)+16)
	b = append(b, p[:i]...)
	for i < len(p) {
		c := p[i]
		if c < 0x80 {
			if c < 0x20 && c != '\n' && c != '\t' && c != '\r' || c == 0x7f {
				b = appendU4(b, rune(c))
			} else {
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, `\ufffd`...)
		case unsafeRune(r):
			b = appendU4(b, r)
		case isMark(r):
			run, end := markRun(string(p[i:min(i+utf8.UTFMax*(maxMarks+1), len(p))]))
			if run <= maxMarks {
				b = append(b, p[i:i+end]...)
				n = end
				break
			}
			// A run of more marks than a letter takes, as Sanitize
			// writes it out: each as JSON's \u escape, which decodes to
			// the same mark.
			for n = 0; i+n < len(p); {
				m, k := utf8.DecodeRune(p[i+n:])
				if !isMark(m) {
					break
				}
				b = appendJSONRune(b, m)
				n += k
			}
		default:
			b = append(b, p[i:i+n]...)
		}
		i += n
	}
	return b
}

// appendJSONRune escapes r as JSON does: \uXXXX, or a surrogate pair
// beyond the BMP.
func appendJSONRune(b []byte, r rune) []byte {
	if r <= 0xffff {
		return appendU4(b, r)
	}
	hi, lo := utf16.EncodeRune(r)
	return appendU4(appendU4(b, hi), lo)
}

func firstJSONUnsafe(p []byte) int {
	for i := 0; i < len(p); {
		if i+8 <= len(p) && printable8(binary.LittleEndian.Uint64(p[i:])) {
			i += 8
			continue
		}
		c := p[i]
		if c < 0x80 {
			if c < 0x20 && c != '\n' && c != '\t' && c != '\r' || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(p[i:])
		if (r == utf8.RuneError && n == 1) || unsafeRune(r) {
			return i
		}
		if isMark(r) {
			run, end := markRun(string(p[i:min(i+utf8.UTFMax*(maxMarks+1), len(p))]))
			if run > maxMarks {
				return i
			}
			n = end
		}
		i += n
	}
	return len(p)
}

// Clip caps what is shown of a huge string at max bytes, cut at a
// character boundary, and says how much was left out: a 1 MB key must not
// make every table row a megabyte wide or its detail view re-render a
// megabyte on every frame.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…(" + strconv.Itoa(len(s)-cut) + " more bytes)"
}
