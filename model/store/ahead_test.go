package store

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"koff/model"
)

// A Store that looks ahead over each batch (lookAhead: index slots read
// first, new keys analysed before Ingest's pass) holds exactly what one
// that does not holds: connectors, every row, body, detail and history,
// totals, read positions and unparseable records. Batches of many new
// keys cross look-ahead windows, hold a new key twice, the same bytes in
// several partitions and copies of one partition in other bytes; and all
// of it again with hashes that collide (a few values for every key), and
// fed through Latest as koff get's Tailer does.
// storePair is two Stores of the same options on connect-offsets of 3
// partitions, and a Latest for each, to ingest one sequence two ways.
func storePair(history int, oneShot bool) ([2]*Store, [2]*Latest) {
	var stores [2]*Store
	var keeps [2]*Latest
	for j := range stores {
		stores[j] = NewStore(StoreOptions{History: history, OneShot: oneShot})
		stores[j].SetTopicPartitions("connect-offsets", 3)
		keeps[j] = NewLatest(history)
	}
	return stores, keeps
}

func TestLookAheadIngestsAsWithout(t *testing.T) {
	defer func() { lookAhead = true }()
	for _, collide := range []bool{false, true} {
		if collide {
			hashBytes = func(_ maphash.Seed, b []byte) uint64 { return uint64(len(b)%3) << 40 }
			hashString = func(_ maphash.Seed, s string) uint64 { return uint64(len(s)%3) << 40 }
		}
		r := rand.New(rand.NewPCG(5, 6))
		runs := 150
		if collide {
			runs = 15 // every lookup walks a chain of a third of the keys
		}
		for i := range runs {
			batches := aheadSequence(r)
			hist := []int{16, 2, 1}[i%3]
			stores, keeps := storePair(hist, i%4 == 3)
			for _, b := range batches {
				for j, s := range stores {
					lookAhead = j == 1
					recs := cloneRecords(b)
					if i%2 == 1 && samePartition(recs) {
						recs = keeps[j].Keep(recs)
					}
					s.Ingest(recs)
				}
			}
			lookAhead = true
			if why := storesDiffer(stores[0], stores[1]); why != "" {
				t.Fatalf("collide %v, sequence %d (history %d): %s", collide, i, hist, why)
			}
		}
		hashBytes, hashString = maphash.Bytes, maphash.String
	}
}

func samePartition(recs []Record) bool {
	for _, r := range recs {
		if r.Partition != recs[0].Partition {
			return false
		}
	}
	return true
}

// aheadSequence is batches of a 3-partition topic: most of one partition
// (as the Tailer hands them), some of several, up to a few windows long,
// of many new plain keys in both field orders, of a few connectors and of
// many, keys of latestKeys, and repeats.
func aheadSequence(r *rand.Rand) [][]Record {
	next := map[int]int64{}
	at := time.Duration(0)
	var out [][]Record
	for range 1 + r.IntN(6) {
		tp := r.IntN(3)
		mixed := r.IntN(4) == 0
		n := 1 + r.IntN(3*aheadWindow)
		var b []Record
		for range n {
			p := tp
			if mixed {
				p = r.IntN(3)
			}
			at += time.Duration(r.IntN(500)) * time.Millisecond
			rec := Record{Topic: "connect-offsets", Partition: p, Offset: next[p], Time: t0.Add(at)}
			next[p] += 1 + int64(r.IntN(2))
			switch x := r.IntN(10); {
			case x == 0:
				if k := latestKeys[r.IntN(len(latestKeys))]; k != nil {
					rec.Key = []byte(*k)
				}
			case x == 1:
				// Connectors of more names than lookAhead keeps at hand.
				rec.Key = fmt.Appendf(nil, `["mm2-%03d.MirrorSourceConnector",{"cluster":"primary","partition":%d,"topic":"t"}]`, r.IntN(2*connSlots), r.IntN(20))
			case x < 3:
				rec.Key = fmt.Appendf(nil, `["c%d",{"b":%d,"a":"%d"}]`, r.IntN(3), r.IntN(5), r.IntN(300))
			default:
				rec.Key = fmt.Appendf(nil, `["c%d",{"a":"%d","b":%d}]`, r.IntN(3), r.IntN(300), r.IntN(5))
			}
			if v := latestValues[r.IntN(len(latestValues))]; v != nil {
				rec.Value = []byte(*v)
			}
			if r.IntN(3) == 0 {
				rec.Prepare()
			}
			b = append(b, rec)
		}
		out = append(out, b)
	}
	return out
}

// storesDiffer says how a and b differ in what a reader sees, or "".
func storesDiffer(a, b *Store) string {
	ca, cb := a.Connectors(), b.Connectors()
	if !reflect.DeepEqual(ca, cb) {
		return fmt.Sprintf("connectors\n%+v\n%+v", ca, cb)
	}
	var ids []model.ConnectorID
	for _, c := range ca {
		ids = append(ids, c.ID)
		ra, rb := a.Partitions(c.ID), b.Partitions(c.ID)
		if !reflect.DeepEqual(ra, rb) {
			return fmt.Sprintf("rows of %s\n%+v\n%+v", c.ID.Name, ra, rb)
		}
		if x, y := string(a.OffsetsBody([]model.ConnectorID{c.ID})), string(b.OffsetsBody([]model.ConnectorID{c.ID})); x != y {
			return fmt.Sprintf("bodies of %s\n%s\n%s", c.ID.Name, x, y)
		}
		for _, row := range ra {
			da, _ := a.Partition(row.ID)
			db, _ := b.Partition(row.ID)
			if !reflect.DeepEqual(da, db) {
				return fmt.Sprintf("detail of %s\n%+v\n%+v", row.ID.Key, da, db)
			}
		}
	}
	if x, y := string(a.OffsetsBody(ids)), string(b.OffsetsBody(ids)); x != y {
		return fmt.Sprintf("bodies of all\n%s\n%s", x, y)
	}
	if sa, sb := a.Stats(), b.Stats(); !reflect.DeepEqual(sa, sb) {
		return fmt.Sprintf("stats\n%+v\n%+v", sa, sb)
	}
	for tp := range 3 {
		if x, y := a.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: tp}), b.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: tp}); x != y {
			return fmt.Sprintf("read position of %d: %d, %d", tp, x, y)
		}
	}
	if ua, ub := a.UnparseableRecords(), b.UnparseableRecords(); !reflect.DeepEqual(ua, ub) {
		return fmt.Sprintf("unparseable\n%+v\n%+v", ua, ub)
	}
	return ""
}

// TestConnectorOfIsTheMap: connectorOf, which asks the slot of the name
// first, answers what the Store's map does, over more connectors of two
// topics than it has slots, names that share their slots, and names that
// are not there.
func TestConnectorOfIsTheMap(t *testing.T) {
	s := NewStore(StoreOptions{})
	r := rand.New(rand.NewPCG(7, 8))
	name := func() string {
		switch r.IntN(3) {
		case 0:
			return fmt.Sprintf("mm2-%03d.MirrorSourceConnector", r.IntN(3*connSlots))
		case 1:
			return fmt.Sprintf("c%d", r.IntN(40))
		}
		return fmt.Sprintf("jdbc-%d", r.IntN(connSlots))
	}
	for range 2 * connSlots {
		id := model.ConnectorID{Topic: []string{"connect-offsets", "other-offsets"}[r.IntN(2)], Name: name()}
		s.connectors[id] = &connector{id: id}
	}
	for range 100_000 {
		id := model.ConnectorID{Topic: []string{"connect-offsets", "other-offsets"}[r.IntN(2)], Name: name()}
		if got, want := s.connectorOf(id), s.connectors[id]; got != want {
			t.Fatalf("connectorOf(%v) = %p, the map has %p", id, got, want)
		}
	}
}

// TestLatestConnsNumberNames: a Latest gives a name the same number each
// time and another name another one, until it has numbered
// latestConnsMax names; then 0 for names not numbered.
func TestLatestConnsNumberNames(t *testing.T) {
	var l latestConns
	r := rand.New(rand.NewPCG(9, 10))
	byName := map[string]int32{}
	byNumber := map[int32]string{}
	for range 50_000 {
		name := fmt.Sprintf("mm2-%04d.MirrorSourceConnector", r.IntN(latestConnsMax+500))
		n := l.ref(name)
		want, seen := byName[name]
		switch {
		case seen && n != want:
			t.Fatalf("%s: number %d, then %d", name, want, n)
		case !seen && n != 0 && byNumber[n] != "":
			t.Fatalf("%s: number %d, which is %s's", name, n, byNumber[n])
		case !seen && n == 0 && len(byName) < latestConnsMax:
			t.Fatalf("%s: no number after %d names", name, len(byName))
		case n != 0:
			byName[name], byNumber[n] = n, name
		}
	}
	if len(byName) != latestConnsMax {
		t.Fatalf("%d names numbered, want %d", len(byName), latestConnsMax)
	}
}

// TestLatestConnectorsAfterReset: a Latest that feeds two Stores in turn,
// and goes on numbering its names across a Reset of one (a reload): each
// Store finds the connectors it holds now, as a Store fed the same records
// through a Latest of its own does.
func TestLatestConnectorsAfterReset(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	one := func() []Record {
		for {
			if b := aheadSequence(r)[0]; samePartition(b) {
				return b
			}
		}
	}
	for i := range 30 {
		shared := NewLatest(2)
		var stores, refs [2]*Store
		var own [2]*Latest
		for j := range stores {
			stores[j], refs[j], own[j] = NewStore(StoreOptions{History: 2}), NewStore(StoreOptions{History: 2}), NewLatest(2)
		}
		feed := func(rounds int) {
			for n := range rounds {
				b := one()
				stores[n%2].Ingest(shared.Keep(cloneRecords(b)))
				refs[n%2].Ingest(own[n%2].Keep(cloneRecords(b)))
			}
		}
		feed(6)
		stores[0].Reset()
		refs[0], own[0] = NewStore(StoreOptions{History: 2}), NewLatest(2)
		feed(6)
		for j := range stores {
			if why := storesDiffer(stores[j], refs[j]); why != "" {
				t.Fatalf("sequence %d, store %d: %s", i, j, why)
			}
		}
	}
}
