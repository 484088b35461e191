package model

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkStoreIngest measures ingestion of known keys (the steady state:
// every key already parsed, matched by raw bytes) in batches of 500.
func BenchmarkStoreIngest(b *testing.B) {
	s := NewStore(StoreOptions{})
	s.SetTopicPartitions("connect-offsets", 25)
	const keys = 2000
	batch := make([]Record, 500)
	var off int64
	fill := func(i int) {
		for j := range batch {
			n := (i*len(batch) + j) % keys
			k := fmt.Sprintf(`["connector-%d",{"server":"db","table":"public.t%d"}]`, n%20, n)
			off++
			batch[j] = Record{Topic: "connect-offsets", Partition: PartitionFor([]byte(k), 25), Offset: off,
				Key: []byte(k), Value: []byte(`{"lsn":1152921504606846976,"txId":42}`), Time: time.Unix(off, 0)}
		}
	}
	for i := 0; i < keys/len(batch); i++ {
		fill(i)
		s.Ingest(batch)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		fill(i)
		b.StartTimer()
		s.Ingest(batch)
	}
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "records/s")
}
