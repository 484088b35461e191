package store

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"koff/model"
	"koff/model/java"
)

// walkedCounts is what Connectors counts over a connector's partitions,
// worked out by walking every partition and entry (as it was before the
// counts were kept).
type walkedCounts struct {
	partitions, deleted, noOffset, suspect int
	interval                               time.Duration
}

func walkCounts(s *Store, c *connector) walkedCounts {
	var w walkedCounts
	best := 0
	for _, e := range c.entries {
		// Prefer partitions seen updated three times or more.
		gap, gaps := e.gapOfUpdates()
		if n := int(min(gaps, 2)); gap > 0 && (n > best || n == best && gap < w.interval) {
			w.interval, best = gap, n
		}
	}
	for _, ps := range s.partsOf(c).parts {
		switch ps.reads() {
		case valueOffset:
			w.partitions++
		case valueTombstone:
			w.deleted++
		default:
			w.noOffset++
		}
		for _, e := range ps.entries {
			if s.flags(e).Suspect() {
				w.suspect++
				break
			}
		}
	}
	return w
}

// TestKeptCountsSameAsWalk: the counts Connectors and Stats keep from read
// to read equal a walk of every partition, after any sequence of batches
// of new keys, new offsets, tombstones, null and unreadable values,
// copies in other partitions (duplicates, strays), field orders, other
// connectors and topics, new partition counts and Resets, read after
// every batch or only now and then; in a Store that keeps a change log and
// in a one-shot one.
func TestKeptCountsSameAsWalk(t *testing.T) {
	keys := sinceKeys()
	for _, oneShot := range []bool{false, true} {
		for seed := range uint64(60) {
			r := rand.New(rand.NewPCG(seed, 77))
			s := NewStore(StoreOptions{History: 4, OneShot: oneShot})
			s.SetTopicPartitions("connect-offsets", 25)
			every := 1 + r.IntN(4)
			q := sinceSequence{r: r, keys: keys, change: 50, resetFrom: 80, batch: 8, stray: 5, gapSteps: 5, gapUnit: 100 * time.Millisecond}
			for step := range 150 {
				q.step(s, step)
				if step%every != 0 {
					continue
				}
				rows := s.Connectors()
				st := s.Stats()
				s.mu.RLock()
				want, total := map[model.ConnectorID]walkedCounts{}, 0
				for id, c := range s.connectors {
					w := walkCounts(s, c)
					want[id] = w
					total += w.partitions
				}
				s.mu.RUnlock()
				for _, row := range rows {
					w, ok := want[row.ID]
					if !ok {
						continue
					}
					got := walkedCounts{row.Partitions, row.Deleted, row.NoOffset, row.Suspect, row.PartitionInterval}
					if got != w {
						t.Fatalf("one-shot %v seed %d step %d %v: kept %+v, walked %+v", oneShot, seed, step, row.ID, got, w)
					}
				}
				if st.Partitions != total {
					t.Fatalf("one-shot %v seed %d step %d: Stats kept %d partitions, walked %d", oneShot, seed, step, st.Partitions, total)
				}
			}
		}
	}
}

// TestChangeLogStaysSmall: a connector's change log holds at most half
// again as many places as it has entries (plus a few), however many
// records of them arrive, and still gives every change since any stamp.
func TestChangeLogStaysSmall(t *testing.T) {
	s := NewStore(StoreOptions{})
	s.SetTopicPartitions("connect-offsets", 25)
	key := func(i int) string { return `["mm",{"cluster":"a","partition":` + strconv.Itoa(i) + `,"topic":"t"}]` }
	next := map[int]int64{}
	var stamps []uint64
	for round := range 50 {
		var batch []Record
		for i := range 200 {
			if (i+round)%3 == 0 {
				continue
			}
			p := java.PartitionFor([]byte(key(i)), 25)
			batch = append(batch, rec(p, next[p], key(i), `{"offset":`+strconv.Itoa(round)+`}`, time.Duration(round)*time.Second))
			next[p]++
		}
		s.Ingest(batch)
		stamps = append(stamps, s.PartitionsSince(model.ConnectorID{Topic: "connect-offsets", Name: "mm"}, 0).Stamp)
	}
	c := s.connectors[model.ConnectorID{Topic: "connect-offsets", Name: "mm"}]
	if n := len(c.entries); len(c.changes.at) > n+n/2+64 {
		t.Fatalf("log of %d places for %d entries", len(c.changes.at), n)
	}
	for _, since := range stamps {
		var got []int32
		s.changedSince(c, since, func(e *entry) { got = append(got, e.idx) })
		want := 0
		seen := map[int32]bool{}
		for _, e := range c.entries {
			if e.stamp > since {
				want++
			}
		}
		for _, i := range got {
			if seen[i] || c.entries[i].stamp <= since {
				t.Fatalf("since %d: place %d given twice or unchanged", since, i)
			}
			seen[i] = true
		}
		if len(got) != want {
			t.Fatalf("since %d: %d places changed, the log gave %d", since, want, len(got))
		}
	}
}
