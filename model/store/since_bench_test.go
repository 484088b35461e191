package store

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"koff/model"
	"koff/model/java"
)

// BenchmarkPartitionsSince100k reads a MirrorMaker connector of 100,000
// source partitions after a batch of new offsets of 1% or 50% of them (not
// timed): in full (Partitions), and only what changed (PartitionsSince);
// and Connectors and Stats after such a batch.
//
//	go test ./model -run XXX -bench PartitionsSince100k -benchtime 10x
func BenchmarkPartitionsSince100k(b *testing.B) {
	n := 100_000
	if testing.Short() {
		n = 5_000
	}
	s := NewStore(StoreOptions{})
	s.SetTopicPartitions("connect-offsets", 25)
	keys := make([][]byte, n)
	parts := make([]int, n)
	next := make([]int64, 25)
	var batch []Record
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf(`["mm2",{"cluster":"primary","partition":%d,"topic":"orders.region-%d"}]`, i%1000, i/1000))
		parts[i] = java.PartitionFor(keys[i], 25)
		batch = append(batch, Record{Topic: "connect-offsets", Partition: parts[i], Offset: next[parts[i]], Key: keys[i], Value: []byte(`{"offset":1}`), Time: t0})
		next[parts[i]]++
	}
	s.Ingest(batch)
	id := model.ConnectorID{Topic: "connect-offsets", Name: "mm2"}
	k := 0
	update := func(changed int) {
		batch = batch[:0]
		for range changed {
			i := k % n
			batch = append(batch, Record{Topic: "connect-offsets", Partition: parts[i], Offset: next[parts[i]], Key: keys[i],
				Value: []byte(`{"offset":` + strconv.Itoa(k) + `}`), Time: t0.Add(time.Duration(k) * time.Millisecond)})
			next[parts[i]]++
			k++
		}
		s.Ingest(batch)
	}
	// afterBatches times read once per iteration, each after a batch of
	// changed records (not timed).
	afterBatches := func(b *testing.B, changed int, read func()) {
		for range b.N {
			b.StopTimer()
			update(changed)
			b.StartTimer()
			read()
		}
	}
	// What every reload of a big Source reads for the header and the
	// connectors screen, after a batch.
	for _, changed := range []int{n / 100, n / 2} {
		b.Run(fmt.Sprintf("Connectors/%d-changed", changed), func(b *testing.B) {
			afterBatches(b, changed, func() {
				_ = s.Connectors()
				_ = s.Stats()
			})
		})
	}
	for _, changed := range []int{n / 100, n / 2} {
		b.Run(fmt.Sprintf("Partitions/%d-changed", changed), func(b *testing.B) {
			afterBatches(b, changed, func() { _ = s.Partitions(id) })
		})
		b.Run(fmt.Sprintf("Since/%d-changed", changed), func(b *testing.B) {
			stamp := s.PartitionsSince(id, 0).Stamp
			afterBatches(b, changed, func() { stamp = s.PartitionsSince(id, stamp).Stamp })
		})
	}
}

// BenchmarkReadsWhileCatchingUp is a cold read of 200,000 new partitions
// of 70 MirrorMaker connectors (1,000,000 with KOFF_BENCH_KEYS=1000000),
// in batches of 10,000, with the header's and the connectors screen's
// reads (Connectors, Stats) after every fifth batch, as the dashboard
// reads while it catches up: "extended" works out each connector's
// partitions on from the last read (connParts.extend), "built" afresh
// (buildParts, as before). Only the reads are timed; per op: one whole
// catch-up's reads.
//
//	go test ./model/store -run XXX -bench ReadsWhileCatchingUp -benchtime 3x
func BenchmarkReadsWhileCatchingUp(b *testing.B) {
	n := 200_000
	if v, err := strconv.Atoi(os.Getenv("KOFF_BENCH_KEYS")); err == nil && v > 0 {
		n = v
	}
	if testing.Short() {
		n = 20_000
	}
	keys := make([][]byte, n)
	parts := make([]int, n)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf(`["mm2-%02d.MirrorSourceConnector",{"cluster":"primary","partition":%d,"topic":"orders.region-%d"}]`, i%70, i%1000, i/1000))
		parts[i] = java.PartitionFor(keys[i], 25)
	}
	for _, mode := range []string{"extended", "built"} {
		b.Run(mode, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				s := NewStore(StoreOptions{})
				s.SetTopicPartitions("connect-offsets", 25)
				next := make([]int64, 25)
				for from := 0; from < n; from += 10_000 {
					var batch []Record
					for i := from; i < min(from+10_000, n); i++ {
						batch = append(batch, Record{Topic: "connect-offsets", Partition: parts[i], Offset: next[parts[i]], Key: keys[i],
							Value: []byte(`{"offset":1}`), Time: t0.Add(time.Duration(i) * time.Millisecond)})
						next[parts[i]]++
					}
					s.Ingest(batch)
					if from/10_000%5 != 4 && from+10_000 < n {
						continue
					}
					if mode == "built" {
						for _, c := range s.connectors {
							c.parts.Store(nil) // no parts to work on from
						}
					}
					b.StartTimer()
					_, _ = s.Connectors(), s.Stats()
					b.StopTimer()
				}
			}
		})
	}
}
