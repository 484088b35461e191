package model

import (
	"fmt"
	"testing"
)

// Table sizes as java.util.HashMap grows (resize past 0.75 of the table)
// and as new HashSet<>(collection) sizes it on Java 17.
func TestJavaHashTableSizes(t *testing.T) {
	for k, want := range map[int]uint32{1: 16, 12: 16, 13: 32, 24: 32, 25: 64, 48: 64, 49: 128} {
		if got := hashMapCapacity(k); got != want {
			t.Errorf("HashMap after %d puts: %d buckets, want %d", k, got, want)
		}
	}
	for n, want := range map[int]uint32{1: 16, 11: 16, 12: 32, 25: 64, 50: 128} {
		if got := hashSetCapacity(n); got != want {
			t.Errorf("new HashSet of %d: %d buckets, want %d", n, got, want)
		}
	}
}

// The poll's map (Fetch.records) holds only the partitions that handed
// over records, so the copy a restarted task keeps of key bytes in two
// partitions depends on how many partitions of the topic hold records —
// another connector's records anywhere in the topic can turn it around.
// koff follows: the same two copies, read first with two partitions of
// records, then with every partition holding some.
func TestCopyReadLastFollowsThePartitionsWithRecords(t *testing.T) {
	const key = `["c",{"f":"a"}]`
	home := PartitionFor([]byte(key), 25)
	other := -1
	for p := range 25 {
		if p != home && ReadAfter("connect-offsets", p, home, 25, 2) != ReadAfter("connect-offsets", p, home, 25, 25) {
			other = p
			break
		}
	}
	if other < 0 {
		t.Fatalf("no partition whose order against %d changes with the records in the topic", home)
	}
	s := ingestRaw(t, []raw{{home, key, `{"pos":1}`, 0}, {other, key, `{"pos":2}`, 0}})
	want := func(with int) string {
		if ReadAfter("connect-offsets", other, home, 25, with) {
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
