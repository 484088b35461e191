package cli

import (
	"bytes"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"koff/model/text"
)

// alignedTable lays out rows of cells as text/tabwriter does with
// tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) when every row has the same
// number of cells (koff get's table): each column but the last as wide as
// its widest cell in runes, plus two spaces. It keeps the rows as the
// table writer's input, one buffer after another, and a width per column,
// where the table writer keeps a cell of 24 bytes beside each one and
// writes each cell and each padding on its own: at a million partitions
// that was 2.4 GB and 14 million writes.
//
// A cell holding a byte the table writer acts on (tab, newline, vertical
// tab, form feed, its escape 0xff) would lay out otherwise: the cells are
// sanitised so none does, and should one, the rows go through the table
// writer itself (plain).
type alignedTable struct {
	widths []int
	chunks [][]byte // rows: cells ended by '\t', the last by '\n'
	ascii  []bool   // per row: every cell ASCII (its width is its length)
	plain  bool     // a cell the table writer acts on: lay out with it
}

// tableChunk is the size of the buffers the rows are kept in (a test
// makes it small).
var tableChunk = 1 << 20

func newAlignedTable(columns int) *alignedTable {
	return &alignedTable{widths: make([]int, columns-1)}
}

// row adds a row of len(widths)+1 cells.
func (t *alignedTable) row(cells ...string) {
	n, ascii := 0, true
	for i, c := range cells {
		n += len(c) + 1
		w := len(c)
		if !text.PrintableASCII(c) {
			ascii = false
			w = utf8.RuneCountInString(c)
			if actsOn(c) {
				t.plain = true
			}
		}
		if i < len(t.widths) && w > t.widths[i] {
			t.widths[i] = w
		}
	}
	if len(t.chunks) == 0 || len(t.chunks[len(t.chunks)-1])+n > cap(t.chunks[len(t.chunks)-1]) {
		t.chunks = append(t.chunks, make([]byte, 0, max(tableChunk, n)))
	}
	b := t.chunks[len(t.chunks)-1]
	for i, c := range cells {
		b = append(b, c...)
		if i < len(cells)-1 {
			b = append(b, '\t')
		}
	}
	t.chunks[len(t.chunks)-1] = append(b, '\n')
	t.ascii = append(t.ascii, ascii)
}

// actsOn reports whether c holds a byte the table writer acts on.
func actsOn(c string) bool {
	for i := range len(c) {
		switch c[i] {
		case '\t', '\n', '\v', '\f', tabwriter.Escape:
			return true
		}
	}
	return false
}

// writeTo writes the table to w, laid out.
func (t *alignedTable) writeTo(w io.Writer) error {
	if t.plain {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, c := range t.chunks {
			tw.Write(c)
		}
		return tw.Flush()
	}
	const padding = 2
	spaces := strings.Repeat(" ", 256)
	out := make([]byte, 0, 256<<10)
	row := 0
	for _, c := range t.chunks {
		for len(c) > 0 {
			end := bytes.IndexByte(c, '\n')
			line := c[:end]
			c = c[end+1:]
			for j := range t.widths {
				tab := bytes.IndexByte(line, '\t')
				cell := line[:tab]
				line = line[tab+1:]
				out = append(out, cell...)
				w := len(cell)
				if !t.ascii[row] {
					w = utf8.RuneCount(cell)
				}
				for pad := t.widths[j] + padding - w; pad > 0; pad -= len(spaces) {
					out = append(out, spaces[:min(pad, len(spaces))]...)
				}
			}
			out = append(out, line...)
			out = append(out, '\n')
			row++
			if len(out) > 192<<10 {
				if _, err := w.Write(out); err != nil {
					return err
				}
				out = out[:0]
			}
		}
	}
	_, err := w.Write(out)
	return err
}
