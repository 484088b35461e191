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
	chunks [][]byte  // rows: cells ended by '\t', the last by '\n'
	rows   []rowForm // per row
	last   []string  // the cells of the row before
	// plain: a cell the table writer acts on, in the row that starts at
	// chunks[plainChunk][plainAt]: from there on the rows are kept as
	// they are and go through the table writer.
	plain               bool
	plainChunk, plainAt int
}

// rowForm is how a row is kept: whether every cell is printable ASCII
// (its width is then its length), and which cells are the row above's,
// kept empty (the connector, the time of update, the topic-partition,
// the flags of rows one after another: half a row's bytes).
type rowForm struct {
	ascii bool
	above uint8 // bit j: cell j is the row above's
}

// tableChunk is the size of the buffers the rows are kept in (a test
// makes it small).
var tableChunk = 1 << 20

func newAlignedTable(columns int) *alignedTable {
	return &alignedTable{widths: make([]int, columns-1)}
}

// row adds a row of len(widths)+1 cells.
func (t *alignedTable) row(cells ...string) {
	var unprintable uint64 // bit i (63: from 63 on): cell i is not printable ASCII
	acts := false
	for i, c := range cells {
		if !text.PrintableASCII(c) {
			unprintable |= 1 << min(i, 63)
			acts = acts || actsOn(c)
		}
	}
	above := !t.plain && !acts && len(cells) <= 8 && len(t.last) == len(cells)
	n, form := 0, rowForm{ascii: unprintable == 0}
	for i, c := range cells {
		if above && c == t.last[i] {
			form.above |= 1 << i // as wide as above
			n++
			continue
		}
		n += len(c) + 1
		w := len(c)
		if unprintable&(1<<min(i, 63)) != 0 {
			w = utf8.RuneCountInString(c)
		}
		if i < len(t.widths) && w > t.widths[i] {
			t.widths[i] = w
		}
	}
	if len(t.chunks) == 0 || len(t.chunks[len(t.chunks)-1])+n > cap(t.chunks[len(t.chunks)-1]) {
		t.chunks = append(t.chunks, make([]byte, 0, max(tableChunk, n)))
	}
	b := t.chunks[len(t.chunks)-1]
	if acts && !t.plain {
		t.plain, t.plainChunk, t.plainAt = true, len(t.chunks)-1, len(b)
	}
	for i, c := range cells {
		if form.above&(1<<i) == 0 || i >= 8 {
			b = append(b, c...)
		}
		if i < len(cells)-1 {
			b = append(b, '\t')
		}
	}
	t.chunks[len(t.chunks)-1] = append(b, '\n')
	t.rows = append(t.rows, form)
	t.last = append(t.last[:0], cells...)
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
	var tw *tabwriter.Writer
	if t.plain {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	}
	const padding = 2
	spaces := strings.Repeat(" ", 256)
	out := make([]byte, 0, 256<<10)
	above := make([][]byte, len(t.widths)+1)
	row := 0
	for ci, c := range t.chunks {
		for len(c) > 0 {
			if tw != nil && ci == t.plainChunk && len(c) == len(t.chunks[ci])-t.plainAt {
				// From the row with a byte the table writer acts on, the
				// rows as they were given (the rows before are written).
				for _, rest := range append([][]byte{c}, t.chunks[ci+1:]...) {
					if _, err := tw.Write(rest); err != nil {
						return err
					}
				}
				return tw.Flush()
			}
			end := bytes.IndexByte(c, '\n')
			line := c[:end]
			c = c[end+1:]
			form := t.rows[row]
			row++
			for j := range above {
				cell := line
				if j < len(t.widths) {
					tab := bytes.IndexByte(line, '\t')
					cell, line = line[:tab], line[tab+1:]
				}
				if j < 8 && form.above&(1<<j) != 0 {
					cell = above[j]
				}
				above[j] = cell
				out = append(out, cell...)
				if j == len(t.widths) {
					break
				}
				if tw != nil {
					out = append(out, '\t')
					continue
				}
				w := len(cell)
				if !form.ascii {
					w = utf8.RuneCount(cell)
				}
				for pad := t.widths[j] + padding - w; pad > 0; pad -= len(spaces) {
					out = append(out, spaces[:min(pad, len(spaces))]...)
				}
			}
			out = append(out, '\n')
			if len(out) > 192<<10 || tw != nil {
				if err := t.flushTo(w, tw, out); err != nil {
					return err
				}
				out = out[:0]
			}
		}
	}
	if err := t.flushTo(w, tw, out); err != nil {
		return err
	}
	if tw != nil {
		return tw.Flush()
	}
	return nil
}

// flushTo writes out to w, or rows as they were given to the table writer
// tw.
func (t *alignedTable) flushTo(w io.Writer, tw *tabwriter.Writer, out []byte) error {
	if tw != nil {
		_, err := tw.Write(out)
		return err
	}
	_, err := w.Write(out)
	return err
}
