package cli

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"text/tabwriter"
)

// TestAlignedTableIsTheTableWritersLayout: rows of random cells (empty,
// wide, the row above's, multibyte UTF-8, combining marks, bytes that are not UTF-8, and
// now and then a tab, newline, vertical tab, form feed or the table
// writer's escape, which the table writer acts on) come out byte for byte
// as tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) lays them out, written a row
// at a time as koff get wrote them before.
func TestAlignedTableIsTheTableWritersLayout(t *testing.T) {
	pieces := []string{"", "a", "reads", "connect-offsets/12", `{"cluster":"primary","partition":7}`, "é", "日本語", "e\u0301", "\U0001F600", "\xff", "\xc3", strings.Repeat("w", 300), " "}
	acting := []string{"\t", "\n", "\v", "\f", "\xff\xff"}
	defer func(was int) { tableChunk = was }(tableChunk)
	tableChunk = 100 // rows in many buffers, some longer than one
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 3))
		columns := 2 + r.IntN(6)
		var want bytes.Buffer
		tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', 0)
		at := newAlignedTable(columns)
		var above []string
		for range r.IntN(40) {
			cells := make([]string, columns)
			for i := range cells {
				if above != nil && r.IntN(2) == 0 {
					cells[i] = above[i] // as koff get's connector, time, topic-partition and flags often are
					continue
				}
				for range r.IntN(3) {
					cells[i] += pieces[r.IntN(len(pieces))]
				}
				if seed%4 == 0 && r.IntN(60) == 0 {
					cells[i] += acting[r.IntN(len(acting))]
				}
			}
			tw.Write([]byte(strings.Join(cells, "\t") + "\n"))
			at.row(cells...)
			above = cells
		}
		if err := tw.Flush(); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := at.writeTo(&got); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("seed %d (plain %v):\n got %q\nwant %q", seed, at.plain, got.String(), want.String())
		}
	}
}
