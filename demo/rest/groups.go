package rest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The consumer-group requests Connect's worker makes through its Admin
// client for sink connectors' offsets, as plain Kafka requests. Errors are
// the broker's (kerr), so callers can tell UNKNOWN_MEMBER_ID and friends
// apart as Connect does.

// topicPartition names one partition of a topic.
type topicPartition struct {
	topic     string
	partition int32
}

// groupOffset is one committed offset of a group: the next offset to consume.
type groupOffset struct {
	topicPartition
	offset int64
}

// fetchGroupOffsets is Admin#listConsumerGroupOffsets(group): every
// partition the group has committed an offset for, sorted. A group that
// does not exist has none: Kafka answers that without an error, kfake with
// GROUP_ID_NOT_FOUND.
func fetchGroupOffsets(ctx context.Context, cl *kgo.Client, group string) ([]groupOffset, error) {
	req := kmsg.NewPtrOffsetFetchRequest()
	g := kmsg.NewOffsetFetchRequestGroup()
	g.Group = group // Topics nil: all of them
	req.Groups = append(req.Groups, g)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	var out []groupOffset
	for _, rg := range resp.Groups {
		if err := kerr.ErrorForCode(rg.ErrorCode); errors.Is(err, kerr.GroupIDNotFound) {
			continue
		} else if err != nil {
			return nil, err
		}
		for _, t := range rg.Topics {
			for _, p := range t.Partitions {
				if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
					return nil, fmt.Errorf("%s[%d]: %w", t.Topic, p.Partition, err)
				}
				if p.Offset >= 0 {
					out = append(out, groupOffset{topicPartition{t.Topic, p.Partition}, p.Offset})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b groupOffset) int {
		return cmp.Or(cmp.Compare(a.topic, b.topic), cmp.Compare(a.partition, b.partition))
	})
	return out, nil
}

// commitGroupOffsets is Admin#alterConsumerGroupOffsets: an OffsetCommit
// from outside the group (generation -1, no member id), which the broker
// refuses with UNKNOWN_MEMBER_ID while the group has members.
func commitGroupOffsets(ctx context.Context, cl *kgo.Client, group string, offsets []groupOffset) error {
	ids, err := topicIDs(ctx, cl, offsets)
	if err != nil {
		return err
	}
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group = group
	req.Generation = -1
	for _, o := range offsets {
		t := kmsg.NewOffsetCommitRequestTopic()
		t.Topic = o.topic
		t.TopicID = ids[o.topic] // OffsetCommit v10+ names topics by id
		p := kmsg.NewOffsetCommitRequestTopicPartition()
		p.Partition = o.partition
		p.Offset = o.offset
		p.LeaderEpoch = -1
		t.Partitions = append(t.Partitions, p)
		req.Topics = append(req.Topics, t)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	return CommitError(resp)
}

// CommitError is the first partition error of an OffsetCommit response,
// as Admin reports it (and as the demo's sink tasks log their commits').
func CommitError(resp *kmsg.OffsetCommitResponse) error {
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return err
			}
		}
	}
	return nil
}

// topicIDs looks up the ids of the topics of some offsets; a topic the
// broker does not know has none, and the commit then fails for it as an
// unknown topic does.
func topicIDs(ctx context.Context, cl *kgo.Client, offsets []groupOffset) (map[string][16]byte, error) {
	req := kmsg.NewPtrMetadataRequest()
	seen := map[string]bool{}
	for _, o := range offsets {
		if !seen[o.topic] {
			seen[o.topic] = true
			t := kmsg.NewMetadataRequestTopic()
			t.Topic = kmsg.StringPtr(o.topic)
			req.Topics = append(req.Topics, t)
		}
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	ids := map[string][16]byte{}
	for _, t := range resp.Topics {
		if t.Topic != nil && t.ErrorCode == 0 {
			ids[*t.Topic] = t.TopicID
		}
	}
	return ids, nil
}

// deleteGroupOffsets is Admin#deleteConsumerGroupOffsets: refused with
// GROUP_SUBSCRIBED_TO_TOPIC for topics a member of the group consumes.
func deleteGroupOffsets(ctx context.Context, cl *kgo.Client, group string, parts []topicPartition) error {
	req := kmsg.NewPtrOffsetDeleteRequest()
	req.Group = group
	for _, tp := range parts {
		t := kmsg.NewOffsetDeleteRequestTopic()
		t.Topic = tp.topic
		p := kmsg.NewOffsetDeleteRequestTopicPartition()
		p.Partition = tp.partition
		t.Partitions = append(t.Partitions, p)
		req.Topics = append(req.Topics, t)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return err
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteGroup is Admin#deleteConsumerGroups for one group: NON_EMPTY_GROUP
// while it has members, GROUP_ID_NOT_FOUND when there is none.
func deleteGroup(ctx context.Context, cl *kgo.Client, group string) error {
	req := kmsg.NewPtrDeleteGroupsRequest()
	req.Groups = []string{group}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	for _, g := range resp.Groups {
		if err := kerr.ErrorForCode(g.ErrorCode); err != nil {
			return err
		}
	}
	return nil
}
