package store

import (
	"fmt"
	"testing"
)

// BenchmarkSortByPartition sorts the partitions of one MirrorMaker
// connector of a million partitions over 70 connectors (14,286 partition
// texts sharing most of their bytes, as bench/workload writes them), in
// the order they arrived: what each body of `koff get` sorts.
//
//	go test ./model -run XXX -bench SortByPartition
func BenchmarkSortByPartition(b *testing.B) {
	const n = 1_000_000 / 70
	var keep arena
	es := make([]*entry, n)
	for j := range es {
		text := fmt.Appendf(nil, `{"cluster":"primary","partition":%d,"topic":"orders.region-3.topic-%d"}`, j%100, j/100)
		t := keep.keep(text)
		es[j] = &entry{key: t, part: keyPlace{0, uint16(len(t))}, idx: int32(j)}
	}
	work := make([]*entry, n)
	b.ResetTimer()
	for range b.N {
		copy(work, es)
		sortByPartition(work)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/partition")
}
