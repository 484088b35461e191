package cli

import "unicode/utf8"

// rawControlIn reports the first byte or character in out that a terminal
// would act on rather than show, or "". Newlines end lines of output and
// tabs align tables; everything else counts: C0, DEL, C1, bidi controls,
// line separators, bytes that are not UTF-8.
func rawControlIn(out []byte) string {
	for i := 0; i < len(out); {
		c := out[i]
		if c < 0x80 {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return string(out[i : i+1])
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(out[i:])
		switch {
		case r == utf8.RuneError && n == 1,
			r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c,
			r == 0x2028, r == 0x2029:
			return string(out[i : i+n])
		}
		i += n
	}
	return ""
}
