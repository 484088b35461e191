package kafka

import (
	"context"
	"strings"
	"testing"

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
