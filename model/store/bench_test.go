package store

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"koff/model"
	"koff/model/java"
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
			batch[j] = Record{Topic: "connect-offsets", Partition: java.PartitionFor([]byte(k), 25), Offset: off,
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
// catching up: 25 partitions read concurrently, so chunks of up to 4,096 records (one fetch)
// of each partition arrive interleaved, each partition at its own point in
// time. keys source partitions of 70 connectors, each flushing all its
// partitions every 60 s, Debezium-shaped values. It returns the chunks'
// bounds; chunk makes one as the tailer's decoder does: the keys fresh,
// one after another in one block as in a fetch response, and each value
// fresh.
type catchUp struct {
	keys   [][]byte
	per    [][]int // per partition: the record numbers it holds, in order
	chunks []struct{ p, from, to int }
	buf    []Record
}

func newCatchUp(records, keys int) *catchUp {
	const partitions, conns = 25, 70
	c := &catchUp{keys: make([][]byte, keys), per: make([][]int, partitions)}
	for i := range c.keys {
		c.keys[i] = fmt.Appendf(nil, `["debezium-%02d",{"server":"inventory-%02d","database":"db_%04d"}]`, i%conns, i%conns, i/conns)
	}
	for n := 0; n < records; n++ {
		p := java.PartitionFor(c.keys[n%keys], partitions)
		c.per[p] = append(c.per[p], n)
	}
	pos := make([]int, partitions)
	for more := true; more; {
		more = false
		for p := range c.per {
			if pos[p] < len(c.per[p]) {
				to := min(pos[p]+4096, len(c.per[p]))
				c.chunks = append(c.chunks, struct{ p, from, to int }{p, pos[p], to})
				pos[p], more = to, true
			}
		}
	}
	return c
}

func (c *catchUp) chunk(i int) []Record {
	const conns = 70
	ch := c.chunks[i]
	c.buf = c.buf[:0]
	block := make([]byte, 0, (ch.to-ch.from)*len(c.keys[len(c.keys)-1]))
	base := time.UnixMilli(1_796_000_000_000)
	for off := ch.from; off < ch.to; off++ {
		n := c.per[ch.p][off]
		round, k := n/len(c.keys), n%len(c.keys)
		// Whole milliseconds, as Kafka stamps records and the Tailer makes
		// their times.
		t := base.Add(time.Duration(round)*time.Minute + time.Duration(k%conns)*time.Minute/conns).Truncate(time.Millisecond)
		lsn := strconv.FormatUint(1<<60+uint64(n), 10)
		v := `{"transaction_id":null,"lsn_proc":` + lsn + `,"messageType":"UPDATE","lsn_commit":` + lsn + `,"lsn":` + lsn +
			`,"txId":` + strconv.Itoa(7_000_000+round) + `,"ts_usec":` + strconv.FormatInt(t.UnixMicro(), 10) + `}`
		at := len(block)
		block = append(block, c.keys[k]...)
		c.buf = append(c.buf, Record{Topic: "connect-offsets", Partition: ch.p, Offset: int64(off), Key: block[at:len(block):len(block)], Value: []byte(v), Time: t})
	}
	return c.buf
}

// BenchmarkStoreCatchUp measures the Store applying a whole offsets topic
// as the tailer delivers it (1,000,000 records of 7,000 keys, and of
// 1,000,000 keys; -benchtime 1x runs one pass): records/s, ns and
// allocations per record, and the heap the Store holds after GC per
// source partition. Making the records is not timed. In the -prepared
// runs the records come Prepared, as the Tailer hands them over (key hash
// and value form worked out on its decoding goroutines); in the others
// the Store's one core does all of it.
//
//	go test ./model -run XXX -bench StoreCatchUp -benchtime 1x
func BenchmarkStoreCatchUp(b *testing.B) {
	sizes := []struct{ records, keys int }{{1_000_000, 7_000}, {1_000_000, 1_000_000}}
	if testing.Short() { // CI: that it runs, not the figure
		sizes = []struct{ records, keys int }{{50_000, 7_000}, {50_000, 50_000}}
	}
	for _, sz := range sizes {
		for _, prepared := range []bool{false, true} {
			name := fmt.Sprintf("%d-records-%d-keys", sz.records, sz.keys)
			if prepared {
				name += "-prepared"
			}
			b.Run(name, func(b *testing.B) { benchCatchUp(b, sz.records, sz.keys, prepared) })
		}
	}
}

func benchCatchUp(b *testing.B, records, keys int, prepared bool) {
	sz := struct{ records, keys int }{records, keys}
	c := newCatchUp(sz.records, sz.keys)
	var mallocs uint64
	var heap float64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s := NewStore(StoreOptions{})
		s.SetTopicPartitions("connect-offsets", 25)
		for p, recs := range c.per { // as the Tailer tells it before reading
			s.ExpectRecords(model.TopicPartition{Topic: "connect-offsets", Partition: p}, int64(len(recs)))
		}
		for i := range c.chunks {
			b.StopTimer()
			ch := c.chunk(i)
			if prepared {
				for j := range ch {
					ch[j].Prepare()
				}
			}
			runtime.ReadMemStats(&after)
			mallocs -= after.Mallocs
			b.StartTimer()
			s.Ingest(ch)
			b.StopTimer()
			runtime.ReadMemStats(&after)
			mallocs += after.Mallocs
		}
		if got := s.Stats().Records; got != int64(sz.records) {
			b.Fatalf("ingested %d records, want %d", got, sz.records)
		}
		c.buf = nil
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = float64(after.HeapAlloc - before.HeapAlloc)
		runtime.KeepAlive(s)
	}
	n := float64(b.N) * float64(sz.records)
	b.ReportMetric(n/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/record")
	b.ReportMetric(float64(mallocs)/n, "allocs/record")
	b.ReportMetric(heap/float64(sz.keys), "heap-B/partition")
}

// BenchmarkStoreMemory shows that the Store's memory follows the source
// partitions, not the records read: 7,000 keys of 70 connectors read
// through 1M, 3M and 10M records (-short: 100k, 300k, 1M), with the heap
// after GC at each point (heap-MB-at-…), and per partition at the end.
// Once every history ring is full (16 updates of each key) the heap stays
// where it is.
//
//	go test ./model -run XXX -bench StoreMemory -benchtime 1x
func BenchmarkStoreMemory(b *testing.B) {
	const keys = 7_000
	points := []int{1_000_000, 3_000_000, 10_000_000}
	names := []string{"1M", "3M", "10M"}
	if testing.Short() {
		points, names = []int{100_000, 300_000, 1_000_000}, []string{"100k", "300k", "1M"}
	}
	c := newCatchUp(points[len(points)-1], keys)
	for range b.N {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s := NewStore(StoreOptions{})
		s.SetTopicPartitions("connect-offsets", 25)
		// Chunks in the order the tailer would deliver the whole topic;
		// a point is reached once that many records are in.
		next, read := 0, 0
		for i := range c.chunks {
			ch := c.chunk(i)
			s.Ingest(ch)
			read += len(ch)
			for next < len(points) && read >= points[next] {
				c.buf = nil
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MB-at-"+names[next])
				if next == len(points)-1 {
					b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/keys, "heap-B/partition")
				}
				next++
			}
		}
		runtime.KeepAlive(s)
	}
}

// BenchmarkOneShotCatchUp measures what `koff get` does with a fetched
// topic, without the broker and the socket: 25 partition readers, each
// taking its records out of its fetched bytes in chunks of 4,096,
// compacting them with its own Latest (analysing new keys) and handing
// them to one one-shot Store, side by side, as the Tailer does. 1,000,000
// records of 1,000,000 MirrorMaker-shaped keys (-short: 50,000). The
// fetched bytes are made before the timer starts; wall time is the
// figure, as for `koff get`.
//
//	go test ./model -run XXX -bench OneShotCatchUp -benchtime 1x
func BenchmarkOneShotCatchUp(b *testing.B) {
	const partitions = 25
	records := 1_000_000
	if testing.Short() {
		records = 50_000
	}
	// Each partition's records back to back, as a length and the bytes of
	// key and value: one block without pointers, as a fetch response.
	var fetched [partitions][]byte
	var counts [partitions]int
	for i := range records {
		key := fmt.Appendf(nil, `["mm2-%02d.MirrorSourceConnector",{"cluster":"primary","partition":%d,"topic":"orders.region-%d.topic-%d"}]`, i%70, i/70%100, i%70, i/7000)
		value := fmt.Appendf(nil, `{"offset":%d}`, i%1000)
		p := java.PartitionFor(key, partitions)
		fetched[p] = append(append(append(append(fetched[p], byte(len(key))), key...), byte(len(value))), value...)
		counts[p]++
	}
	base := time.UnixMilli(1_796_000_000_000)
	var elapsed, cpu time.Duration
	for range b.N {
		b.StopTimer()
		runtime.GC()
		s := NewStore(StoreOptions{OneShot: true})
		s.SetTopicPartitions("connect-offsets", partitions)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for p := range partitions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l := NewLatest(s.History())
				buf := make([]Record, 0, 4096)
				<-start
				s.ExpectRecords(model.TopicPartition{Topic: "connect-offsets", Partition: p}, int64(counts[p]))
				rest := fetched[p]
				for off := 0; len(rest) > 0; off++ {
					k := rest[1 : 1+rest[0]]
					rest = rest[1+rest[0]:]
					v := bytes.Clone(rest[1 : 1+rest[0]]) // a value kept is the Store's
					rest = rest[1+rest[0]:]
					buf = append(buf, Record{Topic: "connect-offsets", Partition: p, Offset: int64(off), Key: k, Value: v,
						Time: base.Add(time.Duration(off) * time.Millisecond)})
					if len(buf) == cap(buf) || len(rest) == 0 {
						s.Ingest(l.Keep(buf))
						buf = buf[:0]
					}
				}
			}()
		}
		b.StartTimer()
		t0, cpu0 := time.Now(), processCPU()
		close(start)
		wg.Wait()
		elapsed += time.Since(t0)
		cpu += processCPU() - cpu0
		b.StopTimer()
		if got := s.Stats().Records; got != int64(records) {
			b.Fatalf("ingested %d records, want %d", got, records)
		}
	}
	n := float64(b.N) * float64(records)
	b.ReportMetric(n/elapsed.Seconds(), "records/s")
	b.ReportMetric(float64(elapsed.Nanoseconds())/n, "ns/record")
	// The CPU time of the process (user and system, every goroutine):
	// what a one-shot read pays, whatever the wall time on a shared machine.
	b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/record")
}

// processCPU is the user and system time the process has taken.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
