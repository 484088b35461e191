package store

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"koff/model"
	"koff/model/text"
)

// plainPartitionOrder is the order sortByPartition gives, by comparison:
// partition text, then topic-partition, then the order first seen.
func plainPartitionOrder(es []*entry) {
	slices.SortStableFunc(es, func(a, b *entry) int {
		return cmp.Or(strings.Compare(a.partitionStr(), b.partitionStr()), sameText(a, b))
	})
}

// randomTexts are partition texts that make the radix sort take each of
// its ways: long shared prefixes, texts that are prefixes of others
// (ending within a word and exactly at its end), NUL bytes (which a text
// ending within a word reads as), bytes of 0x80 and more in multibyte
// UTF-8, runs of equal words past smallSort, and the same text in several
// topic-partitions and twice in one.
func randomTexts(r *rand.Rand, n int) []string {
	atoms := []string{"0", "1", "9", "10", `"`, ",", "\x00", "é", "日本", "\U0001F600", "\xff", "a", "ab", "abcdefgh", "abcdefghi"}
	prefixes := []string{"", `{"cluster":"primary","partition":`, `{"k":"`, "abcdefgh", "abcdefghabcdefgh"}
	texts := make([]string, n)
	for i := range texts {
		if i > 0 && r.IntN(6) == 0 {
			// An earlier text, or one of its prefixes, or it grown.
			t := texts[r.IntN(i)]
			switch r.IntN(3) {
			case 0:
				t = t[:r.IntN(len(t)+1)]
			case 1:
				t += atoms[r.IntN(len(atoms))]
			}
			texts[i] = t
			continue
		}
		var b strings.Builder
		b.WriteString(prefixes[r.IntN(len(prefixes))])
		for range r.IntN(12) {
			b.WriteString(atoms[r.IntN(len(atoms))])
		}
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, `,"topic":"orders.region-0.topic-%d"}`, r.IntN(300))
		}
		texts[i] = b.String()
	}
	return texts
}

// TestSortByPartitionIsTheOrderByComparison: the radix sort orders random
// texts (see randomTexts) as comparing whole texts does, equal texts by
// topic-partition and the order first seen, for sizes on both sides of
// smallSort and of a radix pass.
func TestSortByPartitionIsTheOrderByComparison(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 31))
		n := r.IntN(40)
		if seed%3 == 0 {
			n = r.IntN(5000)
		}
		texts := randomTexts(r, n)
		es := make([]*entry, n)
		for i, text := range texts {
			es[i] = &entry{key: text, part: keyPlace{0, uint16(len(text))}, partition: int32(r.IntN(3)), idx: int32(i)} // idx: the place in conn.entries, one an entry
		}
		r.Shuffle(n, func(i, j int) { es[i], es[j] = es[j], es[i] })
		want := slices.Clone(es)
		plainPartitionOrder(want)
		sortByPartition(es)
		for i := range es {
			if es[i] != want[i] {
				t.Fatalf("seed %d (%d texts): at %d %q (partition %d, idx %d), want %q (partition %d, idx %d)", seed, n, i,
					es[i].partitionStr(), es[i].partition, es[i].idx, want[i].partitionStr(), want[i].partition, want[i].idx)
			}
		}
	}
}

// TestOffsetsBodyOfManyPartitionsIsTheRowsBody: the body made from the
// entries (picked once, sorted by radix) is model.OffsetsBody of the rows
// for connectors of hundreds of partitions (past smallSort), with keys in
// the worker's form and others, copies in several partitions of the topic
// (which take the way through partsOf), tombstones, null partitions,
// values to compact, and a connector in two offsets topics; and it knows
// whether the body is printable ASCII.
func TestOffsetsBodyOfManyPartitionsIsTheRowsBody(t *testing.T) {
	printables := map[bool]bool{}
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 5))
		s := NewStore(StoreOptions{})
		texts := randomTexts(r, 60)
		var batch []Record
		for _, topic := range []string{"connect-offsets", "other-offsets"} {
			s.SetTopicPartitions(topic, 5)
			for off := range int64(1500) {
				c := r.IntN(2)
				var key string
				switch r.IntN(10) {
				case 0:
					key = fmt.Sprintf(`[ "c%d", { "table" : "t%d" } ]`, c, r.IntN(400))
				case 1:
					key = fmt.Sprintf(`["c%d",null]`, c)
				case 2:
					if seed%4 != 0 { // otherwise all printable ASCII
						key = fmt.Sprintf(`["c%d",{"s":%q}]`, c, texts[r.IntN(len(texts))])
						break
					}
					fallthrough
				default:
					key = fmt.Sprintf(`["c%d",{"cluster":"primary","partition":%d,"topic":"t-%d"}]`, c, r.IntN(100), r.IntN(40))
				}
				value := fmt.Sprintf(`{"offset":%d}`, r.IntN(1000))
				switch r.IntN(12) {
				case 0:
					value = ""
				case 1:
					value = fmt.Sprintf(`{ "offset" : %d.0 }`, r.IntN(1000))
				case 2:
					if seed%3 == 0 {
						value = fmt.Sprintf(`{"file":"é%d"}`, r.IntN(1000)) // not printable ASCII
					}
				}
				part := r.IntN(5)
				if seed%2 == 0 {
					part = int(off % 5) // every key in one partition of the topic: one copy each
				}
				rec := rec(part, off, key, value, 0)
				rec.Topic = topic
				batch = append(batch, rec)
			}
		}
		s.Ingest(batch)
		var all []model.ConnectorID
		for _, c := range s.ConnectorList() {
			all = append(all, c.ID)
			body, printable := s.AppendOffsetsBodyChecked(nil, []model.ConnectorID{c.ID})
			if got, want := string(body), string(model.OffsetsBody(s.Partitions(c.ID))); got != want {
				t.Fatalf("seed %d: %v: body\n%s\nwant\n%s", seed, c.ID, got, want)
			}
			if printable != text.PrintableASCII(body) {
				t.Fatalf("seed %d: %v: printable %v, but the body is %q", seed, c.ID, printable, body)
			}
			printables[printable] = true
		}
		// One connector's copies in both topics: the first topic's win.
		for _, name := range []string{"c0", "c1"} {
			ids := []model.ConnectorID{{Topic: "connect-offsets", Name: name}, {Topic: "other-offsets", Name: name}}
			rows := append(s.Partitions(ids[0]), s.Partitions(ids[1])...)
			body, printable := s.AppendOffsetsBodyChecked([]byte("before"), ids)
			if got, want := string(body), "before"+string(model.OffsetsBody(rows)); got != want {
				t.Fatalf("seed %d: %s in two topics: body\n%s\nwant\n%s", seed, name, got, want)
			}
			if printable && !text.PrintableASCII(body) {
				t.Fatalf("seed %d: %s in two topics: printable, but the body is %q", seed, name, body)
			}
		}
		if len(all) != 4 {
			t.Fatalf("seed %d: connectors %v, want c0 and c1 in two topics", seed, all)
		}
	}
	if !printables[true] || !printables[false] {
		t.Errorf("bodies printable: %v, want some of each", printables)
	}
}

// TestPartitionsInIsPartitions: the rows of connector after connector
// made in the memory of the ones before (bigger, smaller, none) are the
// rows Partitions makes, their LiveCopy too.
func TestPartitionsInIsPartitions(t *testing.T) {
	s := NewStore(StoreOptions{})
	s.SetTopicPartitions("connect-offsets", 5)
	r := rand.New(rand.NewPCG(4, 4))
	var batch []Record
	for off := range int64(3000) {
		c := []int{0, 0, 0, 1, 2, 2}[r.IntN(6)]
		key := fmt.Sprintf(`["c%d",{"cluster":"primary","partition":%d,"topic":"t-%d"}]`, c, r.IntN(30), r.IntN(30))
		value := fmt.Sprintf(`{"offset":%d}`, r.IntN(1000))
		if r.IntN(9) == 0 {
			value = ""
		}
		batch = append(batch, rec(r.IntN(5), off, key, value, 0))
	}
	s.Ingest(batch)
	var rows []model.PartitionRow
	var lives []model.PartitionID
	for _, name := range []string{"c0", "c1", "c2", "none", "c0", "c2", "c1"} {
		id := model.ConnectorID{Topic: "connect-offsets", Name: name}
		rows, lives = s.PartitionsIn(rows, lives, id)
		want := s.Partitions(id)
		if len(rows) != len(want) {
			t.Fatalf("%s: %d rows, want %d", name, len(rows), len(want))
		}
		for i := range want {
			g, w := rows[i], want[i]
			if (g.LiveCopy == nil) != (w.LiveCopy == nil) || g.LiveCopy != nil && *g.LiveCopy != *w.LiveCopy {
				t.Fatalf("%s row %d: live copy %v, want %v", name, i, g.LiveCopy, w.LiveCopy)
			}
			g.LiveCopy, w.LiveCopy = nil, nil
			if fmt.Sprint(g) != fmt.Sprint(w) {
				t.Fatalf("%s row %d:\n got %+v\nwant %+v", name, i, g, w)
			}
		}
	}
}
