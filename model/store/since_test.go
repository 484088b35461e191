package store

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"koff/model"
	"koff/model/java"
)

// sinceKeys are keys of two connectors for random streams: the reference
// model's key variants of two partitions (whitespace, escapes, text after
// the array, leading zeros), two-field partitions in both field orders (a
// field order to infer from the other keys or from a flush), a nested
// map, a null partition, and plain MirrorMaker partitions.
func sinceKeys() []string {
	var keys []string
	for _, p := range refPartitions {
		for _, k := range p.keys {
			keys = append(keys, k.raw)
		}
	}
	for i := range 4 {
		keys = append(keys,
			fmt.Sprintf(`["c",{"file":"f%d","line":"1"}]`, i),
			fmt.Sprintf(`["c",{"line":"1","file":"f%d"}]`, i))
	}
	keys = append(keys, `["c",{"n":{"deep":1}}]`, `["c",null]`, `["d",{"t":"x"}]`, `["d",{"t":"y"}]`, `["d",{"t":"y"} ]`)
	for i := range 20 {
		keys = append(keys, fmt.Sprintf(`["mm",{"cluster":"a","partition":%d,"topic":"t"}]`, i))
	}
	return keys
}

var sinceValues = []string{`{"pos":1}`, `{"pos":2}`, `{ "pos" : 3 }`, `{"pos":18446744073709551616}`, `{"pos":-0.0}`,
	"", "null", "garbage", `{"pos":{"a":1}}`, "\x00tombstone"}

// sinceView is a reader's rows kept up to date by PartitionsSince alone.
// It also holds the rows a read gave as they were (kept, and copied):
// a reader may keep a row without copying it, so a later read never
// changes it, and the changed rows of one read are allocations of their
// own (no two the same).
type sinceView struct {
	stamp uint64
	rows  []model.PartitionRow
	kept  []*model.PartitionRow
	was   []model.PartitionRow
}

func (v *sinceView) read(t *testing.T, s *Store, id model.ConnectorID) {
	t.Helper()
	ch := s.PartitionsSince(id, v.stamp)
	v.stamp = ch.Stamp
	for i, r := range v.kept {
		if !reflect.DeepEqual(*r, v.was[i]) {
			t.Fatalf("a row given by an earlier read changed: was\n%+v\nnow\n%+v", v.was[i], *r)
		}
	}
	v.kept, v.was = ch.Rows, make([]model.PartitionRow, len(ch.Rows))
	seen := map[*model.PartitionRow]bool{}
	for i, r := range ch.Rows {
		v.was[i] = *r
		if seen[r] {
			t.Fatalf("row %d of a read is another row of it too", i)
		}
		seen[r] = true
	}
	if ch.Whole {
		v.rows = make([]model.PartitionRow, len(ch.Rows))
		for i, r := range ch.Rows {
			v.rows[i] = *r
		}
		if len(ch.Rows) != ch.Count {
			t.Fatalf("a whole read of %d rows says %d places", len(ch.Rows), ch.Count)
		}
		return
	}
	if ch.Count < len(v.rows) {
		t.Fatalf("places went from %d to %d without a whole read", len(v.rows), ch.Count)
	}
	rows := make([]model.PartitionRow, ch.Count)
	copy(rows, v.rows)
	for k, at := range ch.At {
		rows[at] = *ch.Rows[k]
	}
	for i := len(v.rows); i < ch.Count; i++ {
		if rows[i].ID == (model.PartitionID{}) {
			t.Fatalf("new place %d came without its row", i)
		}
	}
	v.rows = rows
}

func byID(rows []model.PartitionRow) []model.PartitionRow {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b model.PartitionRow) int {
		return cmp.Or(strings.Compare(a.ID.Topic, b.ID.Topic), cmp.Compare(a.ID.Partition, b.ID.Partition), strings.Compare(a.ID.Key, b.ID.Key))
	})
	return rows
}

// sinceSequence makes random batches of sinceKeys and sinceValues for a
// Store: new keys and offsets, tombstones, null and unreadable values,
// copies in other partitions and another topic, with now and then a new
// partition count or a Reset.
type sinceSequence struct {
	r    *rand.Rand
	keys []string
	next map[model.TopicPartition]int64
	at   time.Duration
	// One step in change sets a partition count or resets (Resets only
	// past step resetFrom); a batch holds 1 to batch records; one record in
	// stray is a copy in another partition; records are up to gapSteps
	// gapUnits apart.
	change, resetFrom, batch, stray, gapSteps int
	gapUnit                                   time.Duration
}

// step ingests the next batch into s.
func (q *sinceSequence) step(s *Store, step int) {
	if q.next == nil {
		q.next = map[model.TopicPartition]int64{}
	}
	switch q.r.IntN(q.change) {
	case 0:
		s.SetTopicPartitions("connect-offsets", []int{0, 5, 25}[q.r.IntN(3)])
	case 1:
		if step > q.resetFrom {
			s.Reset()
			q.next = map[model.TopicPartition]int64{}
		}
	}
	var batch []Record
	for range 1 + q.r.IntN(q.batch) {
		k := q.keys[q.r.IntN(len(q.keys))]
		topic := "connect-offsets"
		if q.r.IntN(8) == 0 {
			topic = "other"
		}
		tp := model.TopicPartition{Topic: topic, Partition: java.PartitionFor([]byte(k), 25)}
		if q.r.IntN(q.stray) == 0 {
			tp.Partition = q.r.IntN(25) // a copy in another partition
		}
		rec := Record{Topic: tp.Topic, Partition: tp.Partition, Offset: q.next[tp], Key: []byte(k), Time: t0.Add(q.at)}
		q.next[tp]++
		if v := sinceValues[q.r.IntN(len(sinceValues))]; v != "\x00tombstone" {
			rec.Value = []byte(v)
		}
		batch = append(batch, rec)
		q.at += time.Duration(q.r.IntN(q.gapSteps)) * q.gapUnit
	}
	s.Ingest(batch)
}

// TestPartitionsSinceSameAsPartitions: a reader that keeps a connector's
// rows by applying PartitionsSince after every batch holds exactly the
// rows of Partitions (every field: what the task reads, strays, flags,
// deletions), through copies of a key in several partitions, field orders
// decided across partitions, tombstones and unreadable values, connectors
// appearing, a new partition count and a Reset; and the Store's
// incrementally decided partitions are those built afresh.
func TestPartitionsSinceSameAsPartitions(t *testing.T) {
	keys := sinceKeys()
	ids := []model.ConnectorID{{Topic: "connect-offsets", Name: "c"}, {Topic: "connect-offsets", Name: "d"}, {Topic: "connect-offsets", Name: "mm"}, {Topic: "other", Name: "c"}}
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 12))
		s := NewStore(StoreOptions{History: 4})
		s.SetTopicPartitions("connect-offsets", 25)
		views := make([]sinceView, len(ids))
		q := sinceSequence{r: r, keys: keys, change: 40, resetFrom: 60, batch: 6, stray: 4, gapSteps: 300, gapUnit: time.Millisecond}
		for step := range 120 {
			q.step(s, step)
			for i, id := range ids {
				if r.IntN(3) == 0 {
					continue // some readers read less often
				}
				views[i].read(t, s, id)
				got, want := byID(views[i].rows), byID(s.Partitions(id))
				if len(got) != len(want) {
					t.Fatalf("seed %d step %d %v: %d rows read incrementally, %d in full", seed, step, id, len(got), len(want))
				}
				for k := range got {
					if !reflect.DeepEqual(got[k], want[k]) {
						t.Fatalf("seed %d step %d %v: incrementally\n%+v\nin full\n%+v", seed, step, id, got[k], want[k])
					}
				}
			}
			s.mu.RLock()
			for _, c := range s.connectors {
				got := s.partsOf(c)
				want := buildParts(c, &topicRead{partitions: s.partitions[c.id.Topic], store: s, topic: c.id.Topic}, s.opts.FlushWindow, s.shapes.list)
				if !reflect.DeepEqual(got.parts, want.parts) || !reflect.DeepEqual(got.of, want.of) {
					t.Fatalf("seed %d step %d %v: partitions decided again differ from those built afresh", seed, step, c.id)
				}
			}
			s.mu.RUnlock()
		}
	}
}

// TestPartitionsSinceReadsOnlyWhatChanged: a record of one partition of a
// connector of many makes a read since the last of that one row; a batch
// of other connectors, none.
func TestPartitionsSinceReadsOnlyWhatChanged(t *testing.T) {
	s := NewStore(StoreOptions{})
	s.SetTopicPartitions("connect-offsets", 25)
	key := func(i int) string { return fmt.Sprintf(`["mm",{"cluster":"a","partition":%d,"topic":"t"}]`, i) }
	var batch []Record
	for i := range 1000 {
		batch = append(batch, rec(java.PartitionFor([]byte(key(i)), 25), int64(i), key(i), `{"offset":1}`, 0))
	}
	s.Ingest(batch)
	id := model.ConnectorID{Topic: "connect-offsets", Name: "mm"}
	first := s.PartitionsSince(id, 0)
	if !first.Whole || len(first.Rows) != 1000 || first.Count != 1000 {
		t.Fatalf("first read: whole %v, %d rows of %d", first.Whole, len(first.Rows), first.Count)
	}
	k := key(7)
	tp := java.PartitionFor([]byte(k), 25)
	s.Ingest([]Record{rec(tp, s.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: tp}), k, `{"offset":2}`, time.Second)})
	ch := s.PartitionsSince(id, first.Stamp)
	if ch.Whole || len(ch.Rows) != 1 || ch.Rows[0].ID.Key != k || ch.Rows[0].Offset != `{"offset":2}` || first.Rows[ch.At[0]].ID != ch.Rows[0].ID {
		t.Fatalf("after one record: whole %v, rows %+v at %v", ch.Whole, ch.Rows, ch.At)
	}
	s.Ingest([]Record{rec(3, s.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: 3}), `["other",{"f":"x"}]`, `{"p":1}`, time.Second)})
	if again := s.PartitionsSince(id, ch.Stamp); again.Whole || len(again.Rows) != 0 || again.Count != 1000 {
		t.Fatalf("after another connector's record: whole %v, %d rows", again.Whole, len(again.Rows))
	}
	if other := NewStore(StoreOptions{}); other.PartitionsSince(id, ch.Stamp).Whole != true {
		t.Fatal("a stamp of another Store is taken for one of this Store's")
	}
}
