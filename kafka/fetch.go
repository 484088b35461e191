package kafka

import (
	"context"
	"sort"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	fetchAPI "github.com/segmentio/kafka-go/protocol/fetch"

	"koff/model"
)

const fetchMaxBytes = 4 << 20

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
	m, err := t.tr.RoundTrip(rctx, t.cfg.addr(), &fetchAPI.Request{
		ReplicaID:      -1,
		MaxWaitTime:    int32(wait / time.Millisecond),
		MinBytes:       1,
		MaxBytes:       fetchMaxBytes,
		IsolationLevel: int8(kafkago.ReadCommitted),
		SessionID:      -1,
		SessionEpoch:   -1,
		Topics: []fetchAPI.RequestTopic{{
			Topic: tp.Topic,
			Partitions: []fetchAPI.RequestPartition{{
				Partition:          int32(tp.Partition),
				CurrentLeaderEpoch: -1,
				FetchOffset:        pos,
				LogStartOffset:     -1,
				PartitionMaxBytes:  fetchMaxBytes,
			}},
		}},
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
			p := &res.Topics[i].Partitions[j]
			if res.Topics[i].Topic == tp.Topic && int(p.Partition) == tp.Partition {
				if p.ErrorCode != 0 {
					return nil, kafkago.Error(p.ErrorCode)
				}
				return p, nil
			}
		}
	}
	return nil, protocol.ErrNoPartition
}

// decode turns a fetched partition into records at or after pos, dropping
// control batches and the records of aborted transactions, and returns the
// offset to fetch next.
func decode(tp model.TopicPartition, pos int64, p *fetchAPI.ResponsePartition) ([]model.Record, int64) {
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
	var out []model.Record
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
			key, _ := protocol.ReadAll(rec.Key)
			value, _ := protocol.ReadAll(rec.Value)
			closeBytes(rec.Key)
			closeBytes(rec.Value)
			if rec.Offset < pos {
				continue
			}
			next = rec.Offset + 1
			if skip {
				continue
			}
			out = append(out, model.Record{
				Topic:     tp.Topic,
				Partition: tp.Partition,
				Offset:    rec.Offset,
				Key:       key,
				Value:     value,
				Time:      rec.Time,
			})
		}
	}
	return out, next
}

func closeBytes(b protocol.Bytes) {
	if b != nil {
		b.Close()
	}
}
