package kafka

import (
	"context"
	"errors"
	"fmt"
	"sort"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol/offsetcommit"

	"koff/kafka/security"
	"koff/model"
)

// CommitGroupOffsets commits offsets for a consumer group from outside it
// (generation -1), as kafka-consumer-groups.sh --reset-offsets does. Kafka
// accepts this only while the group has no members.
//
// Each offset goes with leader epoch -1, "none", as Connect's REST API and
// kafka-consumer-groups send it. kafka-go's Client.OffsetCommit has no epoch
// field and sends 0: a consumer then checks its position against epoch 0
// (SubscriptionState's validation, OffsetsForLeaderEpoch) and, on a partition
// whose epoch moved since, finds it "truncated" and rewinds to where epoch 0
// ended. So the request is built here and sent through the client's
// Transport, which finds the group's coordinator with its TLS and SASL.
func (c Config) CommitGroupOffsets(ctx context.Context, group string, offsets map[model.TopicPartition]int64) error {
	client := c.Client()
	defer client.Transport.(*kafkago.Transport).CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, client.Timeout)
	defer cancel()
	m, err := client.Transport.RoundTrip(ctx, client.Addr, offsetCommitRequest(group, offsets))
	if err != nil {
		return commitErr(group, err)
	}
	for _, t := range m.(*offsetcommit.Response).Topics {
		for _, p := range t.Partitions {
			if p.ErrorCode != 0 {
				return commitErr(group, fmt.Errorf("%s/%d: %w", t.Name, p.PartitionIndex, kafkago.Error(p.ErrorCode)))
			}
		}
	}
	return nil
}

// offsetCommitRequest is Admin#alterConsumerGroupOffsets' request: no
// member, generation -1, no leader epoch, and (before v5) the broker's own
// retention.
func offsetCommitRequest(group string, offsets map[model.TopicPartition]int64) *offsetcommit.Request {
	req := &offsetcommit.Request{GroupID: group, GenerationID: -1, RetentionTimeMs: -1}
	for _, tp := range sortedTPs(offsets) {
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Name != tp.Topic {
			req.Topics = append(req.Topics, offsetcommit.RequestTopic{Name: tp.Topic})
		}
		t := &req.Topics[len(req.Topics)-1]
		t.Partitions = append(t.Partitions, offsetcommit.RequestPartition{
			PartitionIndex: int32(tp.Partition), CommittedOffset: offsets[tp], CommittedLeaderEpoch: -1, CommitTimestamp: -1,
		})
	}
	return req
}

// commitErr is groupErr for a commit or a deletion of offsets, saying
// whether it can have taken effect.
func commitErr(group string, err error) error {
	ge := groupErr(group, err)
	return &RequestError{msg: ge.Error(), err: err, notApplied: commitNotApplied(err)}
}

// DeleteGroupOffsets deletes a group's committed offsets for some
// partitions (OffsetDelete, Kafka 2.4+).
func (c Config) DeleteGroupOffsets(ctx context.Context, group string, tps []model.TopicPartition) error {
	client := c.Client()
	defer client.Transport.(*kafkago.Transport).CloseIdleConnections()
	req := &kafkago.OffsetDeleteRequest{GroupID: group, Topics: map[string][]int{}}
	for _, tp := range tps {
		req.Topics[tp.Topic] = append(req.Topics[tp.Topic], tp.Partition)
	}
	res, err := client.OffsetDelete(ctx, req)
	if err == nil {
		err = res.Error
	}
	if err != nil {
		return commitErr(group, err)
	}
	for topic, parts := range res.Topics {
		for _, p := range parts {
			if p.Error != nil {
				return commitErr(group, fmt.Errorf("%s/%d: %w", topic, p.Partition, p.Error))
			}
		}
	}
	return nil
}

// DeleteGroup deletes a consumer group and its offsets; a group that does
// not exist counts as deleted, as Connect's sink reset treats it.
func (c Config) DeleteGroup(ctx context.Context, group string) error {
	client := c.Client()
	defer client.Transport.(*kafkago.Transport).CloseIdleConnections()
	res, err := client.DeleteGroups(ctx, &kafkago.DeleteGroupsRequest{GroupIDs: []string{group}})
	if err == nil {
		err = res.Errors[group]
	}
	if errors.Is(err, kafkago.GroupIdNotFound) {
		return nil
	}
	if err != nil {
		return commitErr(group, err)
	}
	return nil
}

// groupErr says in one line why Kafka refused, naming the usual cause.
func groupErr(group string, err error) error {
	switch {
	case errors.Is(err, kafkago.UnknownMemberId), errors.Is(err, kafkago.IllegalGeneration),
		errors.Is(err, kafkago.NonEmptyGroup), errors.Is(err, kafkago.RebalanceInProgress):
		return fmt.Errorf("group %s still has active members, and Kafka changes a group's offsets from outside only when it has none: stop the connector first (%s)", group, security.Describe(err))
	}
	return fmt.Errorf("group %s: %s", group, security.Describe(err))
}

func sortedTPs(m map[model.TopicPartition]int64) []model.TopicPartition {
	out := make([]model.TopicPartition, 0, len(m))
	for tp := range m {
		out = append(out, tp)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Topic != out[j].Topic {
			return out[i].Topic < out[j].Topic
		}
		return out[i].Partition < out[j].Partition
	})
	return out
}
