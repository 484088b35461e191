package kafka

import (
	"context"
	"io"
	"net"
	"slices"
	"sort"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	fetchAPI "github.com/segmentio/kafka-go/protocol/fetch"

	"koff/model"
)

// fetchMaxBytes caps one fetch (librdkafka's max.partition.fetch.bytes):
// every partition of the offsets topic is fetched at once while catching
// up, so this times 25 is what is in flight; 4 MB made a 1M-record load
// peak at 370-440 MB RSS, 1 MB at 230 MB, for the same CPU time.
const fetchMaxBytes = 1 << 20

// fetch asks the partition leader for records from pos. kafka-go's
// Client.Fetch drops the aborted-transaction list a read_committed consumer
// needs, so koff sends the protocol request itself.
func (t *Tailer) fetch(ctx context.Context, tp model.TopicPartition, pos int64) (*fetchAPI.ResponsePartition, error) {
	wait := t.opts.MaxWait
	t.mu.Lock()
	if ps := t.parts[tp]; ps != nil && ps.pos < ps.target {
		wait = 50 * time.Millisecond // catching up: data is there already
	}
	t.mu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, wait+10*time.Second)
	defer cancel()
	p, err := fetchPartition(rctx, t.tr, t.cfg.addr(), tp, pos, wait, 1)
	if err != nil {
		return nil, err
	}
	if p.ErrorCode != 0 {
		return nil, kafkago.Error(p.ErrorCode)
	}
	return p, nil
}

// fetchPartition sends one read_committed fetch of one partition from pos
// and returns that partition's answer, whatever its error code.
func fetchPartition(ctx context.Context, tr *kafkago.Transport, addr net.Addr, tp model.TopicPartition, pos int64, wait time.Duration, minBytes int32) (*fetchAPI.ResponsePartition, error) {
	m, err := tr.RoundTrip(ctx, addr, &fetchAPI.Request{
		ReplicaID: -1, MaxWaitTime: int32(wait / time.Millisecond), MinBytes: minBytes, MaxBytes: fetchMaxBytes,
		IsolationLevel: int8(kafkago.ReadCommitted), SessionID: -1, SessionEpoch: -1,
		Topics: []fetchAPI.RequestTopic{{Topic: tp.Topic, Partitions: []fetchAPI.RequestPartition{{
			Partition: int32(tp.Partition), CurrentLeaderEpoch: -1, FetchOffset: pos,
			LogStartOffset: -1, PartitionMaxBytes: fetchMaxBytes,
		}}}},
	})
	if err != nil {
		return nil, err
	}
	res := m.(*fetchAPI.Response)
	if res.ErrorCode != 0 {
		return nil, kafkago.Error(res.ErrorCode)
	}
	for i := range res.Topics {
		for j := range res.Topics[i].Partitions {
			if p := &res.Topics[i].Partitions[j]; res.Topics[i].Topic == tp.Topic && int(p.Partition) == tp.Partition {
				return p, nil
			}
		}
	}
	return nil, protocol.ErrNoPartition
}

// fetchCommitted fetches one partition from pos read_committed, without
// waiting, through tr: for reads outside the Tailer (an edit's read-back,
// counting records). decode then drops control batches and aborted records.
func (c Config) fetchCommitted(ctx context.Context, tr *kafkago.Transport, tp model.TopicPartition, pos int64) (*fetchAPI.ResponsePartition, error) {
	return fetchPartition(ctx, tr, c.addr(), tp, pos, 0, 0)
}

// decodeChunk is how many records decode hands on at once: enough to take
// the Store's lock rarely, few enough that a 4 MB fetch is never held
// decoded all at once.
const decodeChunk = 1024

// decoder turns fetched record sets into model.Records, reusing its
// buffers from one fetch to the next: one per partition reader.
type decoder struct {
	recs []model.Record
	keys []byte // the chunk's keys, back to back (the Store copies the keys it keeps)
}

// decode hands the records at or after pos of a fetched partition to emit,
// in chunks, dropping control batches and the records of aborted
// transactions, and returns how many it handed on and the offset to fetch
// next. A chunk's slices are reused once emit returns; values are
// allocated one by one, since the Store keeps them.
func (d *decoder) decode(tp model.TopicPartition, pos int64, p *fetchAPI.ResponsePartition, emit func([]model.Record)) (int, int64) {
	next := pos
	aborted := append([]fetchAPI.ResponseTransaction(nil), p.AbortedTransactions...)
	sort.Slice(aborted, func(i, j int) bool { return aborted[i].FirstOffset < aborted[j].FirstOffset })
	abortedPIDs := map[int64]bool{}

	var readers []protocol.RecordReader
	switch rs := p.RecordSet.Records.(type) {
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
	flush := func() {
		if len(d.recs) == 0 {
			return
		}
		emit(d.recs)
		n += len(d.recs)
		clear(d.recs) // drop the values: the Store has them now
		d.recs, d.keys = d.recs[:0], d.keys[:0]
	}
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
			d.recs = append(d.recs, model.Record{
				Topic:     tp.Topic,
				Partition: tp.Partition,
				Offset:    rec.Offset,
				Key:       key,
				Value:     value,
				Time:      rec.Time,
			})
			if len(d.recs) == decodeChunk {
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
