package store

import (
	"fmt"
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
