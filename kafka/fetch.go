package kafka

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"slices"
	"sort"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/compress"
	"github.com/segmentio/kafka-go/protocol"
	fetchAPI "github.com/segmentio/kafka-go/protocol/fetch"

	"koff/model"
	"koff/model/store"
)

// fetchMaxBytes caps one fetch (librdkafka's max.partition.fetch.bytes):
// every partition of the offsets topic is fetched at once while catching
// up, so this times 25 is what is in flight; 4 MB made a 1M-record load
// peak at 370-440 MB RSS, 1 MB at 230 MB, for the same CPU time.
const fetchMaxBytes = 1 << 20

// fetch asks the partition leader for records from pos. kafka-go's
// Client.Fetch drops the aborted-transaction list a read_committed consumer
// needs, so koff sends the protocol request itself. The response is read
// into dec's buffer (see rawFetch).
func (t *Tailer) fetch(ctx context.Context, tp model.TopicPartition, pos int64, dec *decoder) (*fetchedPartition, error) {
	wait := t.opts.MaxWait
	t.mu.Lock()
	if ps := t.parts[tp]; ps != nil && ps.pos < ps.target {
		wait = 50 * time.Millisecond // catching up: data is there already
	}
	t.mu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, wait+10*time.Second)
	defer cancel()
	p, err := fetchPartition(rctx, t.tr, t.cfg.addr(), tp, pos, wait, 1, dec)
	if err != nil {
		return nil, err
	}
	if p.ErrorCode != 0 {
		return nil, kafkago.Error(p.ErrorCode)
	}
	return p, nil
}

// fetchPartition sends one read_committed fetch of one partition from pos
// and returns that partition's answer, whatever its error code. Its
// records are in dec's buffer until dec fetches again.
func fetchPartition(ctx context.Context, tr *kafkago.Transport, addr net.Addr, tp model.TopicPartition, pos int64, wait time.Duration, minBytes int32, dec *decoder) (*fetchedPartition, error) {
	f := &rawFetch{
		req: fetchAPI.Request{
			ReplicaID: -1, MaxWaitTime: int32(wait / time.Millisecond), MinBytes: minBytes, MaxBytes: fetchMaxBytes,
			IsolationLevel: int8(kafkago.ReadCommitted), SessionID: -1, SessionEpoch: -1,
			Topics: []fetchAPI.RequestTopic{{Topic: tp.Topic, Partitions: []fetchAPI.RequestPartition{{
				Partition: int32(tp.Partition), CurrentLeaderEpoch: -1, FetchOffset: pos,
				LogStartOffset: -1, PartitionMaxBytes: fetchMaxBytes,
			}}}},
		},
		clientID: tr.ClientID,
		topic:    tp.Topic,
		buf:      dec.buf,
	}
	dec.buf = nil // the connection's goroutine may still be writing to it if ctx ends first
	m, err := tr.RoundTrip(ctx, addr, f)
	if err != nil {
		return nil, err
	}
	res := m.(*rawFetch)
	dec.buf = res.buf
	for i := range res.parts {
		if p := &res.parts[i]; int(p.Partition) == tp.Partition {
			return p, nil
		}
	}
	return nil, protocol.ErrNoPartition
}

// fetchCommitted fetches one partition from pos read_committed, without
// waiting, through tr: for reads outside the Tailer (an edit's read-back,
// counting records). decode then drops control batches and aborted records.
func (c Config) fetchCommitted(ctx context.Context, tr *kafkago.Transport, tp model.TopicPartition, pos int64, dec *decoder) (*fetchedPartition, error) {
	return fetchPartition(ctx, tr, c.addr(), tp, pos, 0, 0, dec)
}

// decodeChunk is how many records decode hands on at once: enough to take
// the Store's lock rarely (about one 1 MB fetch of offset records: the
// Store works some things out once per batch for each key it updated),
// few enough that a whole fetch is never held decoded twice over.
const decodeChunk = 4096

// newKeysChunk is the chunk of a one-shot read while its chunks are
// nearly all new keys (a cold read of many source partitions), where a
// bigger chunk supersedes nothing: what a Latest works out of a chunk
// (its keys, facts and places) and the chunk itself then stay in the
// core's cache between the decoding, the key analysis and the Store.
const newKeysChunk = 1024

// chunk is how many records d hands on at once.
func (d *decoder) chunk() int {
	if d.small {
		return newKeysChunk
	}
	return decodeChunk
}

// decoder turns fetched record batches into model.Records, reusing its
// buffers from one fetch to the next: one per partition reader.
type decoder struct {
	buf     []byte // the last fetch response
	inflate []byte // a compressed batch's records
	recs    []store.Record
	keys    []byte // the chunk's keys, back to back (old-format batches)
	// borrow: values point into the fetched bytes, like keys, until own
	// copies those the Store keeps into vals.
	borrow bool
	vals   []byte
	// small: hand on chunks of newKeysChunk (see keptMost).
	small bool
}

// keptMost sizes the next chunks from what a Latest kept of the last,
// kept of n: small while it kept nearly all (few keys read twice, so a
// bigger chunk would supersede nothing more), of decodeChunk otherwise.
// A chunk cut short by the end of a fetch says too little to go by.
func (d *decoder) keptMost(kept, n int) {
	if n < newKeysChunk {
		return
	}
	d.small = kept >= n-n/8
	if !d.small && cap(d.recs) < decodeChunk {
		// Made at its size once, as the first (see tailPartition); the
		// chunk being handed on is not used again.
		d.recs = make([]store.Record, 0, decodeChunk)
		store.WritePages(d.recs)
	}
}

// emit hands the chunk decoded so far to the Store and starts the next,
// dropping the values (the Store has them now); it returns the records
// handed over.
func (d *decoder) emit(emit func([]store.Record)) int {
	n := len(d.recs)
	if n == 0 {
		return 0
	}
	emit(d.recs)
	clear(d.recs)
	d.recs, d.keys = d.recs[:0], d.keys[:0]
	return n
}

// room grows a full chunk, writing to its new pages before the collector
// can scan them (store.WritePages).
func (d *decoder) room() {
	if len(d.recs) == cap(d.recs) {
		d.recs = slices.Grow(d.recs, 1)
		store.WritePages(d.recs[len(d.recs):])
	}
}

// keepLatest is what a one-shot read hands the Store of a chunk: the
// latest record of each key bytes (l.Keep), their values owned, the next
// chunks sized from how many it kept.
func (d *decoder) keepLatest(l *store.Latest, recs []store.Record) []store.Record {
	n := len(recs)
	recs = l.Keep(recs)
	d.keptMost(len(recs), n)
	d.own(recs)
	return recs
}

// own copies the values of recs out of the fetched bytes, into blocks: a
// one-shot read keeps a million small values, which as one object each
// are a million for the garbage collector to find. A block lives as long
// as one of its values does.
func (d *decoder) own(recs []store.Record) {
	const block = 64 << 10
	for i := range recs {
		v := recs[i].Value
		switch {
		case v == nil:
			continue
		case len(v) > block/8:
			recs[i].Value = append(make([]byte, 0, len(v)), v...)
			continue
		case cap(d.vals)-len(d.vals) < len(v):
			d.vals = make([]byte, 0, block)
		}
		at := len(d.vals)
		d.vals = append(d.vals, v...)
		recs[i].Value = d.vals[at:len(d.vals):len(d.vals)]
	}
}

// decode hands the records at or after pos of a fetched partition to emit,
// in chunks, dropping control batches and the records of aborted
// transactions, and returns how many it handed on and the offset to fetch
// next. A chunk's slices (the keys point into the fetched bytes) are
// reused once emit returns; values are allocated one by one, since the
// Store keeps them (unless d.borrow: then they too point into the fetched
// bytes, for emit to copy those it keeps).
func (d *decoder) decode(tp model.TopicPartition, pos int64, p *fetchedPartition, emit func([]store.Record)) (int, int64) {
	if p.legacy != nil {
		return d.decodeRecordSet(tp, pos, p.AbortedTransactions, p.legacy, emit)
	}
	next := pos
	aborted := append([]fetchAPI.ResponseTransaction(nil), p.AbortedTransactions...)
	sort.Slice(aborted, func(i, j int) bool { return aborted[i].FirstOffset < aborted[j].FirstOffset })
	var abortedPIDs map[int64]bool
	n := 0
	d.recs = d.recs[:0]
	flush := func() { n += d.emit(emit) }
	be := binary.BigEndian
	for b := p.Records; ; {
		base, batch, rest, ok := nextBatch(b)
		if !ok {
			break // the end, or a batch cut short by MaxBytes: fetched again next time
		}
		b = rest
		attrs := be.Uint16(batch[batchAttributes:])
		pid := int64(be.Uint64(batch[batchProducerID:]))
		skip := attrs&0x20 != 0 // control
		if skip {
			// A commit or abort marker ends the producer's transaction.
			delete(abortedPIDs, pid)
		} else {
			for len(aborted) > 0 && aborted[0].FirstOffset <= base {
				if abortedPIDs == nil {
					abortedPIDs = map[int64]bool{}
				}
				abortedPIDs[aborted[0].ProducerID] = true
				aborted = aborted[1:]
			}
			skip = attrs&0x10 != 0 && abortedPIDs[pid] // transactional, aborted
		}
		last := base + int64(int32(be.Uint32(batch[batchLastOffsetDelta:])))
		if last < pos || skip {
			// Nothing to hand on: the consumer moves past the whole batch
			// (DefaultRecordBatch.nextOffset), records compacted away too.
			next = max(next, last+1)
			continue
		}
		first := int64(be.Uint64(batch[batchFirstTimestamp:]))
		logAppend := attrs&0x08 != 0 // every record has the batch's max timestamp
		maxTS := int64(be.Uint64(batch[batchMaxTimestamp:]))
		count := int(int32(be.Uint32(batch[batchRecordCount:])))
		recs := batch[batchRecords:]
		if codec := compress.Compression(attrs & 7); codec != 0 {
			flush() // the keys of the chunk may be in d.inflate
			var err error
			if recs, err = d.inflateRecords(codec, recs); err != nil {
				break // as a truncated batch: the next fetch tries again
			}
		}
		var r record
		for range count {
			rest, ok := readRecord(recs, &r)
			if !ok {
				break
			}
			recs = rest
			off := base + r.offsetDelta
			if off < pos {
				continue
			}
			next = off + 1
			ts := first + r.timestampDelta
			if logAppend {
				ts = maxTS
			}
			value := r.value
			if value != nil && !d.borrow {
				value = append(make([]byte, 0, len(r.value)), r.value...)
			}
			d.room()
			d.recs = append(d.recs, store.Record{
				Topic:     tp.Topic,
				Partition: tp.Partition,
				Offset:    off,
				Key:       r.key,
				Value:     value,
				Time:      time.Unix(ts/1000, (ts%1000)*int64(time.Millisecond)), // as kafka-go makes it
				Koff:      r.koff,
			})
			if len(d.recs) >= d.chunk() {
				flush()
			}
		}
		next = max(next, last+1)
	}
	flush()
	return n, next
}

// inflateRecords decompresses a batch's records into d.inflate.
func (d *decoder) inflateRecords(codec compress.Compression, recs []byte) ([]byte, error) {
	c := codec.Codec()
	if c == nil {
		return nil, fmt.Errorf("unsupported compression codec (%d)", codec)
	}
	r := c.NewReader(bytes.NewReader(recs))
	defer r.Close()
	w := bytes.NewBuffer(d.inflate[:0])
	if _, err := w.ReadFrom(r); err != nil {
		return nil, err
	}
	d.inflate = w.Bytes()
	return d.inflate, nil
}

// record is one record of a v2 batch; key and value point into the batch
// (nil: null).
type record struct {
	timestampDelta, offsetDelta int64
	key, value                  []byte
	koff                        bool // it has KoffHeader: written by koff's edit
}

// readRecord reads the first record of b into r: its length, attributes,
// timestamp and offset deltas, key and value as zigzag varints and bytes,
// then headers, which koff does not read. It returns the rest of b. (r is
// filled in place: a record returned by value was copied twice a record.)
func readRecord(b []byte, r *record) ([]byte, bool) {
	length, k, ok := varint(b, 0)
	if !ok || length < 1 || int64(len(b)-k) < length {
		return nil, false
	}
	rec, rest := b[k:k+int(length)], b[k+int(length):]
	i := 1 // attributes (unused)
	if r.timestampDelta, i, ok = varint(rec, i); !ok {
		return nil, false
	}
	if r.offsetDelta, i, ok = varint(rec, i); !ok {
		return nil, false
	}
	if r.key, i, ok = varBytes(rec, i); !ok {
		return nil, false
	}
	if r.value, i, ok = varBytes(rec, i); !ok {
		return nil, false
	}
	r.koff = false
	// Connect writes no headers; koff's edits carry KoffHeader.
	if n, j, ok := varint(rec, i); ok && n > 0 {
		for range n {
			var k []byte
			if k, j, ok = varBytes(rec, j); !ok {
				break
			}
			if _, j, ok = varBytes(rec, j); !ok {
				break
			}
			r.koff = r.koff || string(k) == KoffHeader
		}
	}
	return rest, true
}

// varint reads the zigzag varint at b[i], and returns the index after it.
// Most of a record's are one or two bytes (deltas within a batch, lengths
// of records and keys): read inline.
func varint(b []byte, i int) (int64, int, bool) {
	if i >= len(b) {
		return 0, i, false
	}
	x := int64(b[i])
	if x < 0x80 {
		return x>>1 ^ -(x & 1), i + 1, true
	}
	if i+1 < len(b) && b[i+1] < 0x80 {
		x = x&0x7f | int64(b[i+1])<<7
		return x>>1 ^ -(x & 1), i + 2, true
	}
	v, k := binary.Varint(b[i:])
	return v, i + k, k > 0
}

// varBytes reads a varint length and that many bytes: nil for -1, empty
// but not nil for 0.
func varBytes(b []byte, i int) ([]byte, int, bool) {
	n, i, ok := varint(b, i)
	switch {
	case !ok || n < -1 || n > int64(len(b)-i):
		return nil, i, false
	case n == -1:
		return nil, i, true
	}
	return b[i : i+int(n) : i+int(n)], i + int(n), true
}

// decodeRecordSet is decode for record batches kafka-go decoded (the old
// message format).
func (d *decoder) decodeRecordSet(tp model.TopicPartition, pos int64, abortedTxns []fetchAPI.ResponseTransaction, rs *protocol.RecordSet, emit func([]store.Record)) (int, int64) {
	next := pos
	aborted := append([]fetchAPI.ResponseTransaction(nil), abortedTxns...)
	sort.Slice(aborted, func(i, j int) bool { return aborted[i].FirstOffset < aborted[j].FirstOffset })
	abortedPIDs := map[int64]bool{}

	var readers []protocol.RecordReader
	switch rs := rs.Records.(type) {
	case nil:
	case *protocol.RecordStream:
		readers = rs.Records
	default:
		readers = []protocol.RecordReader{rs}
	}
	n := 0
	d.recs, d.keys = d.recs[:0], d.keys[:0]
	if d.keys == nil {
		d.keys = make([]byte, 0, 64<<10) // non-nil: an empty key stays non-nil
	}
	flush := func() { n += d.emit(emit) }
	for _, r := range readers {
		skip := false
		switch b := r.(type) {
		case *protocol.ControlBatch:
			// A commit or abort marker ends the producer's transaction.
			delete(abortedPIDs, b.ProducerID)
			skip = true
		case *protocol.RecordBatch:
			for len(aborted) > 0 && aborted[0].FirstOffset <= b.BaseOffset {
				abortedPIDs[aborted[0].ProducerID] = true
				aborted = aborted[1:]
			}
			skip = b.Attributes.Transactional() && abortedPIDs[b.ProducerID]
		}
		for {
			rec, err := r.ReadRecord()
			if err != nil {
				break // io.EOF, or a batch truncated by MaxBytes: fetched again next time
			}
			if rec.Offset < pos || skip {
				closeBytes(rec.Key)
				closeBytes(rec.Value)
				if rec.Offset >= pos {
					next = rec.Offset + 1
				}
				continue
			}
			var key []byte
			if rec.Key != nil {
				at := len(d.keys)
				d.keys = readInto(d.keys, rec.Key)
				// Earlier keys stay valid if d.keys moves as it grows.
				key = d.keys[at:len(d.keys):len(d.keys)]
			}
			var value []byte
			if rec.Value != nil {
				value = readInto(make([]byte, 0, rec.Value.Len()), rec.Value)
			}
			closeBytes(rec.Key)
			closeBytes(rec.Value)
			next = rec.Offset + 1
			d.room()
			d.recs = append(d.recs, store.Record{
				Topic:     tp.Topic,
				Partition: tp.Partition,
				Offset:    rec.Offset,
				Key:       key,
				Value:     value,
				Time:      rec.Time,
			})
			if len(d.recs) >= d.chunk() {
				flush()
			}
		}
	}
	flush()
	return n, next
}

// readInto appends the rest of b to dst.
func readInto(dst []byte, b protocol.Bytes) []byte {
	n := b.Len()
	dst = slices.Grow(dst, n)
	m, _ := io.ReadFull(b, dst[len(dst):len(dst)+n])
	return dst[:len(dst)+m]
}

func closeBytes(b protocol.Bytes) {
	if b != nil {
		b.Close()
	}
}
