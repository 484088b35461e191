package kit

import (
	"strings"

	"koff/model/text"
)

// What the dashboard shows of one outside value at most: table cells,
// titles and one-line facts get cellMax bytes, the detail view's key,
// source partition and offset detailMax. A huge key must neither widen
// every row nor cost a core to re-wrap every second; what is cut says how
// much, and y still copies the whole offset.
const (
	CellMax   = 512
	DetailMax = 16 << 10
)

// clean is an outside string (a name, a state, an error from Connect or
// the broker) made safe to draw: clipped, and every control escaped by the
// one sanitiser.
func Clean(s string) string { return text.Sanitize(text.Clip(s, CellMax)) }

// cleanJSON is clean for one line of JSON text: JSON's own \u escapes
// first, so it stays JSON that means the same.
func CleanJSON(s string) string {
	if plainCell(s) { // nothing to escape or cut: no copies (a reload measures 100,000)
		return s
	}
	return text.Sanitize(text.Clip(string(text.JSONSafe([]byte(s))), CellMax))
}

// plainCell says s is printable ASCII of at most cellMax bytes, which
// clean and cleanJSON leave as it is.
func plainCell(s string) bool {
	if len(s) > CellMax {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7E {
			return false
		}
	}
	return true
}

// cleanBlock is multi-line JSON text (pretty-printed) made safe, line by
// line, clipped at max bytes.
func CleanBlock(s string, max int) string {
	lines := strings.Split(text.Clip(string(text.JSONSafe([]byte(s))), max), "\n")
	for i, l := range lines {
		lines[i] = text.Sanitize(l)
	}
	return strings.Join(lines, "\n")
}

// cleanBytes is raw record bytes shown escaped, clipped at max bytes.
func CleanBytes(raw []byte, max int) string {
	if len(raw) <= max {
		return escapeBytes(raw)
	}
	return escapeBytes(raw[:max]) + "…(" + Count(int64(len(raw)-max)) + " more bytes)"
}
