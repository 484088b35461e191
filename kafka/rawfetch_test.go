package kafka

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/compress"
	"github.com/segmentio/kafka-go/protocol"
	fetchAPI "github.com/segmentio/kafka-go/protocol/fetch"

	"koff/model"
	"koff/model/store"
)

// batchBytes is one v2 record batch as a broker serves it, written by
// kafka-go's encoder, then given its base offset and producer id (and so
// a new CRC).
func batchBytes(t testing.TB, base, pid int64, attrs protocol.Attributes, recs ...protocol.Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	rs := protocol.RecordSet{Version: 2, Attributes: attrs, Records: protocol.NewRecordReader(recs...)}
	if _, err := rs.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()[4:] // the record set's size
	binary.BigEndian.PutUint64(b, uint64(base))
	binary.BigEndian.PutUint64(b[12+batchProducerID:], uint64(pid))
	binary.BigEndian.PutUint32(b[12+batchCRC:], crc32.Checksum(b[12+batchAttributes:], castagnoli))
	return b
}

func offsetRecords(n int, key string, at time.Time) []protocol.Record {
	var recs []protocol.Record
	for i := range n {
		r := protocol.Record{Time: at.Add(time.Duration(i) * time.Millisecond), Key: protocol.NewBytes([]byte(fmt.Sprintf(`["c",{"k":"%s-%d"}]`, key, i%3)))}
		if i%4 != 3 { // every fourth a tombstone
			r.Value = protocol.NewBytes([]byte(fmt.Sprintf(`{"n":%d}`, i)))
		}
		if i == 5 {
			r.Key = protocol.NewBytes([]byte{}) // empty, not null
			r.Value = protocol.NewBytes([]byte{})
		}
		recs = append(recs, r)
	}
	return recs
}

type decoded struct {
	recs []store.Record
	n    int
	next int64
}

func decodeWith(t *testing.T, p *fetchedPartition, pos int64, legacyPath bool) decoded {
	t.Helper()
	var d decoder
	var out decoded
	emit := func(recs []store.Record) {
		for _, r := range recs {
			if r.Key != nil {
				r.Key = append([]byte{}, r.Key...) // reused after emit
			}
			out.recs = append(out.recs, r)
		}
	}
	if legacyPath {
		var rs protocol.RecordSet
		framed := append(binary.BigEndian.AppendUint32(nil, uint32(len(p.Records))), p.Records...)
		if _, err := rs.ReadFrom(bytes.NewReader(framed)); err != nil {
			t.Fatal(err)
		}
		out.n, out.next = d.decodeRecordSet(model.TopicPartition{Topic: "t", Partition: 3}, pos, p.AbortedTransactions, &rs, emit)
		return out
	}
	if err := p.check(); err != nil {
		t.Fatal(err)
	}
	out.n, out.next = d.decode(model.TopicPartition{Topic: "t", Partition: 3}, pos, p, emit)
	return out
}

// decode reads record batches in place exactly as kafka-go's decoder
// reads them: plain and compressed (every codec), transactional ones
// committed and aborted, control batches, a read starting inside a
// batch, and a batch cut short at the end.
func TestDecodeReadsBatchesAsKafkaGoDoes(t *testing.T) {
	at := time.UnixMilli(1_796_000_000_123)
	var blob []byte
	add := func(b []byte) { blob = append(blob, b...) }
	add(batchBytes(t, 0, -1, 0, offsetRecords(7, "plain", at)...))
	off := int64(7)
	for _, codec := range []compress.Compression{compress.Gzip, compress.Snappy, compress.Lz4, compress.Zstd} {
		add(batchBytes(t, off, -1, protocol.Attributes(codec), offsetRecords(5, codec.String(), at)...))
		off += 5
	}
	// Producer 7's transaction commits, producer 9's aborts.
	add(batchBytes(t, off, 7, protocol.Transactional, offsetRecords(3, "committed", at)...))
	add(batchBytes(t, off+3, 9, protocol.Transactional, offsetRecords(3, "aborted", at)...))
	marker := protocol.Record{Time: at, Key: protocol.NewBytes([]byte{0, 0, 0, 1}), Value: protocol.NewBytes([]byte{0, 0, 0, 0, 0, 0})}
	add(batchBytes(t, off+6, 7, protocol.Transactional|protocol.Control, marker))
	add(batchBytes(t, off+7, 9, protocol.Transactional|protocol.Control, marker))
	add(batchBytes(t, off+8, -1, protocol.Attributes(compress.Gzip), offsetRecords(4, "after", at)...))
	whole := len(blob)
	last := batchBytes(t, off+12, -1, 0, offsetRecords(6, "cut", at)...)
	add(last[:len(last)-9]) // cut short by the size limit
	aborted := []fetchAPI.ResponseTransaction{{ProducerID: 9, FirstOffset: off + 3}}

	for _, pos := range []int64{0, 3, 9, off + 1, off + 4, off + 9} {
		for _, cut := range []int{whole, len(blob)} {
			p := &fetchedPartition{Records: blob[:cut], AbortedTransactions: aborted}
			got := decodeWith(t, p, pos, false)
			want := decodeWith(t, &fetchedPartition{Records: blob[:cut], AbortedTransactions: aborted}, pos, true)
			if got.n != want.n || !reflect.DeepEqual(got.recs, want.recs) {
				t.Fatalf("from %d: decoded %d records, kafka-go %d\n%+v\n%+v", pos, got.n, want.n, got.recs, want.recs)
			}
			if got.next != want.next {
				t.Errorf("from %d: next fetch from %d, kafka-go's reading says %d", pos, got.next, want.next)
			}
		}
	}
	got := decodeWith(t, &fetchedPartition{Records: blob, AbortedTransactions: aborted}, 0, false)
	for _, r := range got.recs {
		if bytes.Contains(r.Key, []byte("aborted")) {
			t.Errorf("a record of the aborted transaction was handed on: %s", r.Key)
		}
	}
	if want := 7 + 4*5 + 3 + 4; got.n != want {
		t.Errorf("%d records handed on, want %d", got.n, want)
	}
}

// A batch whose records were all compacted away (or skipped) still moves
// the next fetch past it, as the Java consumer does.
func TestDecodeMovesPastSkippedBatches(t *testing.T) {
	at := time.UnixMilli(1_796_000_000_000)
	blob := batchBytes(t, 40, 9, protocol.Transactional, offsetRecords(3, "aborted", at)...)
	p := &fetchedPartition{Records: blob, AbortedTransactions: []fetchAPI.ResponseTransaction{{ProducerID: 9, FirstOffset: 40}}}
	if got := decodeWith(t, p, 40, false); got.n != 0 || got.next != 43 {
		t.Errorf("aborted batch: %d records, next %d; want 0 and 43", got.n, got.next)
	}
}

// With LogAppendTime every record of a batch has the batch's max
// timestamp (DefaultRecordBatch).
func TestDecodeLogAppendTime(t *testing.T) {
	at := time.UnixMilli(1_796_000_000_000)
	blob := batchBytes(t, 0, -1, 1<<3, offsetRecords(3, "la", at)...)
	got := decodeWith(t, &fetchedPartition{Records: blob}, 0, false)
	for _, r := range got.recs {
		if !r.Time.Equal(at.Add(2 * time.Millisecond)) {
			t.Errorf("record %d at %s, want the batch's max timestamp %s", r.Offset, r.Time, at.Add(2*time.Millisecond))
		}
	}
}

// A batch with a bad CRC fails the fetch, as kafka-go's decoding does; an
// old-format message set is read by kafka-go's decoder.
func TestFetchedPartitionCheck(t *testing.T) {
	at := time.UnixMilli(1_796_000_000_000)
	blob := batchBytes(t, 0, -1, 0, offsetRecords(3, "x", at)...)
	blob[len(blob)-2] ^= 1
	if err := (&fetchedPartition{Records: blob}).check(); err == nil {
		t.Error("a corrupt batch passed the CRC check")
	}
	var buf bytes.Buffer
	rs := protocol.RecordSet{Version: 1, Records: protocol.NewRecordReader(offsetRecords(4, "v1", at)...)}
	if _, err := rs.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	p := &fetchedPartition{Records: buf.Bytes()[4:]}
	got := decodeWith(t, p, 0, false)
	if p.legacy == nil || got.n != 4 || string(got.recs[1].Value) != `{"n":1}` {
		t.Errorf("old-format message set: legacy %v, %d records %+v", p.legacy != nil, got.n, got.recs)
	}
}

// TestVarintIsBinaryVarint: varint's one-byte path reads what
// binary.Varint reads, for every first byte, and longer ones, cut short
// and overlong ones too.
func TestVarintIsBinaryVarint(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(b []byte, i int) {
		t.Helper()
		v, j, ok := varint(b, i)
		var want int64
		k := 0
		if i < len(b) {
			want, k = binary.Varint(b[i:])
		}
		if ok != (k > 0) || ok && (v != want || j != i+k) {
			t.Fatalf("varint(% x, %d) = %d, %d, %v; binary.Varint: %d, %d", b, i, v, j, ok, want, k)
		}
	}
	for c := range 256 {
		check([]byte{byte(c)}, 0)
		check([]byte{7, byte(c), 1}, 1)
		for d := range 256 { // the two bytes read inline, and what follows them
			check([]byte{byte(c), byte(d)}, 0)
			check([]byte{7, byte(c), byte(d), 0x81}, 1)
		}
	}
	check(nil, 0)
	check([]byte{1}, 1)
	for range 100_000 {
		b := binary.AppendVarint(nil, r.Int64()>>r.IntN(64))
		check(b, 0)
		check(b[:r.IntN(len(b)+1)], 0)
		b = make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		check(b, 0)
	}
}
