package security

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzParseProperties: any text is read or refused with a line number,
// never a panic; and what is read, written back the way Java's
// Properties.store escapes it, reads back the same.
func FuzzParseProperties(f *testing.F) {
	for _, s := range []string{
		"security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n",
		"sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n    username=\"alice\" password=\"s3cret\";\n",
		"# comment\n! other\n  key : value\nk\\ ey=v\\u00e9\\tx\\\\\nempty\n=novalue\n",
		"a=\\uD83D\\uDE00\r\nb=\\u12\n", "k=v\\", "\\", "\xff=\xfe", "a\fb c", "x=\\\\\\\n  y",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		props, err := ParseProperties(text)
		if err != nil {
			pe, ok := err.(*PropertyError)
			if !ok || pe.Line < 1 || pe.Line > strings.Count(text, "\n")+strings.Count(text, "\r")+1 {
				t.Fatalf("error %v (%T) does not name a line of the text", err, err)
			}
			return
		}
		var b strings.Builder
		for _, p := range props {
			fmt.Fprintf(&b, "%s=%s\n", storeEscape(p.Key, true), storeEscape(p.Value, false))
		}
		again, err := ParseProperties(b.String())
		if err != nil {
			t.Fatalf("%q written as %q does not read back: %v", text, b.String(), err)
		}
		if len(again) != len(props) {
			t.Fatalf("%d properties read back as %d from %q", len(props), len(again), b.String())
		}
		for i := range props {
			if k, v := utf16Clean(props[i].Key), utf16Clean(props[i].Value); again[i].Key != k || again[i].Value != v {
				t.Fatalf("%q=%q read back as %q=%q", props[i].Key, props[i].Value, again[i].Key, again[i].Value)
			}
		}
	})
}

// storeEscape is java.util.Properties.saveConvert: backslash, the
// separators and comment characters escaped, spaces in keys (and leading
// ones in values), control and non-ASCII characters as \uXXXX.
func storeEscape(s string, key bool) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == ' ' && (key || i == 0):
			b.WriteString(`\ `)
		case r == '\\', r == '=', r == ':', r == '#', r == '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || r > 0x7e:
			if r > 0xffff {
				r -= 0x10000
				fmt.Fprintf(&b, `\u%04X\u%04X`, 0xD800+(r>>10), 0xDC00+(r&0x3ff))
				continue
			}
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// utf16Clean is s as Java holds it: bytes that are not UTF-8 are U+FFFD.
func utf16Clean(s string) string { return string([]rune(s)) }
