package store

import (
	"fmt"
	"testing"

	"koff/model"
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

// BenchmarkOffsetsBody makes the bodies of 7 MirrorMaker connectors of
// 14,286 partitions each (a tenth of the million-partition load, keys as
// bench/workload writes them, in the order they arrived), one after
// another in one buffer, as koff get -o json does.
//
//	go test ./model/store -run XXX -bench OffsetsBody
func BenchmarkOffsetsBody(b *testing.B) {
	const conns, each = 7, 1_000_000 / 70
	s := NewStore(StoreOptions{OneShot: true})
	s.SetTopicPartitions("connect-offsets", 25)
	var batch []Record
	for i := range conns * each {
		c, j := i%conns, i/conns
		key := fmt.Sprintf(`["mm2-%02d.MirrorSourceConnector",{"cluster":"primary","partition":%d,"topic":"orders.region-%d.topic-%d"}]`, c, j%100, c, j/100)
		batch = append(batch, rec(i%25, int64(i), key, fmt.Sprintf(`{"offset":%d}`, i), 0))
	}
	s.Ingest(batch)
	batch = nil
	var buf []byte
	b.ResetTimer()
	for range b.N {
		for c := range conns {
			buf = s.AppendOffsetsBody(buf[:0], []model.ConnectorID{{Topic: "connect-offsets", Name: fmt.Sprintf("mm2-%02d.MirrorSourceConnector", c)}})
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*conns*each), "ns/partition")
}
