package kafka

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"koff/model"
)

// committedEpochs reads a group's committed offsets with the leader epoch
// stored beside each (OffsetFetch v5+), as a consumer joining it sees them.
func committedEpochs(t *testing.T, addr, group string) map[model.TopicPartition][2]int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = group
	resp, err := req.RequestWith(context.Background(), cl)
	if err != nil {
		t.Fatal(err)
	}
	out := map[model.TopicPartition][2]int64{}
	for _, tp := range resp.Topics {
		for _, p := range tp.Partitions {
			out[model.TopicPartition{Topic: tp.Topic, Partition: int(p.Partition)}] = [2]int64{p.Offset, int64(p.LeaderEpoch)}
		}
	}
	return out
}

// A commit from outside the group says "no leader epoch" (-1), as Connect's
// REST API and kafka-consumer-groups do. With 0 instead, a sink consumer on a
// partition whose leader epoch moved since (any broker restart) would find
// the position "truncated" and rewind to where epoch 0 ended.
func TestGroupCommitsCarryNoLeaderEpoch(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "orders", 2)
	produce(t, addr, "orders", 0, kv{key: "a", value: "1"}, kv{key: "b", value: "2"})
	tp0 := model.TopicPartition{Topic: "orders", Partition: 0}
	tp1 := model.TopicPartition{Topic: "orders", Partition: 1}
	cfg := Config{Brokers: []string{addr}}
	// 9,007,199,254,740,993 is 2^53+1: the offset goes as written.
	if err := cfg.CommitGroupOffsets(context.Background(), "connect-s3", map[model.TopicPartition]int64{tp0: 2, tp1: 9007199254740993}); err != nil {
		t.Fatal(err)
	}
	got := committedEpochs(t, addr, "connect-s3")
	want := map[model.TopicPartition][2]int64{tp0: {2, -1}, tp1: {9007199254740993, -1}}
	if len(got) != len(want) {
		t.Fatalf("committed (offset, leader epoch): %v, want %v", got, want)
	}
	for tp, w := range want {
		if got[tp] != w {
			t.Errorf("%s/%d committed (offset, leader epoch) %v, want %v", tp.Topic, tp.Partition, got[tp], w)
		}
	}
}
