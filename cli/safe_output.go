package cli

import (
	"io"
	"unicode/utf8"

	"koff/model/text"
)

// safeWriter is the last guard on a command's stdout and stderr: whatever
// a command prints, a byte a terminal would act on (C0 other than newline
// and tab, DEL, C1, bidi controls, bytes that are not UTF-8) comes out
// escaped, as text.Sanitize writes it. Commands sanitise every outside
// field themselves, so a newline in a name cannot split a row; this makes
// a field one forgot harmless too. It writes through at once (prompts have
// no newline), holding back only a character cut across two writes.
type safeWriter struct {
	w    io.Writer
	tail []byte // the start of a UTF-8 sequence the next write completes
}

func (s *safeWriter) Write(p []byte) (int, error) {
	buf := p
	if len(s.tail) > 0 {
		buf = append(s.tail, p...)
	}
	cut := len(buf) - partialRune(buf)
	s.tail = append([]byte(nil), buf[cut:]...)
	if cut == 0 {
		return len(p), nil
	}
	if _, err := s.w.Write(text.SanitizeOutput(buf[:cut])); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a sequence left incomplete at the end, escaped.
func (s *safeWriter) Flush() error {
	if len(s.tail) == 0 {
		return nil
	}
	_, err := s.w.Write(text.SanitizeOutput(s.tail))
	s.tail = nil
	return err
}

// partialRune is how many bytes at the end of b begin a UTF-8 sequence
// that is not complete yet.
func partialRune(b []byte) int {
	for n := 1; n <= 3 && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < 0x80 {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}

// cellMax caps what a table cell or a line of text shows of one outside
// value: a huge key must not make every row of a table as wide as itself.
const cellMax = 512

// field is an outside string made safe for a table cell or a line of
// text: clipped (saying how much was cut) and sanitised.
func field(s string) string { return text.Sanitize(text.Clip(s, cellMax)) }

// noteField is field for a note on its own line under a table: koff's own
// sentences, which may quote a key, get room for the whole sentence.
func noteField(s string) string { return text.Sanitize(text.Clip(s, 4*cellMax)) }

// jsonField is field for JSON text (a partition map, an offset, a key):
// JSON's own \u escapes first, so what is shown stays JSON that means the
// same and can be pasted back into --partition or --offset.
func jsonField(s string) string { return field(string(text.JSONSafe([]byte(s)))) }

// jsonCell is jsonField, with no work for the JSON of nearly every table
// cell: printable ASCII, short enough, which jsonField leaves as it is.
func jsonCell(s string) string {
	if len(s) <= cellMax && text.PrintableASCII(s) {
		return s
	}
	return jsonField(s)
}
