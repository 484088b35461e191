package store

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"koff/model"
	"koff/model/java"
)

// The poll's map (Fetch.records) holds only the partitions that handed
// over records, so the copy a restarted task keeps of key bytes in two
// partitions depends on how many partitions of the topic hold records —
// another connector's records anywhere in the topic can turn it around.
// koff follows: the same two copies, read first with two partitions of
// records, then with every partition holding some.
func TestCopyReadLastFollowsThePartitionsWithRecords(t *testing.T) {
	const key = `["c",{"f":"a"}]`
	home := java.PartitionFor([]byte(key), 25)
	other := -1
	for p := range 25 {
		if p != home && model.ReadAfter("connect-offsets", p, home, 25, 2) != model.ReadAfter("connect-offsets", p, home, 25, 25) {
			other = p
			break
		}
	}
	if other < 0 {
		t.Fatalf("no partition whose order against %d changes with the records in the topic", home)
	}
	s := ingestRaw(t, []raw{{home, key, `{"pos":1}`, 0}, {other, key, `{"pos":2}`, 0}})
	want := func(with int) string {
		if model.ReadAfter("connect-offsets", other, home, 25, with) {
			return `{"pos":2}`
		}
		return `{"pos":1}`
	}
	if reads, _, _, rows := taskReads(t, s, "c", `{"f":"a"}`); reads != want(2) {
		t.Fatalf("records in 2 partitions: the task reads %s, want %s (%+v)", reads, want(2), rows)
	}
	// Another connector writes to every other partition.
	next := int64(0)
	for p := range 25 {
		if p == home || p == other {
			continue
		}
		s.Ingest([]Record{{Topic: "connect-offsets", Partition: p, Offset: next, Key: fmt.Appendf(nil, `["d",{"n":%d}]`, p), Value: []byte(`{"x":1}`), Time: t0}})
	}
	if reads, _, _, rows := taskReads(t, s, "c", `{"f":"a"}`); reads != want(25) {
		t.Fatalf("records in 25 partitions: the task reads %s, want %s (%+v)", reads, want(25), rows)
	}
}

// Of copies of one key's bytes spread over a topic of several polls, koff
// shows the one a fresh read hands over last: the Store's ordinals and
// counts give the FreshRead that applying every record in its order does.
func TestStoreKeepsTheCopyAFreshReadHandsOverLast(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const key = `["c",{"f":"a"}]`
	for round := range 40 {
		type rec struct {
			p     int
			o     int64
			key   string
			value string
		}
		total := 100 + rng.IntN(1500)
		parts := rng.Perm(25)[:2+rng.IntN(23)]
		var byPart = map[int][]rec{}
		for i := range total {
			p := parts[rng.IntN(len(parts))]
			k := fmt.Sprintf(`["d",{"n":%d}]`, i%97)
			if rng.IntN(40) == 0 || i < 2 {
				k = key
			}
			byPart[p] = append(byPart[p], rec{p, int64(len(byPart[p])), k, fmt.Sprintf(`{"pos":%d}`, i)})
		}
		s := NewStore(StoreOptions{})
		s.SetTopicPartitions("connect-offsets", 25)
		counts := map[int]int64{}
		var all []rec
		for _, p := range parts {
			for _, r := range byPart[p] {
				s.Ingest([]Record{{Topic: "connect-offsets", Partition: p, Offset: r.o, Key: []byte(r.key), Value: []byte(r.value), Time: t0}})
			}
			counts[p] = int64(len(byPart[p]))
			all = append(all, byPart[p]...)
		}
		fr := model.NewFreshRead("connect-offsets", 25, counts, nil)
		sort.Slice(all, func(i, j int) bool { return fr.ReadAfter(all[j].p, all[j].o, all[i].p, all[i].o) })
		want := ""
		for _, r := range all {
			if r.key == key {
				want = r.value
			}
		}
		if reads, _, _, rows := taskReads(t, s, "c", `{"f":"a"}`); reads != want {
			t.Fatalf("round %d, %d records in %d partitions (one poll: %v): the task reads %s, a fresh read keeps %s (%+v)", round, total, len(parts), fr.OnePoll(), reads, want, rows)
		}
	}
}
