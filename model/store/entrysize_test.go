package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"koff/model"
)

// TestEntryIsSmall keeps the entry, one of a million at a million source
// partitions, at the size the memory figures of docs/PERFORMANCE.md were
// measured with: each 8 bytes more is 8 MB more to fault in and write.
func TestEntryIsSmall(t *testing.T) {
	if got := unsafe.Sizeof(entry{}); got > 120 {
		t.Errorf("an entry is %d bytes, want at most 120", got)
	}
}

// TestPartitionInTheKeyIsTheParsedPartition: an entry keeps its partition
// and its identity as places in its key bytes, or aside when a key is
// written otherwise (spaces, number forms, escapes, fields out of name
// order); either way each is what the parsed key gives, and so is each
// row's partition and each connector's GET offsets body, for random keys of both kinds, copies in several partitions of
// the topic, duplicates, tombstones and keys of no partition map.
func TestPartitionInTheKeyIsTheParsedPartition(t *testing.T) {
	forms := []func(r *rand.Rand, c, i int) string{
		func(r *rand.Rand, c, i int) string { // as workers write them
			return fmt.Sprintf(`["c%d",{"cluster":"primary","partition":%d,"topic":"t-%d"}]`, c, i%7, i)
		},
		func(r *rand.Rand, c, i int) string { // spaces: compact form not in the key
			return fmt.Sprintf(`[ "c%d", { "table" : "t%d" , "schema":"s" } ]`, c, i)
		},
		func(r *rand.Rand, c, i int) string { // another number form, an escape
			return fmt.Sprintf(`["c%d",{"n":%d.0,"s":"\u0041%d"}]`, c, i, i)
		},
		func(r *rand.Rand, c, i int) string { return fmt.Sprintf(`["c%d",null]`, c) },
		func(r *rand.Rand, c, i int) string { // fields out of order, nested
			return fmt.Sprintf(`["c%d",{"z":%d,"a":{"b":[1,2]}}]`, c, i)
		},
	}
	odd, oddIdents := 0, 0
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 7))
		s := NewStore(StoreOptions{})
		s.SetTopicPartitions("connect-offsets", 5)
		var batch []Record
		for off := range int64(400) {
			key := forms[r.IntN(len(forms))](r, r.IntN(3), r.IntN(60))
			value := fmt.Sprintf(`{"offset":%d}`, r.IntN(1000))
			if r.IntN(8) == 0 {
				value = "" // tombstone
			}
			batch = append(batch, rec(r.IntN(5), off, key, value, 0))
			if r.IntN(50) == 0 {
				s.Ingest(batch)
				batch = nil
			}
		}
		s.Ingest(batch)
		var ids []model.ConnectorID
		for _, c := range s.ConnectorList() {
			ids = append(ids, c.ID)
			for _, row := range s.Partitions(c.ID) {
				k, err := model.ParseKey([]byte(row.ID.Key))
				if err != nil {
					t.Fatal(err)
				}
				f, err := parsedKeyFacts(row.ID.Key, &keyShapes{})
				if err != nil {
					t.Fatal(err)
				}
				if row.Partition != f.partition || k.Partition == nil && row.Partition != "null" {
					t.Fatalf("seed %d: key %s: partition %q, want %q", seed, row.ID.Key, row.Partition, f.partition)
				}
			}
		}
		for _, c := range s.connectors {
			odd += len(c.oddParts)
			oddIdents += len(c.oddIdents)
			for _, e := range c.entries {
				f, err := parsedKeyFacts(e.key, &keyShapes{})
				if err != nil {
					t.Fatal(err)
				}
				if e.partitionStr() != f.partition || e.identity() != f.identity {
					t.Fatalf("seed %d: key %s: partition %q, identity %q, want %q, %q", seed, e.key, e.partitionStr(), e.identity(), f.partition, f.identity)
				}
			}
		}
		// The bodies are made from the entries without the rows.
		for _, id := range ids {
			if got, want := string(s.OffsetsBody([]model.ConnectorID{id})), string(model.OffsetsBody(s.Partitions(id))); got != want {
				t.Fatalf("seed %d: %s: body\n%s\nwant\n%s", seed, id.Name, got, want)
			}
		}
	}
	if odd == 0 || oddIdents == 0 {
		t.Errorf("%d keys kept their partition aside, %d their identity: want some of each", odd, oddIdents)
	}
}

// TestAppendDoublingLeavesLittleBehind: a connector's entries reaching a
// million are the same slice append makes, with at most about twice their
// final size allocated on the way (append's quarter steps leave five
// times), which a one-shot read keeps to its end.
func TestAppendDoublingLeavesLittleBehind(t *testing.T) {
	const n = 1 << 20
	es := make([]entry, 3)
	var plain, doubled []*entry
	// What each way allocates is the sum of the backing arrays it made:
	// counted from the capacities, not from the process's allocations,
	// which other goroutines (and the race detector) share.
	size := uint64(unsafe.Sizeof(&es[0]))
	var plainBytes, doubledBytes uint64
	for i := range n {
		if c := cap(plain); len(plain) == c {
			plain = append(plain, &es[i%3])
			plainBytes += uint64(cap(plain)) * size
		} else {
			plain = append(plain, &es[i%3])
		}
		if c := cap(doubled); len(doubled) == c {
			doubled = appendDoubling(doubled, &es[i%3])
			doubledBytes += uint64(cap(doubled)) * size
		} else {
			doubled = appendDoubling(doubled, &es[i%3])
		}
	}
	if !slices.Equal(plain, doubled) {
		t.Fatal("appendDoubling made another slice than append")
	}
	final := uint64(n) * size
	if doubledBytes > 5*final/2 {
		t.Errorf("appendDoubling allocated %d bytes for %d of final size (append: %d)", doubledBytes, final, plainBytes)
	}
	if plainBytes <= doubledBytes {
		t.Errorf("append allocated %d bytes, appendDoubling %d: doubling saves nothing", plainBytes, doubledBytes)
	}
	t.Logf("allocated for %d bytes: append %d, appendDoubling %d", final, plainBytes, doubledBytes)
}

// TestFirstUpdateInTheEntryReadsAsARing: an entry keeps its first update
// in its own fields, its time as milliseconds, and makes its ring at the
// second; what any reader sees is what a ring for every entry gives: rows,
// details with their histories and gaps, connectors, bodies and stats, for
// random sequences of new keys, repeats, tombstones and empty values, fed
// one by one or through a Latest, one-shot or not, History 16, 2 or 1, at
// times the Tailer makes (milliseconds, Local) and others (UTC, finer than
// a millisecond, with a monotonic reading), which take a ring at once. The
// values stay whole after the records handed over are collected.
func TestFirstUpdateInTheEntryReadsAsARing(t *testing.T) {
	defer func() { inlineFirst = true }()
	r := rand.New(rand.NewPCG(3, 31))
	inline, rings := 0, 0
	for i := range 120 {
		batches := aheadSequence(r)
		for _, b := range batches {
			for j := range b {
				at := b[j].Time
				switch x := r.IntN(10); {
				case x == 0:
					at = at.UTC()
				case x == 1:
					at = at.Add(time.Duration(1 + r.IntN(999999)))
				case x == 2:
					at = time.Now() // a monotonic reading
				default:
					at = time.UnixMilli(at.UnixMilli())
				}
				b[j].Time = at
				if b[j].Value != nil && r.IntN(20) == 0 {
					b[j].Value = []byte{} // empty, not a tombstone
				}
			}
		}
		hist := []int{16, 2, 1}[i%3]
		stores, keeps := storePair(hist, i%4 == 3)
		for _, b := range batches {
			for j, s := range stores {
				inlineFirst = j == 0
				recs := cloneRecords(b)
				if i%2 == 1 && samePartition(recs) {
					recs = keeps[j].Keep(recs)
				}
				s.Ingest(recs)
			}
		}
		inlineFirst = true
		// The values the entries point to are kept alive by them alone.
		runtime.GC()
		for range 100 {
			sink = bytes.Repeat([]byte{0xee}, 64<<10)
		}
		if why := storesDiffer(stores[0], stores[1]); why != "" {
			t.Fatalf("sequence %d (history %d): %s", i, hist, why)
		}
		for _, c := range stores[0].connectors {
			for _, e := range c.entries {
				if e.more == nil {
					inline++
				} else {
					rings++
				}
			}
		}
	}
	if inline == 0 || rings == 0 {
		t.Errorf("%d entries kept their update inline, %d in a ring: want some of each", inline, rings)
	}
}

var sink []byte

// TestDashboardStoreStaysBounded: a dashboard's Store reading records of
// the same keys on and on (times as the Tailer makes them, values of
// their own, some tombstones, through a Latest as the Tailer's readers
// hand them) holds as much once every ring is full as it does many
// rounds later: the first update kept in the entry and the ring made at
// the second leave nothing behind as updates come.
func TestDashboardStoreStaysBounded(t *testing.T) {
	const keys, rounds = 3000, 90
	s := NewStore(StoreOptions{History: 16})
	s.SetTopicPartitions("connect-offsets", 1)
	l := NewLatest(16)
	base := time.UnixMilli(1_796_000_000_000)
	var heap [2]uint64
	off := int64(0)
	for round := range rounds {
		batch := make([]Record, 0, keys)
		for k := range keys {
			r := Record{Topic: "connect-offsets", Offset: off, Time: base.Add(time.Duration(off) * time.Millisecond),
				Key: fmt.Appendf(nil, `["c%d",{"table":"t%d"}]`, k%7, k)}
			if (k+round)%13 != 0 {
				r.Value = fmt.Appendf(nil, `{"lsn":%d}`, off)
			}
			batch = append(batch, r)
			off++
		}
		s.Ingest(l.Keep(batch))
		if round == 30 || round == rounds-1 {
			var m runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m)
			heap[min(round/31, 1)] = m.HeapAlloc
		}
	}
	if heap[1] > heap[0]+heap[0]/20+256<<10 {
		t.Errorf("the Store held %d bytes after 30 rounds of %d keys, %d after %d", heap[0], keys, heap[1], rounds)
	}
	if rows := s.Partitions(model.ConnectorID{Topic: "connect-offsets", Name: "c1"}); len(rows) != keys/7+1 {
		t.Errorf("%d rows of c1, want %d", len(rows), keys/7+1)
	}
	runtime.KeepAlive(s)
	t.Logf("heap %d after 30 rounds, %d after %d", heap[0], heap[1], rounds)
}

// TestKeyPlacesOfLongKeysAndManyAside: an entry places its partition and
// identity in its key in two uint16 each; a key of 32 KB or more keeps
// them aside, and a connector's strings kept aside are found past the
// first 65,536 (an index in 31 bits): each is what the parsed key gives,
// and so is each connector's body.
func TestKeyPlacesOfLongKeysAndManyAside(t *testing.T) {
	for _, i := range []int{0, 1, 1<<16 - 1, 1 << 16, 1<<16 + 1, 1<<31 - 1} {
		if p := oddPlace(i); !p.odd() || p.index() != i {
			t.Errorf("oddPlace(%d) = %+v: odd %v, index %d", i, p, p.odd(), p.index())
		}
	}
	s := NewStore(StoreOptions{OneShot: true})
	s.SetTopicPartitions("connect-offsets", 1)
	long := strings.Repeat("t", 40<<10)
	batch := []Record{
		rec(0, 0, `["long",{"a":1,"topic":"`+long+`"}]`, `{"offset":1}`, 0),
		rec(0, 1, `["long",{"a":1,"topic":"`+long[:inKeyMax-40]+`"}]`, `{"offset":2}`, 0),
	}
	const aside = 1<<16 + 300
	for i := range aside {
		batch = append(batch, rec(0, int64(2+i), fmt.Sprintf(`["spaced",{ "p" : %d }]`, i), `{"offset":3}`, 0))
	}
	s.Ingest(batch)
	for _, c := range s.connectors {
		for _, e := range c.entries {
			f, err := parsedKeyFacts(e.key, &keyShapes{})
			if err != nil {
				t.Fatal(err)
			}
			if e.partitionStr() != f.partition || e.identity() != f.identity {
				t.Fatalf("key of %d bytes: partition %.40q, identity %.40q, want %.40q, %.40q", len(e.key), e.partitionStr(), e.identity(), f.partition, f.identity)
			}
		}
		if got, want := string(s.OffsetsBody([]model.ConnectorID{c.id})), string(model.OffsetsBody(s.Partitions(c.id))); got != want {
			t.Fatalf("%s: body %.200s, want %.200s", c.id.Name, got, want)
		}
	}
	if c := s.connectors[model.ConnectorID{Topic: "connect-offsets", Name: "spaced"}]; c == nil || len(c.oddParts) != aside {
		t.Fatalf("the spaced keys' partitions kept aside: want %d", aside)
	}
	long1 := s.connectors[model.ConnectorID{Topic: "connect-offsets", Name: "long"}]
	if long1 == nil || len(long1.entries) != 2 || !long1.entries[0].part.odd() || long1.entries[1].part.odd() {
		t.Errorf("a key of 40 KB keeps its partition aside, one of less than 32 KB in its bytes")
	}
}
