package kafka

import (
	"reflect"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/compress"
	"github.com/segmentio/kafka-go/protocol"
	fetchAPI "github.com/segmentio/kafka-go/protocol/fetch"

	"koff/model"
	"koff/model/store"
)

// A decoder that lends its values (as the Tailer's does for a one-shot
// read: store.Latest keeps the latest record of each key bytes, own copies
// their values) builds the Store that decoding and preparing every record
// builds: across compressed batches (whose records are inflated into one
// reused buffer), aborted transactions, chunks of decodeChunk and fetches
// into one reused response buffer.
func TestLatestDecodeIngestsAsEveryRecord(t *testing.T) {
	at := time.UnixMilli(1_796_000_000_123)
	var fetches [][]byte
	var blob []byte
	add := func(b []byte) { blob = append(blob, b...) }
	add(batchBytes(t, 0, -1, 0, offsetRecords(7, "plain", at)...))
	off := int64(7)
	for _, codec := range []compress.Compression{compress.Gzip, compress.Snappy, compress.Lz4, compress.Zstd} {
		add(batchBytes(t, off, -1, protocol.Attributes(codec), offsetRecords(50, "plain", at.Add(time.Second))...))
		off += 50
	}
	add(batchBytes(t, off, 7, protocol.Transactional, offsetRecords(3, "plain", at)...))
	add(batchBytes(t, off+3, 9, protocol.Transactional, offsetRecords(3, "plain", at.Add(time.Hour))...))
	marker := protocol.Record{Time: at, Key: protocol.NewBytes([]byte{0, 0, 0, 1}), Value: protocol.NewBytes([]byte{0, 0, 0, 0, 0, 0})}
	add(batchBytes(t, off+6, 7, protocol.Transactional|protocol.Control, marker))
	add(batchBytes(t, off+7, 9, protocol.Transactional|protocol.Control, marker))
	fetches = append(fetches, blob)
	blob = nil
	add(batchBytes(t, off+8, -1, 0, offsetRecords(3*decodeChunk+17, "plain", at.Add(2*time.Second))...))
	fetches = append(fetches, blob)
	aborted := []fetchAPI.ResponseTransaction{{ProducerID: 9, FirstOffset: off + 3}}

	tp := model.TopicPartition{Topic: "t", Partition: 3}
	full, latest := store.NewStore(store.StoreOptions{}), store.NewStore(store.StoreOptions{})
	var every, lent decoder
	lent.borrow = true
	keep := store.NewLatest(latest.History())
	pos, lpos := int64(0), int64(0)
	for _, f := range fetches {
		// Each fetch is read into the decoder's buffer, as fetchPartition does.
		every.buf = append(every.buf[:0], f...)
		lent.buf = append(lent.buf[:0], f...)
		p := &fetchedPartition{Records: every.buf, AbortedTransactions: aborted}
		lp := &fetchedPartition{Records: lent.buf, AbortedTransactions: aborted}
		if err := p.check(); err != nil {
			t.Fatal(err)
		}
		_, pos = every.decode(tp, pos, p, func(recs []store.Record) {
			for i := range recs {
				recs[i].Prepare()
			}
			full.Ingest(recs)
		})
		var n int
		n, lpos = lent.decode(tp, lpos, lp, func(recs []store.Record) {
			recs = keep.Keep(recs)
			lent.own(recs)
			latest.Ingest(recs)
		})
		if n == 0 || pos != lpos {
			t.Fatalf("decoded %d, next %d and %d", n, pos, lpos)
		}
		for i := range lent.buf {
			lent.buf[i] = 'x' // the next fetch's bytes: the Store holds none of these
		}
	}
	id := model.ConnectorID{Topic: "t", Name: "c"}
	a, b := full.Partitions(id), latest.Partitions(id)
	if len(a) == 0 || !reflect.DeepEqual(a, b) {
		t.Fatalf("rows differ\n%+v\n%+v", a, b)
	}
	if x, y := string(full.OffsetsBody([]model.ConnectorID{id})), string(latest.OffsetsBody([]model.ConnectorID{id})); x != y {
		t.Fatalf("bodies differ\n%s\n%s", x, y)
	}
	if x, y := full.Stats().Records, latest.Stats().Records; x != y {
		t.Errorf("%d records read, %d counted", x, y)
	}
}
