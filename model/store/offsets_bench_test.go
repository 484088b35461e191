package store

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

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

// BenchmarkBodiesOfAMillionPartitions makes the bodies of the 70
// connectors of a million MirrorMaker partitions whose records came
// interleaved (as bench/workload writes them), one after another, as koff
// get -o json does: with the copies of the picks' texts and offsets that
// the sort and the writing read (bodyCopy), and without.
//
//	go test ./model/store -run XXX -bench BodiesOfAMillion -benchtime 5x
func BenchmarkBodiesOfAMillionPartitions(b *testing.B) {
	const conns, n = 70, 1_000_000
	for _, copies := range []bool{false, true} {
		b.Run(map[bool]string{false: "in-place", true: "copies"}[copies], func(b *testing.B) {
			defer func() { bodyCopies = true }()
			bodyCopies = copies
			s := NewStore(StoreOptions{OneShot: true})
			s.SetTopicPartitions("connect-offsets", 25)
			batch := make([]Record, 0, 1000)
			for i := range n {
				k := (i * 7919) % conns // the connectors' records interleave
				key := fmt.Sprintf(`["mm2-%02d.MirrorSourceConnector",{"cluster":"primary","partition":%d,"topic":"orders.region-%d.topic-%d"}]`, k, i%100, k, i/100)
				r := rec(i%25, int64(i), key, fmt.Sprintf(`{"offset":%d}`, i), 0)
				r.Time = time.UnixMilli(r.Time.UnixMilli()) // as the Tailer's: kept in the entry
				batch = append(batch, r)
				if len(batch) == cap(batch) {
					s.Ingest(batch)
					batch = batch[:0]
				}
			}
			s.Ingest(batch)
			ids := make([]model.ConnectorID, conns)
			for k := range ids {
				ids[k] = model.ConnectorID{Topic: "connect-offsets", Name: fmt.Sprintf("mm2-%02d.MirrorSourceConnector", k)}
			}
			// As koff get reads: no collection (cli/gc.go).
			runtime.GC()
			defer debug.SetGCPercent(debug.SetGCPercent(-1))
			var buf []byte
			b.ResetTimer()
			for range b.N {
				for _, id := range ids {
					buf = s.AppendOffsetsBody(buf[:0], []model.ConnectorID{id})
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/partition")
		})
	}
}
