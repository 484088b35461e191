package store

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"testing"
)

// TestHashIndexIsAMapOfTags checks hashIndex against a Go map of the
// hashes' top 30 bits and the slots' kinds, through its growth: every
// hash put is found with its number as each kind it was put as (a slot of
// both kinds as either), every other is not, hashes of the same top bits
// are one, a slot of one kind is passed over by a lookup of the other,
// and tags crowded into one stretch of slots (and wrapping past its end)
// probe on.
func TestHashIndexIsAMapOfTags(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []slotKind{homeSlot, copySlot, homeSlot | copySlot}
	for _, gen := range []struct {
		name string
		hash func(i int) uint64
	}{
		{"random", func(int) uint64 { return rng.Uint64() }},
		{"crowded", func(i int) uint64 { return uint64(0x3fff_fff0+i%32)<<34 | rng.Uint64()>>30 }},
		{"few bits", func(int) uint64 { return uint64(rng.IntN(3000))<<34 | rng.Uint64()>>30 }},
	} {
		var ix hashIndex
		type tagKind struct {
			tag  uint64
			kind slotKind
		}
		want := map[tagKind]uint32{}
		puts := 0
		for i := range 20_000 {
			h := gen.hash(i)
			kind := kinds[rng.IntN(len(kinds))]
			for _, k := range kinds[:2] {
				if got, ref := ix.get(h, k), want[tagKind{h >> 34, k}]; got != ref {
					t.Fatalf("%s: get(%#x, %d) before put %d = %d, want %d", gen.name, h, k, i, got, ref)
				}
			}
			if want[tagKind{h >> 34, kind & homeSlot}] != 0 || want[tagKind{h >> 34, kind & copySlot}] != 0 {
				continue // held already
			}
			ref := uint32(i + 1)
			if i%4999 == 0 { // grown ahead, as Store.reserve does
				ix.reserve(puts + rng.IntN(8000))
			}
			ix.Put(h, kind, ref)
			puts++
			for _, k := range kinds[:2] {
				if kind&k != 0 {
					want[tagKind{h >> 34, k}] = ref
				}
			}
			if i%997 == 0 {
				for tk, ref := range want {
					if got := ix.get(tk.tag<<34|rng.Uint64()>>30, tk.kind); got != ref {
						t.Fatalf("%s: after %d puts get(tag %#x, %d) = %d, want %d", gen.name, i, tk.tag, tk.kind, got, ref)
					}
				}
			}
		}
		if ix.used != puts || 2*ix.used > len(ix.slots) {
			t.Errorf("%s: %d used of %d slots, want %d at most half", gen.name, ix.used, len(ix.slots), puts)
		}
		for range 10_000 {
			h := rng.Uint64()
			for _, k := range kinds[:2] {
				if got := ix.get(h, k); got != want[tagKind{h >> 34, k}] {
					t.Fatalf("%s: get(%#x, %d) = %d, want %d", gen.name, h, k, got, want[tagKind{h >> 34, k}])
				}
			}
		}
	}
	var empty hashIndex
	if got := empty.get(42, homeSlot); got != 0 {
		t.Errorf("empty index: get = %d, want 0", got)
	}
}

// TestOneSlotFindsAKeyAndItsPartition: a topic's one index finds both its
// keys and the first copy of each partition. Keys in the form workers
// write take one slot each; copies of a partition (the same bytes in
// other partitions of the topic, other field orders, spaces, number
// forms, escapes in the connector's name) are grouped as the parsed keys
// say, and the same partition map under another connector is not a copy,
// with random keys and with every hash colliding.
func TestOneSlotFindsAKeyAndItsPartition(t *testing.T) {
	defer func() { hashBytes, hashString = maphash.Bytes, maphash.String }()
	forms := []func(c string, i int) string{
		func(c string, i int) string { return fmt.Sprintf(`["%s",{"a":"%d","b":%d}]`, c, i, i%5) },
		func(c string, i int) string { return fmt.Sprintf(`["%s",{"b":%d,"a":"%d"}]`, c, i%5, i) },
		func(c string, i int) string { return fmt.Sprintf(`[ "%s", {"a" : "%d", "b":%d} ]`, c, i, i%5) },
		func(c string, i int) string { return fmt.Sprintf(`["%s",{"a":"%d","b":%d.0}]`, c, i, i%5) },
		func(c string, i int) string { return fmt.Sprintf(`["%s",null]`, c) },
	}
	names := []string{"c1", "c2", `c\"3`, "c\\u00e94"}
	for _, collide := range []bool{false, true} {
		if collide {
			hashBytes = func(_ maphash.Seed, b []byte) uint64 { return uint64(len(b)%3) << 40 }
			hashString = func(_ maphash.Seed, s string) uint64 { return uint64(len(s)%3) << 40 }
		}
		r := rand.New(rand.NewPCG(8, 9))
		for seed := range 20 {
			s := NewStore(StoreOptions{})
			s.SetTopicPartitions("connect-offsets", 3)
			var batch []Record
			for off := range int64(300) {
				f, n, name := r.IntN(len(forms)), r.IntN(60), names[r.IntN(len(names))]
				if seed%2 == 0 { // the form workers write only
					f, name = 0, names[r.IntN(2)]
				}
				key := forms[f](name, n)
				batch = append(batch, rec(r.IntN(3), off, key, `{"offset":1}`, 0))
			}
			s.Ingest(batch)
			want := map[testPart]map[*entry]bool{}
			keys := map[string]bool{}
			for _, c := range s.connectors {
				for _, e := range c.entries {
					f, err := parsedKeyFacts(e.key, &keyShapes{})
					if err != nil {
						t.Fatal(err)
					}
					p := testPart{c.id.Name, f.identity}
					if want[p] == nil {
						want[p] = map[*entry]bool{}
					}
					want[p][e] = true
					keys[e.key] = true
				}
			}
			for _, c := range s.connectors {
				cp := s.partsOf(c)
				if len(cp.parts) != countParts(want, c.id.Name) {
					t.Fatalf("collide %v, seed %d: %s has %d partitions, want %d", collide, seed, c.id.Name, len(cp.parts), countParts(want, c.id.Name))
				}
				for _, e := range c.entries {
					f, _ := parsedKeyFacts(e.key, &keyShapes{})
					group := want[testPart{c.id.Name, f.identity}]
					got := cp.of[e.idx].entries
					if len(got) != len(group) {
						t.Fatalf("collide %v, seed %d: %s has %d copies, want %d", collide, seed, e.key, len(got), len(group))
					}
					for _, x := range got {
						if !group[x] {
							t.Fatalf("collide %v, seed %d: %s has the copy %s of another partition", collide, seed, e.key, x.key)
						}
					}
				}
			}
			if used := s.byKey["connect-offsets"].used; seed%2 == 0 && !collide && used != len(keys) {
				t.Errorf("seed %d: %d slots for %d keys in the form workers write, want one each", seed, used, len(keys))
			}
		}
	}
}

type testPart struct{ conn, identity string }

func countParts(want map[testPart]map[*entry]bool, conn string) int {
	n := 0
	for p := range want {
		if p.conn == conn {
			n++
		}
	}
	return n
}

// TestCopyHashIsTheHashOfTheWorkersForm: a partition's copy hash is that
// of the bytes of its key in the form workers write, whatever its own
// bytes, so that a key of that form finds its copies under its own hash.
func TestCopyHashIsTheHashOfTheWorkersForm(t *testing.T) {
	s := NewStore(StoreOptions{})
	s.SetTopicPartitions("connect-offsets", 1)
	keys := []string{`["c",{"a":"1","b":2}]`, `["c",{"b":2,"a":"1"}]`, `[ "c", {"a":"1", "b":2} ]`, `["c",null]`, `["c",{"k":[1,2]}]`, `["c\u00e9",{}]`}
	for i, k := range keys {
		s.Ingest([]Record{rec(0, int64(i), k, `{"o":1}`, 0)})
	}
	for _, c := range s.connectors {
		for _, e := range c.entries {
			want := maphash.String(keySeed, `["`+c.id.Name+`",`+e.identity()+`]`)
			if got := s.copyHash(e, maphash.String(keySeed, e.key)); got != want {
				t.Errorf("%s: copy hash %#x, want %#x", e.key, got, want)
			}
		}
	}
}
