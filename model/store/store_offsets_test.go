package store

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"koff/model"
	"koff/model/java"
)

// Store.OffsetsBody writes what OffsetsBody writes of the rows, byte for
// byte: for random write sequences (key variants, tombstones, nulls,
// garbage, copies in other partitions), in one offsets topic and, for a
// connector with its own, in two.
func TestStoreOffsetsBodyEqualsTheRowsBody(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 3))
	one := []model.ConnectorID{{Topic: "connect-offsets", Name: "c"}}
	two := []model.ConnectorID{{Topic: "own-offsets", Name: "c"}, {Topic: "connect-offsets", Name: "c"}}
	full := 0
	for i := 0; i < 1000; i++ {
		s := storeOf(randomRecords(r))
		// The same connector's own topic: another random sequence.
		var next int64
		for _, rc := range randomRecords(r) {
			rec := Record{Topic: "own-offsets", Partition: rc.tp % 3, Offset: next, Key: []byte(rc.key.raw), Time: t0.Add(rc.at)}
			next++
			if rc.value.raw != nil {
				rec.Value = []byte(*rc.value.raw)
			}
			s.Ingest([]Record{rec})
		}
		for _, ids := range [][]model.ConnectorID{one, two} {
			var rows []model.PartitionRow
			for _, id := range ids {
				rows = append(rows, s.Partitions(id)...)
			}
			if got, want := string(s.OffsetsBody(ids)), string(model.OffsetsBody(rows)); got != want {
				t.Fatalf("sequence %d, %d topics: Store.OffsetsBody\n%s\nOffsetsBody of the rows\n%s", i, len(ids), got, want)
			} else if len(ids) == 2 && strings.Count(got, `"partition"`) > 1 {
				full++
			}
		}
	}
	if full < 100 {
		t.Errorf("only %d sequences had several partitions in the body", full)
	}
	if got := string(NewStore(StoreOptions{}).OffsetsBody(one)); got != `{"offsets":[]}` {
		t.Errorf("empty store: %s", got)
	}
}

// sortByPartition orders as a stable sort by (partition text, partition)
// of the entries in the order first seen does, for texts sharing long
// prefixes and prefixes of each other, equal texts, zero bytes and bytes
// past 0x7f, in small sets and in thousands.
func TestSortByPartitionIsTheTextOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for round := 0; round < 400; round++ {
		var es []*entry
		n := 1 + r.IntN(60)
		if round%20 == 0 {
			n = 3000 + r.IntN(3000)
		}
		// Texts of few letters (many equal, prefixes of each other, a zero
		// byte, bytes past 0x7f) and of long shared runs in the middle.
		letters := []string{"019,\"x", "0\x00\xff\x80a", "aaaaaaaaaaaaaaaaaaab"}[round%3]
		for range n {
			var b strings.Builder
			b.WriteString(`{"cluster":"primary","partition":`)
			for range r.IntN(30) {
				b.WriteByte(letters[r.IntN(len(letters))])
			}
			es = append(es, &entry{partitionStr: b.String(), partition: int32(r.IntN(3)), idx: int32(len(es))})
		}
		if round%7 == 0 {
			r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
		}
		want := slices.Clone(es)
		slices.SortFunc(want, func(a, b *entry) int { return cmp.Compare(a.idx, b.idx) })
		slices.SortStableFunc(want, func(a, b *entry) int {
			return cmp.Or(cmp.Compare(a.partitionStr, b.partitionStr), cmp.Compare(int(a.partition), int(b.partition)))
		})
		sortByPartition(es)
		for i := range es {
			if es[i] != want[i] {
				t.Fatalf("round %d, at %d: %s/%d, want %s/%d", round, i, es[i].partitionStr, int(es[i].partition), want[i].partitionStr, int(want[i].partition))
			}
		}
	}
}

// sortWords, a radix sort, orders keys as a sort by word does, and keeps
// each key with its word: words sharing most of their bytes, all equal,
// few and many.
func TestSortWordsIsASortByWord(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for round := range 300 {
		n := r.IntN(200)
		if round%10 == 0 {
			n = 1000 + r.IntN(5000)
		}
		mask := []uint64{^uint64(0), 0xff, 0xff00ff0000, 0, 0x0303030303030303}[round%5]
		base := r.Uint64()
		ks := make([]textKey, n)
		for i := range ks {
			ks[i] = textKey{word: base ^ r.Uint64()&mask, e: &entry{idx: int32(i)}}
		}
		want := slices.Clone(ks)
		slices.SortStableFunc(want, func(a, b textKey) int { return cmp.Compare(a.word, b.word) })
		byE := map[*entry]uint64{}
		for _, k := range ks {
			byE[k.e] = k.word
		}
		sortWords(ks, make([]textKey, n))
		seen := map[*entry]bool{}
		for i := range ks {
			if seen[ks[i].e] {
				t.Fatalf("round %d: entry %d twice", round, ks[i].e.idx)
			}
			seen[ks[i].e] = true
			if ks[i].word != want[i].word || byE[ks[i].e] != ks[i].word {
				t.Fatalf("round %d (%d keys), at %d: word %#x of entry %d, want %#x", round, n, i, ks[i].word, ks[i].e.idx, want[i].word)
			}
		}
	}
}

// A body made before anything else read the Store (as koff get makes it:
// a connector whose partitions all have one copy in the task's form takes
// its picks from the entries, without working out its partitions) is the
// body of the rows, and the body made after them.
func TestFirstOffsetsBodyEqualsTheRowsBody(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 4))
	id := []model.ConnectorID{{Topic: "connect-offsets", Name: "c"}}
	single, several := 0, 0
	for i := range 1500 {
		recs := randomRecords(r)
		if i%2 == 0 { // only task forms, each in one partition: the short way
			kept := recs[:0]
			for _, rc := range recs {
				if k := rc.key.raw; strings.HasPrefix(k, `["c",{`) && !strings.ContainsAny(k, " \\") && java.PartitionFor([]byte(k), 25) == rc.tp {
					kept = append(kept, rc)
				}
			}
			recs = kept
		}
		s := storeOf(recs)
		first := string(s.OffsetsBody(id))
		c := s.connectors[id[0]]
		if c != nil && c.parts.Load() == nil {
			single++
		} else {
			several++
		}
		if want := string(model.OffsetsBody(s.Partitions(id[0]))); first != want {
			t.Fatalf("sequence %d: first body\n%s\nbody of the rows\n%s", i, first, want)
		}
		if again := string(s.OffsetsBody(id)); again != first {
			t.Fatalf("sequence %d: first body\n%s\nbody after the rows\n%s", i, first, again)
		}
	}
	if single < 100 || several < 100 {
		t.Errorf("%d bodies took the entries, %d the partitions: want 100 of each", single, several)
	}
}

// sharedBytes, 8 bytes at a time, is the plain byte-by-byte count of the
// bytes b shares with a's start: texts of every length up to 40, equal,
// prefixes of each other, differing at each place in a byte's every bit.
func TestSharedBytesIsTheByteCount(t *testing.T) {
	plain := func(a, b string) int {
		m := 0
		for m < len(b) && a[m] == b[m] {
			m++
		}
		return m
	}
	r := rand.New(rand.NewPCG(12, 12))
	for n := 0; n <= 40; n++ {
		a := make([]byte, n)
		for i := range a {
			a[i] = byte(r.IntN(256))
		}
		for lb := 0; lb <= n; lb++ {
			b := append([]byte(nil), a[:lb]...)
			if got, want := sharedBytes(string(a), string(b)), lb; got != want {
				t.Fatalf("equal %q, %q: %d, want %d", a, b, got, want)
			}
			for at := 0; at < lb; at++ {
				for bit := range 8 {
					c := append([]byte(nil), b...)
					c[at] ^= 1 << bit
					if got, want := sharedBytes(string(a), string(c)), plain(string(a), string(c)); got != want || got != at {
						t.Fatalf("%q, %q: %d, want %d", a, c, got, want)
					}
				}
			}
		}
	}
}
