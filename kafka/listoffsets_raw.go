package kafka

import (
	"context"
	"fmt"
	"io"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/segmentio/kafka-go/protocol/listoffsets"
	metadataAPI "github.com/segmentio/kafka-go/protocol/metadata"

	"koff/model"
)

// kafka-go splits every ListOffsets into one request per partition: 100
// requests to learn the ends of 50 partitions. A broker takes all of its
// partitions in one request (each partition once), so leaderListOffsets
// sends one request per partition leader, encoded and decoded by kafka-go
// but kept whole.
type leaderListOffsets struct {
	req      listoffsets.Request
	leader   int32
	version  int16
	clientID string
	res      *listoffsets.Response
}

func (r *leaderListOffsets) ApiKey() protocol.ApiKey { return protocol.ListOffsets }

func (r *leaderListOffsets) Broker(c protocol.Cluster) (protocol.Broker, error) {
	if b, ok := c.Brokers[r.leader]; ok {
		return b, nil
	}
	return protocol.Broker{}, fmt.Errorf("partition leader %d is not in the cluster's metadata", r.leader)
}

func (r *leaderListOffsets) Required(versions map[protocol.ApiKey]int16) bool {
	r.version = min(versions[protocol.ListOffsets], 5) // kafka-go knows v1 to v5
	return true
}

func (r *leaderListOffsets) RawExchange(rw io.ReadWriter) (protocol.Message, error) {
	if r.version < 2 {
		return nil, fmt.Errorf("the broker answers ListOffsets only up to v%d; koff needs v2 (Kafka 0.11)", r.version)
	}
	id := correlationIDs.Add(1)
	if err := protocol.WriteRequest(rw, r.version, id, r.clientID, &r.req); err != nil {
		return nil, err
	}
	got, m, err := protocol.ReadResponse(rw, protocol.ListOffsets, r.version)
	if err != nil {
		return nil, err
	}
	if got != id {
		return nil, fmt.Errorf("ListOffsets response with correlation id %d, want %d", got, id)
	}
	r.res = m.(*listoffsets.Response)
	return r, nil
}

// leaderOffsets is the log start (kafkago.FirstOffset) or end
// (kafkago.LastOffset) offset of each partition, one request per leader.
func leaderOffsets(ctx context.Context, c *kafkago.Client, tps []model.TopicPartition, at int64, iso kafkago.IsolationLevel) (map[model.TopicPartition]int64, error) {
	topics := []string{}
	seen := map[string]bool{}
	for _, tp := range tps {
		if !seen[tp.Topic] {
			seen[tp.Topic] = true
			topics = append(topics, tp.Topic)
		}
	}
	m, err := c.Transport.RoundTrip(ctx, c.Addr, &metadataAPI.Request{TopicNames: topics})
	if err != nil {
		return nil, err
	}
	leaders := map[model.TopicPartition]int32{}
	for _, t := range m.(*metadataAPI.Response).Topics {
		if t.ErrorCode != 0 {
			return nil, fmt.Errorf("topic %s: %s", t.Name, kafkago.Error(t.ErrorCode).Title())
		}
		for _, p := range t.Partitions {
			leaders[model.TopicPartition{Topic: t.Name, Partition: int(p.PartitionIndex)}] = p.LeaderID
		}
	}
	byLeader := map[int32]map[string][]listoffsets.RequestPartition{}
	for _, tp := range tps {
		l, ok := leaders[tp]
		if !ok {
			return nil, fmt.Errorf("%s: no such partition", tp)
		}
		if byLeader[l] == nil {
			byLeader[l] = map[string][]listoffsets.RequestPartition{}
		}
		byLeader[l][tp.Topic] = append(byLeader[l][tp.Topic], listoffsets.RequestPartition{Partition: int32(tp.Partition), CurrentLeaderEpoch: -1, Timestamp: at})
	}
	clientID := c.Transport.(*kafkago.Transport).ClientID
	out := make(map[model.TopicPartition]int64, len(tps))
	for leader, parts := range byLeader {
		r := &leaderListOffsets{leader: leader, clientID: clientID, req: listoffsets.Request{ReplicaID: -1, IsolationLevel: int8(iso)}}
		for t, ps := range parts {
			r.req.Topics = append(r.req.Topics, listoffsets.RequestTopic{Topic: t, Partitions: ps})
		}
		m, err := c.Transport.RoundTrip(ctx, c.Addr, r)
		if err != nil {
			return nil, err
		}
		for _, t := range m.(*leaderListOffsets).res.Topics {
			for _, p := range t.Partitions {
				if p.ErrorCode != 0 {
					return nil, fmt.Errorf("%s/%d: %w", t.Topic, p.Partition, kafkago.Error(p.ErrorCode))
				}
				out[model.TopicPartition{Topic: t.Topic, Partition: int(p.Partition)}] = p.Offset
			}
		}
	}
	for _, tp := range tps {
		if _, ok := out[tp]; !ok {
			return nil, fmt.Errorf("%s: not in the broker's answer", tp)
		}
	}
	return out, nil
}
