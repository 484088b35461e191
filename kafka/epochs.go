package kafka

import (
	"context"
	"fmt"
	"maps"
	"slices"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"

	"koff/model"
)

// EpochAt is a committed offset's leader epoch on a topic-partition.
type EpochAt struct {
	model.TopicPartition
	Epoch int32
}

// epochEnds asks each partition's leader where each epoch ends in its log
// (OffsetForLeaderEpoch, as a consumer asks it to validate a committed
// position: SubscriptionState.maybeCompleteValidation): the offset after
// the epoch's last record, the log end for the current epoch, -1 for an
// epoch the log does not know.
func epochEnds(ctx context.Context, c *kafkago.Client, asks []EpochAt) (map[EpochAt]int64, error) {
	out := make(map[EpochAt]int64, len(asks))
	if len(asks) == 0 {
		return out, nil
	}
	clientID := c.Transport.(*kafkago.Transport).ClientID
	// kafka-go knows no OffsetForLeaderEpoch: the broker says its versions.
	av, err := c.ApiVersions(ctx, &kafkago.ApiVersionsRequest{Addr: c.Addr})
	if err == nil && av.Error != nil {
		err = av.Error
	}
	if err != nil {
		return nil, err
	}
	var brokerMax int16
	for _, k := range av.ApiKeys {
		if protocol.ApiKey(k.ApiKey) == protocol.OffsetForLeaderEpoch {
			brokerMax = int16(k.MaxVersion)
		}
	}
	if brokerMax < 2 {
		return nil, fmt.Errorf("the broker answers OffsetForLeaderEpoch only up to v%d; koff needs v2 (Kafka 2.1)", brokerMax)
	}
	var topics []string
	for _, a := range asks {
		if !slices.Contains(topics, a.Topic) {
			topics = append(topics, a.Topic)
		}
	}
	md := &rawPlainRequest{key: protocol.Metadata, minVersion: 4, maxVersion: 7, node: -1, clientID: clientID,
		encode: func(w *flexWrite, _ int16) {
			w.int32(int32(len(topics)))
			for _, t := range topics {
				w.plainString(t)
			}
			w.int8(0) // allow_auto_topic_creation
		},
		parse: parseLeaders}
	m, err := c.Transport.RoundTrip(ctx, c.Addr, md)
	if err != nil {
		return nil, err
	}
	ls := m.(*rawPlainRequest).result.(*leaders)
	// One request per leader; a partition asked for two epochs (two
	// groups) goes in a request of its own for each.
	byLeader := map[int32][][]EpochAt{}
	round := map[model.TopicPartition]int{} // the partition's next round
	for _, a := range asks {
		l := ls.of(a.TopicPartition)
		if l < 0 {
			return nil, fmt.Errorf("%s: no leader", a.TopicPartition)
		}
		i := round[a.TopicPartition]
		round[a.TopicPartition] = i + 1
		rounds := byLeader[l]
		for len(rounds) <= i {
			rounds = append(rounds, nil)
		}
		rounds[i] = append(rounds[i], a)
		byLeader[l] = rounds
	}
	for _, leader := range slices.Sorted(maps.Keys(byLeader)) {
		for _, round := range byLeader[leader] {
			if err := leaderEpochEnds(ctx, c, clientID, brokerMax, leader, round, out); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// leaderEpochEnds sends one OffsetForLeaderEpoch request (v2 or v3, as a
// consumer: replica_id -1, no current leader epoch to fence on).
func leaderEpochEnds(ctx context.Context, c *kafkago.Client, clientID string, brokerMax int16, leader int32, asks []EpochAt, out map[EpochAt]int64) error {
	byTopic := map[string][]EpochAt{}
	for _, a := range asks {
		byTopic[a.Topic] = append(byTopic[a.Topic], a)
	}
	// One epoch per partition in a request (epochEnds' rounds).
	asked := make(map[model.TopicPartition]EpochAt, len(asks))
	for _, a := range asks {
		asked[a.TopicPartition] = a
	}
	r := &rawPlainRequest{key: protocol.OffsetForLeaderEpoch, minVersion: 2, maxVersion: 3, brokerMax: brokerMax, node: leader, clientID: clientID,
		encode: func(w *flexWrite, v int16) {
			if v >= 3 {
				w.int32(-1) // replica_id: a consumer
			}
			w.int32(int32(len(byTopic)))
			for _, t := range slices.Sorted(maps.Keys(byTopic)) {
				w.plainString(t)
				w.int32(int32(len(byTopic[t])))
				for _, a := range byTopic[t] {
					w.int32(int32(a.Partition))
					w.int32(-1) // current_leader_epoch
					w.int32(a.Epoch)
				}
			}
		},
		parse: func(r *wire, v int16) any {
			r.int32() // throttle_time_ms
			for range r.count() {
				topic := r.plainString()
				for range r.count() {
					code, p := r.int16(), r.int32()
					epoch, end := r.int32(), r.int64()
					if code != 0 {
						if r.err == nil {
							r.err = fmt.Errorf("%s/%d: %w", topic, p, kafkago.Error(code))
						}
						return nil
					}
					if a, ok := asked[model.TopicPartition{Topic: topic, Partition: int(p)}]; ok {
						if epoch < 0 {
							end = -1
						}
						out[a] = end
					}
				}
			}
			return nil
		}}
	_, err := c.Transport.RoundTrip(ctx, c.Addr, r)
	return err
}
