package text

import (
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// controlClasses are one sample of every kind of byte or character a
// terminal acts on: C0 (ESC, CSI and OSC openers, NUL, BEL, BS, CR, LF,
// TAB), DEL, C1 (CSI, OSC, NEL), bidi overrides and isolates, the Unicode
// line separators, and bytes that are not UTF-8.
var controlClasses = map[string]string{
	"ESC CSI":      "\x1b[31m",
	"OSC title":    "\x1b]0;pwned\x07",
	"NUL":          "\x00",
	"BS":           "\x08",
	"CR LF":        "\r\n",
	"TAB":          "\t",
	"DEL":          "\x7f",
	"C1 CSI":       "\u009b31m",
	"C1 OSC":       "\u009d0;x\u009c",
	"C1 NEL":       "\u0085",
	"RLO":          "\u202e",
	"LRE..PDF":     "\u202a\u202b\u202c\u202d",
	"isolates":     "\u2066\u2067\u2068\u2069",
	"LRM RLM ALM":  "\u200e\u200f\u061c",
	"line sep":     "\u2028\u2029",
	"invalid UTF8": "\xff\xfe\xc3",
	"zero width":   "\u200b\u200c\u200d\u2060",
	"BOM":          "\ufeff",
	"soft hyphen":  "\u00ad",
}

// RawControl reports the first raw control byte or character in s, or "".
func rawControl(s string) string {
	marks, from := 0, 0 // the run of combining marks so far, and where it began
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return s[i : i+1]
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafeRune(r) {
			return s[i : i+n]
		}
		// More combining marks in a row than a letter takes smear over
		// the rows around them: Sanitize writes such a run out.
		if isMark(r) {
			if marks == 0 {
				from = i
			}
			if marks++; marks > maxMarks {
				return s[from : i+n]
			}
		} else {
			marks = 0
		}
		i += n
	}
	return ""
}

func TestSanitizeEscapesEveryControlVisibly(t *testing.T) {
	for name, ctl := range controlClasses {
		got := Sanitize("a" + ctl + "b")
		if raw := rawControl(got); raw != "" {
			t.Errorf("%s: %q keeps %q raw", name, got, raw)
		}
		if !strings.HasPrefix(got, "a") || !strings.HasSuffix(got, "b") || got == "ab" {
			t.Errorf("%s: %q is not visibly escaped", name, got)
		}
	}
	for in, want := range map[string]string{
		"\x1b[2J":      `\x1b[2J`,
		"\u009b":       `\u009b`,
		"x\u202ey":     `x\u202ey`,
		"a\r\nb":       `a\r\nb`,
		"\xff":         `\xff`,
		"plain äöü 日本": "plain äöü 日本",
		`C:\temp`:      `C:\temp`,
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

// Two connector names that differ only by a zero-width character, a
// byte-order mark or a pile of combining marks print differently, so an
// operator cannot take one for the other; ordinary accents stay accents.
func TestSanitizeShowsWhatMakesNamesLookAlike(t *testing.T) {
	for in, want := range map[string]string{
		"orders\u200b":                          `orders\u200b`,
		"\ufefforders":                          `\ufefforders`,
		"ord\u200ders":                          `ord\u200ders`,
		"o\u0301\u0302\u0303rders":              `o\u0301\u0302\u0303rders`,
		"ordersa\U0001d167\U0001d167\U0001d167": `ordersa\U0001d167\U0001d167\U0001d167`,
		"café-sink":                             "café-sink",
		"cafe\u0301-sink":                       "cafe\u0301-sink",
		"Vie\u0323\u0302t":                      "Vie\u0323\u0302t", // two marks: Vietnamese ệ, decomposed
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
		if got := string(SanitizeOutput([]byte(in + "\n"))); got != want+"\n" {
			t.Errorf("SanitizeOutput(%q) = %q, want %q", in, got, want+"\n")
		}
	}
}

// JSON stays JSON, means the same, and carries nothing raw.
func TestJSONSafeKeepsMeaning(t *testing.T) {
	for name, ctl := range controlClasses {
		in, _ := json.Marshal(map[string]string{"k" + ctl: "v" + ctl})
		out := JSONSafe(in)
		if raw := rawControl(strings.NewReplacer("\n", "", "\t", "").Replace(string(out))); raw != "" {
			t.Errorf("%s: %s keeps %q raw", name, out, raw)
		}
		var a, b any
		if err := json.Unmarshal(out, &b); err != nil {
			t.Errorf("%s: %s is not JSON: %v", name, out, err)
			continue
		}
		json.Unmarshal(in, &a)
		if ja, jb := mustJSON(a), mustJSON(b); ja != jb {
			t.Errorf("%s: means %s, was %s", name, jb, ja)
		}
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestClipSaysHowMuchWasCut(t *testing.T) {
	s := strings.Repeat("é", 1000) // 2000 bytes
	got := Clip(s, 101)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…(1900 more bytes)") {
		t.Errorf("Clip = %q", got[len(got)-30:])
	}
	if Clip("short", 10) != "short" {
		t.Error("a short string is clipped")
	}
}

// printable8 is the byte-by-byte test, 8 bytes at once, for every byte
// value in every position and for random words; the scans that use it
// find what the byte loop finds.
func TestPrintable8IsTheByteTest(t *testing.T) {
	check := func(b [8]byte) {
		want := true
		for _, c := range b {
			want = want && c >= 0x20 && c < 0x7f
		}
		if got := printable8(binary.LittleEndian.Uint64(b[:])); got != want {
			t.Fatalf("printable8(% x) = %v", b, got)
		}
	}
	r := rand.New(rand.NewPCG(8, 8))
	for pos := range 8 {
		for c := range 256 {
			for _, fill := range []byte{'a', 0x20, 0x7e, 0x1f, 0x7f, 0x80, 0xff, 0} {
				var b [8]byte
				for i := range b {
					b[i] = fill
				}
				b[pos] = byte(c)
				check(b)
			}
		}
	}
	for range 200_000 {
		var b [8]byte
		for i := range b {
			b[i] = byte(r.IntN(256))
			if r.IntN(3) > 0 {
				b[i] = byte(0x1e + r.IntN(0x64)) // near the bounds
			}
		}
		check(b)
	}
	slow := func(p []byte, json bool) int {
		for i := 0; i < len(p); {
			c := p[i]
			if c < 0x80 {
				if json && (c < 0x20 && c != '\n' && c != '\t' && c != '\r' || c == 0x7f) || !json && (c < 0x20 || c == 0x7f) {
					return i
				}
				i++
				continue
			}
			ru, n := utf8.DecodeRune(p[i:])
			if (ru == utf8.RuneError && n == 1) || unsafeRune(ru) {
				return i
			}
			i += n
		}
		return len(p)
	}
	alphabet := []string{"a", "{", "\"", "\n", "\t", "\r", "\x1b", "\x7f", "\x00", "é", "\u202e", "\u0085", "\xff", "\xe2\x80", "€", "\u2028"}
	for range 50_000 {
		var b []byte
		for range r.IntN(40) {
			if r.IntN(4) > 0 {
				b = append(b, "printable text"[:1+r.IntN(13)]...)
			} else {
				b = append(b, alphabet[r.IntN(len(alphabet))]...)
			}
		}
		if got, want := firstJSONUnsafe(b), slow(b, true); got != want {
			t.Fatalf("firstJSONUnsafe(%q) = %d, want %d", b, got, want)
		}
		if got, want := firstUnsafe(string(b)), slow(b, false); got != want || firstUnsafe(b) != want {
			t.Fatalf("firstUnsafe(%q) = %d, want %d", b, got, want)
		}
	}
}
