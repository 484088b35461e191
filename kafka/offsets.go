package kafka

import (
	"context"
	"fmt"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/model"
)

// listOffsets asks for one kind of offset (kafkago.FirstOffset,
// kafkago.LastOffset, or a timestamp in ms) of many partitions in one
// request, which kafka-go splits per partition leader. Each kind gets its
// own request: brokers reject a partition listed twice in one.
func listOffsets(ctx context.Context, c *kafkago.Client, tps []model.TopicPartition, at int64, iso kafkago.IsolationLevel) (map[model.TopicPartition]int64, error) {
	out := make(map[model.TopicPartition]int64, len(tps))
	if len(tps) == 0 {
		return out, nil
	}
	if at == kafkago.FirstOffset || at == kafkago.LastOffset {
		return leaderOffsets(ctx, c, tps, at, iso)
	}
	req := &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{}, IsolationLevel: iso}
	for _, tp := range tps {
		req.Topics[tp.Topic] = append(req.Topics[tp.Topic], kafkago.OffsetRequest{Partition: tp.Partition, Timestamp: at})
	}
	res, err := c.ListOffsets(ctx, req)
	if err != nil {
		return nil, err
	}
	for topic, parts := range res.Topics {
		for _, p := range parts {
			if p.Error != nil {
				return nil, fmt.Errorf("%s/%d: %w", topic, p.Partition, p.Error)
			}
			tp := model.TopicPartition{Topic: topic, Partition: p.Partition}
			switch at {
			case kafkago.FirstOffset:
				out[tp] = p.FirstOffset
			case kafkago.LastOffset:
				out[tp] = p.LastOffset
			default:
				// By timestamp: the earliest offset at or after it, or -1
				// when every record is older (then the end offset applies).
				out[tp] = -1
				for off := range p.Offsets {
					if out[tp] < 0 || off < out[tp] {
						out[tp] = off
					}
				}
				if out[tp] < 0 && p.LastOffset >= 0 {
					out[tp] = p.LastOffset
				}
			}
		}
	}
	return out, nil
}

// OffsetsAt returns, for each partition, the first offset whose record is
// at or after t, or the end offset when all records are older.
func (c Config) OffsetsAt(ctx context.Context, tps []model.TopicPartition, t time.Time) (map[model.TopicPartition]int64, error) {
	client := c.Client()
	defer client.Transport.(*kafkago.Transport).CloseIdleConnections()
	byTime, err := listOffsets(ctx, client, tps, t.UnixMilli(), kafkago.ReadUncommitted)
	if err != nil {
		return nil, err
	}
	var missing []model.TopicPartition
	for _, tp := range tps {
		if byTime[tp] < 0 {
			missing = append(missing, tp)
		}
	}
	if len(missing) > 0 {
		ends, err := listOffsets(ctx, client, missing, kafkago.LastOffset, kafkago.ReadUncommitted)
		if err != nil {
			return nil, err
		}
		for tp, e := range ends {
			byTime[tp] = e
		}
	}
	return byTime, nil
}

// LogBounds returns each partition's log start and log-end offsets.
func (c Config) LogBounds(ctx context.Context, tps []model.TopicPartition) (map[model.TopicPartition][2]int64, error) {
	client := c.Client()
	defer client.Transport.(*kafkago.Transport).CloseIdleConnections()
	starts, err := listOffsets(ctx, client, tps, kafkago.FirstOffset, kafkago.ReadUncommitted)
	if err != nil {
		return nil, err
	}
	ends, err := listOffsets(ctx, client, tps, kafkago.LastOffset, kafkago.ReadUncommitted)
	if err != nil {
		return nil, err
	}
	out := make(map[model.TopicPartition][2]int64, len(tps))
	for _, tp := range tps {
		out[tp] = [2]int64{starts[tp], ends[tp]}
	}
	return out, nil
}
