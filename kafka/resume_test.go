package kafka

import (
	"context"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"koff/model"
)

// The resume check asks for the logs of many topics at once: a topic the
// brokers do not have (deleted, say) is named with why, and the others
// still answer; a group poll of named groups gives each committed
// partition its log, and -1 for a partition of a topic gone.
func TestTopicBoundsNameAMissingTopicAndKeepTheOthers(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "kept", 2)
	produce(t, addr, "kept", 1, kv{key: "a", value: "1"}, kv{key: "b", value: "2"})
	c := Config{Brokers: []string{addr}}
	kept0, kept1 := model.TopicPartition{Topic: "kept", Partition: 0}, model.TopicPartition{Topic: "kept", Partition: 1}
	gone := model.TopicPartition{Topic: "gone", Partition: 0}
	bounds, bad, err := c.TopicBounds(context.Background(), []model.TopicPartition{kept0, gone, kept1, {Topic: "kept", Partition: 7}})
	if err != nil {
		t.Fatal(err)
	}
	if bounds[kept1] != [2]int64{0, 2} || bounds[kept0] != [2]int64{0, 0} {
		t.Errorf("bounds %v", bounds)
	}
	if _, ok := bounds[gone]; ok || !strings.Contains(bad.Of(gone), "Unknown Topic Or Partition") {
		t.Errorf("a missing topic: %v %q", bounds[gone], bad.Of(gone))
	}
	// A partition the topic lacks (created again with fewer) alone.
	if why := bad.Of(model.TopicPartition{Topic: "kept", Partition: 7}); !strings.Contains(why, "kept/7: no such partition") || bad.Of(kept1) != "" {
		t.Errorf("a partition the topic lacks: %q", why)
	}

	if err := c.CommitGroupOffsets(context.Background(), "connect-s", map[model.TopicPartition]int64{kept1: 1}); err != nil {
		t.Fatal(err)
	}
	logs, err := c.GroupBounds(context.Background(), []string{"connect-s", "connect-s", "connect-none"})
	if err != nil || len(logs.Polls) != 2 || len(logs.Unread) != 0 {
		t.Fatalf("GroupBounds: %v %+v", err, logs)
	}
	for _, p := range logs.Polls {
		switch p.Group {
		case "connect-s":
			if len(p.Partitions) != 1 || p.Partitions[0].Committed != 1 || p.Partitions[0].Start != 0 || p.Partitions[0].End != 2 {
				t.Errorf("connect-s: %+v", p.Partitions)
			}
		case "connect-none":
			if len(p.Partitions) != 0 {
				t.Errorf("a group with no commits: %+v", p)
			}
		}
	}
}

// A committed offset in its partition leader's current epoch is not asked
// where that epoch ends: the broker would answer the leader's log end,
// at or past the offset, so the consumer's validation passes. Asked
// anyway, the broker says so; an offset of another epoch, or one past
// the log end, is still asked.
func TestGroupBoundsAskNoEpochTheLeaderIsIn(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "orders", 3)
	for p := range 3 {
		produce(t, addr, "orders", p, kv{key: "a", value: "1"}, kv{key: "b", value: "2"}, kv{key: "c", value: "3"})
	}
	c := Config{Brokers: []string{addr}}
	// Partition 0 in the current epoch (0), 1 in an epoch the log does not
	// know, 2 in the current epoch but past the log end.
	commitWithEpochs(t, addr, "connect-s", "orders", map[int32][2]int64{0: {2, 0}, 1: {2, 7}, 2: {9, 0}})
	logs, err := c.GroupBounds(context.Background(), []string{"connect-s"})
	if err != nil || len(logs.Polls) != 1 || len(logs.Polls[0].Partitions) != 3 {
		t.Fatalf("GroupBounds: %v %+v", err, logs)
	}
	var asks []EpochAt
	for _, gp := range logs.Polls[0].Partitions {
		if gp.LeaderEpochNow != 0 {
			t.Errorf("%s: the leader's epoch %d, want 0 (Metadata v7)", gp.TopicPartition, gp.LeaderEpochNow)
		}
		at := EpochAt{gp.TopicPartition, gp.LeaderEpoch}
		_, asked := logs.EpochEnds[at]
		if want := gp.Partition != 0; asked != want || gp.EpochIsCurrent() == want {
			t.Errorf("%s (offset %d, epoch %d): asked %v, current %v", gp.TopicPartition, gp.Committed, gp.LeaderEpoch, asked, gp.EpochIsCurrent())
		}
		asks = append(asks, at)
	}
	ends, err := c.EpochEnds(context.Background(), asks)
	if err != nil {
		t.Fatal(err)
	}
	for _, gp := range logs.Polls[0].Partitions {
		if end := ends[EpochAt{gp.TopicPartition, gp.LeaderEpoch}]; gp.EpochIsCurrent() && end < gp.Committed {
			t.Errorf("%s: the current epoch ends at %d, before the offset %d", gp.TopicPartition, end, gp.Committed)
		}
	}
}

// commitWithEpochs commits offsets with leader epochs, as a consumer in
// the group does (OffsetCommit v6+), partition: {offset, epoch}.
func commitWithEpochs(t *testing.T, addr, group, topic string, offsets map[int32][2]int64) {
	t.Helper()
	// A version that names topics (v10 names them by id).
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.MaxVersions(kversion.V3_7_0()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group, req.Generation = group, -1
	rt := kmsg.NewOffsetCommitRequestTopic()
	rt.Topic = topic
	for p, oe := range offsets {
		rp := kmsg.NewOffsetCommitRequestTopicPartition()
		rp.Partition, rp.Offset, rp.LeaderEpoch = p, oe[0], int32(oe[1])
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(context.Background(), cl)
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if rp.ErrorCode != 0 {
				t.Fatalf("commit %s/%d: error %d", rt.Topic, rp.Partition, rp.ErrorCode)
			}
		}
	}
}
