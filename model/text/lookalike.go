package text

import "strings"

// LookAlike reports whether two different names read the same on a
// terminal: equal once zero-width characters, byte-order marks and
// combining marks are set aside and the Cyrillic and Greek letters that
// look Latin are read as Latin (and 0 as O, 1 and I as l). An operator must not pick one for the
// other.
func LookAlike(a, b string) bool {
	return a != b && Skeleton(a) == Skeleton(b)
}

// Skeleton is the form LookAlike compares.
func Skeleton(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 0x200b && r <= 0x200f, r >= 0x2060 && r <= 0x2064, r == 0xfeff, r == 0xad, r == 0x180e:
			continue
		case isMark(r):
			continue
		}
		for l, ok := confusable[r]; ok; l, ok = confusable[r] {
			r = l // chains, as Ι → I → l
		}
		b.WriteRune(r)
	}
	return b.String()
}

// confusable maps letters and digits that look like Latin ones (as
// Unicode's confusables list has them) to those.
var confusable = map[rune]rune{
	'а': 'a', 'в': 'b', 'е': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't', 'у': 'y', 'х': 'x',
	'і': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ɡ': 'g',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T', 'Х': 'X', 'І': 'I', 'Ј': 'J', 'Ѕ': 'S',
	'α': 'a', 'ο': 'o', 'ρ': 'p', 'ν': 'v', 'τ': 't', 'ι': 'i', 'κ': 'k', 'χ': 'x', 'υ': 'u',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Χ': 'X', 'Υ': 'Y', 'Ζ': 'Z',
	'0': 'O', '1': 'l', 'I': 'l', 'ı': 'i',
	'‐': '-', '‑': '-', '‒': '-', '–': '-', '—': '-', '−': '-', '＿': '_',
}
