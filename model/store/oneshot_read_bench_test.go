package store

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"koff/model"
	"koff/model/java"
)

// BenchmarkOneShotRead measures koff get -o json's work on a fetched
// topic, without the broker and the socket, through the Store (Latest,
// Ingest, AppendOffsetsBody: "store") and through a OneShotRead (Append,
// Bodies, WriteJSON: "once"): 25 partition readers
// side by side, 1,000,000 records (-short: 50,000) of 1,000,000
// MirrorMaker-shaped keys ("keys=all"), and of 7,000 keys each written
// again and again ("keys=7000": a part indexed, each key's records
// written over in place). Both write the same bytes (checked); CPU time
// of the process is the figure.
//
//	go test ./model/store -run XXX -bench OneShotRead -benchtime 3x
func BenchmarkOneShotRead(b *testing.B) {
	for _, keys := range []int{0, 7000} {
		name := "keys=all"
		if keys > 0 {
			name = fmt.Sprintf("keys=%d", keys)
		}
		b.Run(name, func(b *testing.B) { benchmarkOneShotRead(b, keys) })
	}
}

func benchmarkOneShotRead(b *testing.B, keys int) {
	const partitions = 25
	records := 1_000_000
	if testing.Short() {
		records = 50_000
	}
	var fetched [partitions][]byte
	for n := range records {
		i := n
		if keys > 0 {
			i = n % keys
		}
		key := fmt.Appendf(nil, `["mm2-%02d.MirrorSourceConnector",{"cluster":"primary","partition":%d,"topic":"orders.region-%d.topic-%d"}]`, i%70, i/70%100, i%70, i/7000)
		value := fmt.Appendf(nil, `{"offset":%d}`, n%1000)
		p := java.PartitionFor(key, partitions)
		fetched[p] = append(append(append(append(fetched[p], byte(len(key))), key...), byte(len(value))), value...)
	}
	base := time.UnixMilli(1_796_000_000_000)
	// read hands each partition's records to take in chunks of 1,024, on
	// one goroutine a partition.
	read := func(take func(p int, recs []Record)) {
		var wg sync.WaitGroup
		for p := range partitions {
			wg.Go(func() {
				buf := make([]Record, 0, 1024)
				rest := fetched[p]
				for off := 0; len(rest) > 0; off++ {
					k := rest[1 : 1+rest[0]]
					rest = rest[1+rest[0]:]
					v := rest[1 : 1+rest[0]]
					rest = rest[1+rest[0]:]
					buf = append(buf, Record{Topic: "connect-offsets", Partition: p, Offset: int64(off), Key: k, Value: v,
						Time: base.Add(time.Duration(off) * time.Millisecond)})
					if len(buf) == cap(buf) || len(rest) == 0 {
						take(p, buf)
						buf = buf[:0]
					}
				}
			})
		}
		wg.Wait()
	}
	var want []byte
	run := func(b *testing.B, get func() []byte) {
		var cpu time.Duration
		for range b.N {
			b.StopTimer()
			runtime.GC()
			b.StartTimer()
			cpu0 := processCPU()
			out := get()
			cpu += processCPU() - cpu0
			b.StopTimer()
			if want == nil {
				want = out
			} else if !bytes.Equal(out, want) {
				b.Fatalf("wrote %d bytes, not the %d the other path wrote", len(out), len(want))
			}
		}
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(records), "cpu-ns/record")
	}
	b.Run("store", func(b *testing.B) {
		run(b, func() []byte {
			s := NewStore(StoreOptions{OneShot: true})
			s.SetTopicPartitions("connect-offsets", partitions)
			var latest [partitions]*Latest
			for p := range latest {
				latest[p] = NewLatest(s.History())
				s.ExpectRecords(model.TopicPartition{Topic: "connect-offsets", Partition: p}, int64(len(fetched[p])))
			}
			read(func(p int, recs []Record) {
				kept := latest[p].Keep(recs)
				for i := range kept {
					kept[i].Value = bytes.Clone(kept[i].Value) // a value kept is the Store's
				}
				s.Ingest(kept)
			})
			var names []string
			for _, c := range s.ConnectorList() {
				names = append(names, c.ID.Name)
			}
			slices.Sort(names)
			out := []byte{'{'}
			var body []byte
			for i, n := range names {
				if i > 0 {
					out = append(out, ',')
				}
				out = append(java.AppendJackson(out, n), ':')
				body = s.AppendOffsetsBody(body[:0], []model.ConnectorID{{Name: n, Topic: "connect-offsets"}})
				out = append(out, body...)
			}
			return append(out, '}')
		})
	})
	b.Run("once", func(b *testing.B) {
		run(b, func() []byte {
			o := &OneShotRead{}
			var parts [partitions]*OneShotPart
			for p := range parts {
				parts[p] = o.Part(model.TopicPartition{Topic: "connect-offsets", Partition: p}, int64(len(fetched[p])/100), defaultHistory, nil)
			}
			read(func(p int, recs []Record) { parts[p].AppendFrom(recs, fetched[p]) })
			bodies, ok := o.Bodies()
			if !ok {
				b.Fatalf("not the simple case: %s", o.Why())
			}
			var out []byte
			bodies.WriteJSON(func(p []byte, _ bool) { out = append(out, p...) })
			return out
		})
	})
	if !strings.HasPrefix(string(want), `{"mm2-00.MirrorSourceConnector":{"offsets":[{"partition":`) {
		b.Fatalf("wrote %.100s", want)
	}
}
