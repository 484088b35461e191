package model

import (
	"fmt"
	"runtime"
	"strconv"
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

// catchUp is an offsets topic as the tailer hands it to the Store while
// catching up: 25 partitions read concurrently, so chunks of 1,024 records
// of each partition arrive interleaved, each partition at its own point in
// time. keys source partitions of 70 connectors, each flushing all its
// partitions every 60 s, Debezium-shaped values.
func catchUp(records, keys int) [][]Record {
	const partitions, conns = 25, 70
	key := make([][]byte, keys)
	for i := range key {
		key[i] = fmt.Appendf(nil, `["debezium-%02d",{"server":"inventory-%02d","database":"db_%04d"}]`, i%conns, i%conns, i/conns)
	}
	per := make([][]Record, partitions)
	base := time.UnixMilli(1_796_000_000_000)
	for n := 0; n < records; n++ {
		round, i := n/keys, n%keys
		t := base.Add(time.Duration(round)*time.Minute + time.Duration(i%conns)*time.Minute/conns)
		p := PartitionFor(key[i], partitions)
		lsn := strconv.FormatUint(1<<60+uint64(n), 10)
		v := `{"transaction_id":null,"lsn_proc":` + lsn + `,"messageType":"UPDATE","lsn_commit":` + lsn + `,"lsn":` + lsn +
			`,"txId":` + strconv.Itoa(7_000_000+round) + `,"ts_usec":` + strconv.FormatInt(t.UnixMicro(), 10) + `}`
		per[p] = append(per[p], Record{Topic: "connect-offsets", Partition: p, Offset: int64(len(per[p])), Key: key[i], Value: []byte(v), Time: t})
	}
	var chunks [][]Record
	for more := true; more; {
		more = false
		for p := range per {
			if len(per[p]) > 0 {
				c := per[p][:min(1024, len(per[p]))]
				per[p] = per[p][len(c):]
				chunks = append(chunks, c)
				more = true
			}
		}
	}
	return chunks
}

// BenchmarkStoreCatchUp measures the Store applying a whole offsets topic
// as the tailer delivers it (1,000,000 records of 7,000 keys by default;
// -benchtime 1x runs one pass): records/s, ns and allocations per record.
//
//	go test ./model -run XXX -bench StoreCatchUp -benchmem
func BenchmarkStoreCatchUp(b *testing.B) {
	for _, sz := range []struct{ records, keys int }{{1_000_000, 7_000}, {1_000_000, 1_000_000}} {
		b.Run(fmt.Sprintf("%d-records-%d-keys", sz.records, sz.keys), func(b *testing.B) {
			chunks := catchUp(sz.records, sz.keys)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				s := NewStore(StoreOptions{})
				s.SetTopicPartitions("connect-offsets", 25)
				for _, c := range chunks {
					s.Ingest(c)
				}
				if got := s.Stats().Records; got != int64(sz.records) {
					b.Fatalf("ingested %d records, want %d", got, sz.records)
				}
			}
			n := float64(b.N) * float64(sz.records)
			b.ReportMetric(n/b.Elapsed().Seconds(), "records/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/record")
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.Mallocs)/n, "allocs/record") // approximate: includes the set-up
		})
	}
}
