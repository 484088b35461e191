package store

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"koff/model"
	"koff/model/java"
)

// growingSequence makes batches of mostly new partitions, as a topic read
// from its start brings them, among which now and then: a copy of a
// partition already stored (in another partition of the topic, or its
// fields in another order), a two-field partition in either field order
// (so that the order the connector's task uses changes, ties included),
// one of sinceKeys' odd keys, a tombstone or an unreadable value.
type growingSequence struct {
	r    *rand.Rand
	next map[model.TopicPartition]int64
	n    int // new partitions so far
	at   time.Duration
	odd  []string
}

func (q *growingSequence) batch(s *Store) {
	var batch []Record
	add := func(key string, partition int) {
		tp := model.TopicPartition{Topic: "connect-offsets", Partition: partition}
		r := Record{Topic: tp.Topic, Partition: partition, Offset: q.next[tp], Key: []byte(key), Time: t0.Add(q.at)}
		q.next[tp]++
		switch q.r.IntN(20) {
		case 0: // a tombstone
		case 1:
			r.Value = []byte("garbage")
		default:
			r.Value = []byte(fmt.Sprintf(`{"offset":%d}`, q.r.IntN(1000)))
		}
		batch = append(batch, r)
		q.at += time.Duration(q.r.IntN(3)) * 40 * time.Millisecond
	}
	home := func(key string) int { return java.PartitionFor([]byte(key), 25) }
	for range 1 + q.r.IntN(40) {
		var key string
		switch k := q.r.IntN(100); {
		case k < 3 && q.n > 0: // a copy of a stored partition in another topic-partition
			key = fmt.Sprintf(`["mm",{"cluster":"a","partition":%d,"topic":"t"}]`, q.r.IntN(q.n))
			add(key, q.r.IntN(25))
			continue
		case k < 5 && q.n > 0: // a stored two-field partition in the other order
			i := q.r.IntN(q.n)
			key = fmt.Sprintf(`["c",{"line":"1","file":"f%d"}]`, i)
		case k < 25: // a new two-field partition, in either order
			key = fmt.Sprintf(`["c",{"file":"f%d","line":"1"}]`, q.n)
			if q.r.IntN(3) == 0 {
				key = fmt.Sprintf(`["c",{"line":"1","file":"f%d"}]`, q.n)
			}
			q.n++
		case k < 28:
			key = q.odd[q.r.IntN(len(q.odd))]
		default:
			key = fmt.Sprintf(`["mm",{"cluster":"a","partition":%d,"topic":"t"}]`, q.n)
			q.n++
		}
		add(key, home(key))
	}
	s.Ingest(batch)
}

// sameParts fails unless cp decides as buildParts does over the
// connector's entries now.
func sameParts(t *testing.T, s *Store, c *connector, cp *connParts, what string) {
	t.Helper()
	want := buildParts(c, &topicRead{partitions: s.partitions[c.id.Topic], store: s, topic: c.id.Topic}, s.opts.FlushWindow, s.shapes.list)
	switch {
	case cp.n != want.n || cp.nparts != want.nparts || cp.gen != want.gen:
		t.Fatalf("%s %v: over %d entries of %d partitions at gen %d, built over %d of %d at %d", what, c.id, cp.n, cp.nparts, cp.gen, want.n, want.nparts, want.gen)
	case !reflect.DeepEqual(cp.parts, want.parts):
	case !reflect.DeepEqual(cp.of, want.of) || !reflect.DeepEqual(cp.multi, want.multi):
		t.Fatalf("%s %v: entries' partitions or partitions of several copies differ from those built afresh", what, c.id)
	case !reflect.DeepEqual(cp.orders, want.orders) || !reflect.DeepEqual(cp.tally, want.tally):
		t.Fatalf("%s %v: field orders %v (tally %v), built afresh %v", what, c.id, cp.orders, cp.tally, want.orders)
	}
}

// TestExtendedPartsSameAsBuilt: a connector's partitions worked out on
// from the last read as new partitions arrive (connParts.extend) are
// those built afresh from every entry: which copy the task reads, strays
// and notes, field orders counted over the partitions (changing as new
// partitions in either order come, ties included), the partitions of
// several copies decided again; and where a new record is a copy of a
// partition stored before, the parts are built afresh. Extending must be
// taken, and refused, in the runs.
func TestExtendedPartsSameAsBuilt(t *testing.T) {
	var odd []string
	for _, p := range refPartitions {
		for _, k := range p.keys {
			odd = append(odd, k.raw)
		}
	}
	extended, refused := 0, 0
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 31))
		s := NewStore(StoreOptions{History: 4})
		s.SetTopicPartitions("connect-offsets", 25)
		q := growingSequence{r: r, next: map[model.TopicPartition]int64{}, odd: odd}
		for step := range 60 {
			q.batch(s)
			s.mu.Lock()
			for _, c := range s.connectors {
				old := c.parts.Load()
				if old == nil || old.n == len(c.entries) || r.IntN(4) == 0 {
					sameParts(t, s, c, s.partsOf(c), fmt.Sprintf("seed %d step %d: read", seed, step))
					continue // some connectors are read less often
				}
				was, wasOf := slices.Clone(old.parts), slices.Clone(old.of)
				tr := &topicRead{partitions: s.partitions[c.id.Topic], store: s, topic: c.id.Topic}
				next := old.extend(c, tr, s.opts.FlushWindow, s.shapes.list)
				if !slices.Equal(old.parts, was) || !slices.Equal(old.of, wasOf) {
					t.Fatalf("seed %d step %d %v: extending changed the parts a reader had", seed, step, c.id)
				}
				if next == nil {
					refused++
					sameParts(t, s, c, s.partsOf(c), fmt.Sprintf("seed %d step %d: built", seed, step))
					continue
				}
				extended++
				next.fresh, next.handed = tr.fresh, s.handedTopic[c.id.Topic]
				c.parts.Store(next) // as partsOf does: the next read extends this one
				sameParts(t, s, c, next, fmt.Sprintf("seed %d step %d: extended", seed, step))
			}
			s.mu.Unlock()
		}
	}
	t.Logf("extended %d, refused %d", extended, refused)
	if extended == 0 || refused == 0 {
		t.Fatalf("extended %d times, refused %d: both paths must be taken", extended, refused)
	}
}

// TestExtendingLeavesEarlierReadsAlone: the parts a reader took before
// new partitions came are the same after they are extended in place
// (their arrays grow past what that reader sees), while other readers
// read the connector at the same time (run with -race).
func TestExtendingLeavesEarlierReadsAlone(t *testing.T) {
	s := NewStore(StoreOptions{History: 4})
	s.SetTopicPartitions("connect-offsets", 25)
	q := growingSequence{r: rand.New(rand.NewPCG(3, 4)), next: map[model.TopicPartition]int64{}, odd: []string{`["d",{"t":"x"}]`}}
	id := model.ConnectorID{Topic: "connect-offsets", Name: "mm"}
	type taken struct {
		cp    *connParts
		parts []partState
		of    []*partState
	}
	var (
		mu   sync.Mutex
		kept []taken
		wg   sync.WaitGroup
		done = make(chan struct{})
	)
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				_, _ = s.Connectors(), s.Stats()
				s.mu.RLock()
				if c := s.connectors[id]; c != nil {
					cp := s.partsOf(c)
					tk := taken{cp: cp, of: append([]*partState(nil), cp.of...)}
					for _, ps := range cp.parts {
						tk.parts = append(tk.parts, *ps)
					}
					mu.Lock()
					kept = append(kept, tk)
					mu.Unlock()
				}
				s.mu.RUnlock()
			}
		})
	}
	for range 200 {
		q.batch(s)
	}
	close(done)
	wg.Wait()
	if len(kept) == 0 {
		t.Fatal("no reader read the connector")
	}
	for _, tk := range kept {
		if len(tk.cp.of) != len(tk.of) || len(tk.cp.parts) != len(tk.parts) {
			t.Fatalf("a read's parts changed length: %d/%d entries, %d/%d partitions", len(tk.cp.of), len(tk.of), len(tk.cp.parts), len(tk.parts))
		}
		for i, ps := range tk.cp.parts {
			if !reflect.DeepEqual(*ps, tk.parts[i]) {
				t.Fatalf("partition %d of an earlier read changed", i)
			}
		}
		if !slices.Equal(tk.cp.of, tk.of) {
			t.Fatal("the partitions of an earlier read's entries changed")
		}
	}
	s.mu.RLock()
	sameParts(t, s, s.connectors[id], s.partsOf(s.connectors[id]), "after the readers")
	s.mu.RUnlock()
}
