package screens

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"koff/keymap"
	"koff/model"
	"koff/ui/kit"
)

// The sink screen's column widths, worked out from each column's biggest
// number, are those of its widest cell (partition numbers of five digits
// included: they were cut to "123…" in a column of four).
func TestSinkWidthsAreTheWidestCells(t *testing.T) {
	rng := rand.New(rand.NewSource(31))
	km := keymap.Default()
	st := kit.NewStyles(true)
	for range 300 {
		s := NewSinkScreen(&km, &st, "s")
		var rows []model.SinkPartitionRow
		for range rng.Intn(30) {
			n := func() int64 { return rng.Int63n([]int64{10, 1000, 1 << 40}[rng.Intn(3)]) }
			r := model.SinkPartitionRow{GroupPartition: model.GroupPartition{
				TopicPartition: model.TopicPartition{Topic: []string{"a", "orders.eu", "ünïcode-topic", "x\ty"}[rng.Intn(4)], Partition: rng.Intn([]int{100, 100_000}[rng.Intn(2)])},
				Committed:      n(), Start: n(), End: n()}, Lag: n()}
			if rng.Intn(5) == 0 {
				r.Committed = -1
			}
			rows = append(rows, r)
		}
		s.List.Items = rows
		s.measure()
		want := sinkNeeds{topic: len("TOPIC"), part: len("PART"), committed: len("COMMITTED"), end: len("END"), start: len("LOG START"), lag: len("LAG")}
		for _, r := range rows {
			want.topic = max(want.topic, len(kit.Clean(r.Topic)))
			want.part = max(want.part, len(strconv.Itoa(r.Partition)))
			want.committed = max(want.committed, len(kit.CommittedCell(r.Committed)))
			want.end = max(want.end, len(kit.Count(r.End)))
			want.start = max(want.start, len(kit.Count(r.Start)))
			want.lag = max(want.lag, len(kit.Count(r.Lag)))
		}
		if s.needs != want {
			t.Fatalf("widths %+v, want %+v, of %+v", s.needs, want, rows)
		}
	}
}

// A partition of five digits shows whole on the sink screen.
func TestSinkScreenShowsBigPartitionNumbers(t *testing.T) {
	km := keymap.Default()
	st := kit.NewStyles(true)
	s := NewSinkScreen(&km, &st, "s")
	s.SetSize(80, 24)
	s.List.SetItems([]model.SinkPartitionRow{{GroupPartition: model.GroupPartition{TopicPartition: model.TopicPartition{Topic: "orders", Partition: 99998}, Committed: 7, End: 9}, Lag: 2}})
	s.measure()
	s.Sync()
	if v := s.View(); !strings.Contains(v, "99998") {
		t.Fatalf("partition 99998 not on screen:\n%s", v)
	}
}
