package kafka

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/protocol"

	"koff/model"
	"koff/model/store"
)

// stretchRecords is a fetch's records: n records of new keys each (a cold
// read of many source partitions), or of few keys read again and again.
func stretchRecords(r *rand.Rand, first, n int, fresh bool, at time.Time) []protocol.Record {
	recs := make([]protocol.Record, n)
	for i := range recs {
		k := first + i
		if !fresh {
			k = r.IntN(40)
		}
		recs[i] = protocol.Record{
			Time:  at.Add(time.Duration(first+i) * time.Millisecond),
			Key:   protocol.NewBytes(fmt.Appendf(nil, `["c",{"cluster":"east","partition":%d,"topic":"t"}]`, k)),
			Value: protocol.NewBytes(fmt.Appendf(nil, `{"offset":%d}`, first+i)),
		}
		if r.IntN(50) == 0 {
			recs[i].Value = nil // a tombstone
		}
	}
	return recs
}

// A one-shot read hands on small chunks while they are nearly all new keys
// and chunks of decodeChunk once keys come again (keepLatest): the Store
// it builds is the one decoding and preparing every record builds, for
// random stretches of new and repeated keys across fetches of all sizes.
func TestLatestChunksFollowTheKeysKept(t *testing.T) {
	at := time.UnixMilli(1_796_000_000_000)
	tp := model.TopicPartition{Topic: "t", Partition: 0}
	id := model.ConnectorID{Topic: "t", Name: "c"}
	var seen [2]int // small chunks, big ones
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 7))
		full, latest := store.NewStore(store.StoreOptions{}), store.NewStore(store.StoreOptions{})
		var every decoder
		lent := decoder{borrow: true, small: true, recs: make([]store.Record, 0, newKeysChunk)}
		keep := store.NewLatest(latest.History())
		sizes := map[bool]int{} // chunks handed on, by whether small
		pos, lpos, off := int64(0), int64(0), 0
		for range 6 {
			n := 1 + r.IntN(3*decodeChunk)
			f := batchBytes(t, int64(off), -1, 0, stretchRecords(r, off, n, r.IntN(2) == 0, at)...)
			off += n
			every.buf = append(every.buf[:0], f...)
			lent.buf = append(lent.buf[:0], f...)
			_, pos = every.decode(tp, pos, &fetchedPartition{Records: every.buf}, func(recs []store.Record) {
				for i := range recs {
					recs[i].Prepare()
				}
				full.Ingest(recs)
			})
			_, lpos = lent.decode(tp, lpos, &fetchedPartition{Records: lent.buf}, func(recs []store.Record) {
				if len(recs) > newKeysChunk {
					sizes[false]++
				} else if len(recs) == newKeysChunk {
					sizes[true]++
				}
				latest.Ingest(lent.keepLatest(keep, recs))
			})
			if pos != lpos || pos != int64(off) {
				t.Fatalf("seed %d: next %d and %d, want %d", seed, pos, lpos, off)
			}
			for i := range lent.buf {
				lent.buf[i] = 'x' // the next fetch's bytes: the Store holds none of these
			}
		}
		if a, b := full.Partitions(id), latest.Partitions(id); len(a) == 0 || !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: rows differ\n%+v\n%+v", seed, a, b)
		}
		if x, y := string(full.OffsetsBody([]model.ConnectorID{id})), string(latest.OffsetsBody([]model.ConnectorID{id})); x != y {
			t.Fatalf("seed %d: bodies differ\n%s\n%s", seed, x, y)
		}
		if x, y := full.Stats(), latest.Stats(); x.Records != y.Records || x.Partitions != y.Partitions {
			t.Fatalf("seed %d: stats differ\n%+v\n%+v", seed, x, y)
		}
		t.Logf("seed %d: %d small chunks, %d big", seed, sizes[true], sizes[false])
		seen[0] += sizes[true]
		seen[1] += sizes[false]
	}
	if seen[0] == 0 || seen[1] == 0 {
		t.Fatalf("chunks handed on: %d small, %d big: both sizes must be tried", seen[0], seen[1])
	}
}

// BenchmarkLatestChunks decodes, keeps and ingests fetches of new keys in
// chunks of newKeysChunk (as a one-shot read does) and of decodeChunk (as
// it did).
//
//	go test ./kafka -run XXX -bench LatestChunks
func BenchmarkLatestChunks(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	at := time.UnixMilli(1_796_000_000_000)
	const perFetch, fetches = 5000, 8
	var blobs [][]byte
	for i := range fetches {
		blobs = append(blobs, batchBytes(b, int64(i*perFetch), -1, 0, stretchRecords(r, i*perFetch, perFetch, true, at)...))
	}
	tp := model.TopicPartition{Topic: "t", Partition: 0}
	for _, small := range []bool{true, false} {
		b.Run(fmt.Sprintf("small-%v", small), func(b *testing.B) {
			for range b.N {
				s := store.NewStore(store.StoreOptions{})
				keep := store.NewLatest(s.History())
				d := decoder{borrow: true, small: small}
				pos := int64(0)
				for _, f := range blobs {
					d.buf = append(d.buf[:0], f...)
					_, pos = d.decode(tp, pos, &fetchedPartition{Records: d.buf}, func(recs []store.Record) {
						recs = keep.Keep(recs)
						d.own(recs)
						s.Ingest(recs)
					})
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perFetch*fetches), "ns/record")
		})
	}
}

// BenchmarkDecode decodes fetches of MirrorMaker records as a one-shot
// read's decoder does (values lent), handing chunks to nothing: the
// records' reading alone.
//
//	go test ./kafka -run XXX -bench 'Decode$'
func BenchmarkDecode(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	at := time.UnixMilli(1_796_000_000_000)
	const perFetch = 5000
	blob := batchBytes(b, 0, -1, 0, stretchRecords(r, 0, perFetch, true, at)...)
	tp := model.TopicPartition{Topic: "t", Partition: 0}
	d := decoder{borrow: true, small: true, buf: blob}
	p := &fetchedPartition{Records: d.buf}
	n := 0
	for b.Loop() {
		n, _ = d.decode(tp, 0, p, func([]store.Record) {})
	}
	if n != perFetch {
		b.Fatalf("decoded %d records, want %d", n, perFetch)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perFetch), "ns/record")
}
