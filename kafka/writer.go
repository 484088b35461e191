package kafka

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	metadataAPI "github.com/segmentio/kafka-go/protocol/metadata"

	"koff/model"
	"koff/model/store"
)

// WriteRecords produces records to the exact topic-partitions they name,
// with acks=all. Connect's worker finds offsets by key bytes within a
// partition, so the caller picks the partition; no partitioner is involved.
// Records of one topic-partition go in one request, in order, and the
// requests go in SortTopicPartitions order.
func (c Config) WriteRecords(ctx context.Context, recs []store.Record) error {
	groups, order := GroupByPartition(recs)
	for _, tp := range order {
		if _, err := c.ProduceBatch(ctx, tp, groups[tp]); err != nil {
			return err
		}
	}
	return nil
}

// GroupByPartition splits records by topic-partition, keeping their order
// within each, and returns the topic-partitions in SortTopicPartitions order.
func GroupByPartition(recs []store.Record) (map[model.TopicPartition][]store.Record, []model.TopicPartition) {
	groups := map[model.TopicPartition][]store.Record{}
	var order []model.TopicPartition
	for _, r := range recs {
		tp := model.TopicPartition{Topic: r.Topic, Partition: r.Partition}
		if _, ok := groups[tp]; !ok {
			order = append(order, tp)
		}
		groups[tp] = append(groups[tp], r)
	}
	SortTopicPartitions(order)
	return groups, order
}

// SortTopicPartitions is the fixed order writes go in: by topic, then by
// partition number.
func SortTopicPartitions(tps []model.TopicPartition) {
	sort.SliceStable(tps, func(i, j int) bool {
		if tps[i].Topic != tps[j].Topic {
			return tps[i].Topic < tps[j].Topic
		}
		return tps[i].Partition < tps[j].Partition
	})
}

// KoffHeader marks the records koff's edits write to an offsets topic, so
// that every koff reading the topic tells them from the connector's own
// commits (they are no flushes). Connect's worker reads only a record's key
// and value (KafkaOffsetBackingStore.consumedCallback), and writes no
// headers itself.
const KoffHeader = "koff"

var koffHeaders = []kafkago.Header{{Key: KoffHeader, Value: []byte("edit")}}

// ProduceBatch writes records to one topic-partition in one produce request
// (acks=all) and returns the offset of the first. Kafka appends a batch
// atomically: on error either the whole batch is in the log or none of it,
// and the error (a *RequestError) says whether it provably is not.
func (c Config) ProduceBatch(ctx context.Context, tp model.TopicPartition, recs []store.Record) (int64, error) {
	client := c.Client()
	defer client.Transport.(*kafkago.Transport).CloseIdleConnections()
	krs := make([]kafkago.Record, 0, len(recs))
	for _, r := range recs {
		kr := kafkago.Record{Key: kafkago.NewBytes(r.Key), Time: r.Time, Headers: koffHeaders}
		if r.Time.IsZero() {
			kr.Time = time.Now()
		}
		if r.Value != nil {
			kr.Value = kafkago.NewBytes(r.Value)
		}
		krs = append(krs, kr)
	}
	res, err := client.Produce(ctx, &kafkago.ProduceRequest{
		Topic: tp.Topic, Partition: tp.Partition, RequiredAcks: kafkago.RequireAll,
		Records: kafkago.NewRecordReader(krs...),
	})
	if err == nil {
		err = res.Error
	}
	if err != nil {
		return -1, &RequestError{msg: fmt.Sprintf("write to %s: %s", tp, c.Describe(err)), err: err, notApplied: produceNotApplied(err)}
	}
	return res.BaseOffset, nil
}

// ReadRecords reads one topic-partition from offset from to its last
// stable offset at the time of the call, read_committed as a worker reads
// its offsets topic (an exactly-once worker writes it in transactions:
// records of aborted transactions and the markers are no offsets), and
// returns the records and that end. Tombstones have a nil Value. It is how
// an edit looks for another writer's record of the same key, and how an
// interrupted edit is reconciled with what reached the log.
func (c Config) ReadRecords(ctx context.Context, tp model.TopicPartition, from int64) ([]store.Record, int64, error) {
	client := c.Client()
	defer client.Transport.(*kafkago.Transport).CloseIdleConnections()
	ends, err := listOffsets(ctx, client, []model.TopicPartition{tp}, kafkago.LastOffset, kafkago.ReadCommitted)
	if err != nil {
		return nil, 0, err
	}
	end := ends[tp]
	tr := c.transport()
	defer tr.CloseIdleConnections()
	var out []store.Record
	var d decoder
	pos := max(from, 0)
	for pos < end {
		p, err := c.fetchCommitted(ctx, tr, tp, pos, &d)
		if err == nil && p.ErrorCode != 0 {
			if e := kafkago.Error(p.ErrorCode); errors.Is(e, kafkago.OffsetOutOfRange) && p.LogStartOffset > pos {
				pos = p.LogStartOffset // compacted or deleted below: nothing to see there
				continue
			}
			err = kafkago.Error(p.ErrorCode)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("read %s from %d: %s", tp, pos, c.Describe(err))
		}
		_, next := d.decode(tp, pos, p, func(recs []store.Record) {
			for _, r := range recs {
				if r.Offset < end {
					if r.Key != nil { // decode reuses its key buffer: keep a copy
						r.Key = append([]byte{}, r.Key...)
					}
					out = append(out, r)
				}
			}
		})
		if next <= pos {
			break // nothing more below the last stable offset
		}
		pos = next
	}
	return out, end, nil
}

// PartitionCount returns how many partitions a topic has, without ever
// creating it.
func (c Config) PartitionCount(ctx context.Context, topic string) (int, error) {
	tr := c.transport()
	defer tr.CloseIdleConnections()
	m, err := tr.RoundTrip(ctx, c.addr(), &metadataAPI.Request{TopicNames: []string{topic}})
	if err != nil {
		return 0, fmt.Errorf("read metadata of %s: %s", topic, c.Describe(err))
	}
	for _, t := range m.(*metadataAPI.Response).Topics {
		if t.Name != topic {
			continue
		}
		if t.ErrorCode != 0 {
			return 0, fmt.Errorf("topic %s: %s", topic, kafkago.Error(t.ErrorCode).Title())
		}
		return len(t.Partitions), nil
	}
	return 0, fmt.Errorf("topic %s does not exist", topic)
}
