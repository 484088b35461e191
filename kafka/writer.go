package kafka

import (
	"context"
	"fmt"
	"sort"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	metadataAPI "github.com/segmentio/kafka-go/protocol/metadata"

	"koff/model"
)

// WriteRecords produces records to the exact topic-partitions they name,
// with acks=all. Connect's worker finds offsets by key bytes within a
// partition, so the caller picks the partition; no partitioner is involved.
// Records of one topic-partition go in one request, in order.
func (c Config) WriteRecords(ctx context.Context, recs []model.Record) error {
	client := c.Client()
	defer client.Transport.(*kafkago.Transport).CloseIdleConnections()
	groups := map[model.TopicPartition][]kafkago.Record{}
	var order []model.TopicPartition
	for _, r := range recs {
		tp := model.TopicPartition{Topic: r.Topic, Partition: r.Partition}
		if _, ok := groups[tp]; !ok {
			order = append(order, tp)
		}
		kr := kafkago.Record{Key: kafkago.NewBytes(r.Key), Time: r.Time}
		if r.Time.IsZero() {
			kr.Time = time.Now()
		}
		if r.Value != nil {
			kr.Value = kafkago.NewBytes(r.Value)
		}
		groups[tp] = append(groups[tp], kr)
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].String() < order[j].String() })
	for _, tp := range order {
		res, err := client.Produce(ctx, &kafkago.ProduceRequest{
			Topic: tp.Topic, Partition: tp.Partition, RequiredAcks: kafkago.RequireAll,
			Records: kafkago.NewRecordReader(groups[tp]...),
		})
		if err == nil {
			err = res.Error
		}
		if err != nil {
			return fmt.Errorf("write to %s: %s", tp, c.Describe(err))
		}
	}
	return nil
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
