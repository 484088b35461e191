package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"koff/model"
)

// A consumer group with a live member, as a running sink task is; franz-go
// plays the member (kafka-go is koff's client, not the worker's).
func joinGroup(t *testing.T, addr, group, topic string) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic), kgo.DisableAutoCommit())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		polls, _ := Config{Brokers: []string{addr}}.GroupPolls(ctx, []string{group})
		if len(polls) == 1 && polls[0].Members == 1 && polls[0].State == "Stable" {
			return cl
		}
		cl.PollRecords(ctx, 1)
		if ctx.Err() != nil {
			t.Fatalf("group %s never became Stable with a member", group)
		}
	}
}

func TestGroupOffsetWritesAndTheirRefusal(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "orders", 2)
	produce(t, addr, "orders", 0, kv{key: "a", value: "1"}, kv{key: "b", value: "2"}, kv{key: "c", value: "3"})
	cfg := Config{Brokers: []string{addr}}
	ctx := context.Background()
	tp0 := model.TopicPartition{Topic: "orders", Partition: 0}
	tp1 := model.TopicPartition{Topic: "orders", Partition: 1}

	if err := cfg.CommitGroupOffsets(ctx, "connect-s3", map[model.TopicPartition]int64{tp0: 2, tp1: 0}); err != nil {
		t.Fatal(err)
	}
	polls, _ := cfg.GroupPolls(ctx, nil)
	if len(polls) != 1 || len(polls[0].Partitions) != 2 {
		t.Fatalf("after commit: %+v", polls)
	}
	if err := cfg.DeleteGroupOffsets(ctx, "connect-s3", []model.TopicPartition{tp1}); err != nil {
		t.Fatal(err)
	}
	polls, _ = cfg.GroupPolls(ctx, nil)
	if len(polls[0].Partitions) != 1 || polls[0].Partitions[0].Committed != 2 {
		t.Errorf("after deleting one partition's offset: %+v", polls[0].Partitions)
	}

	joinGroup(t, addr, "connect-s3", "orders")
	err := cfg.CommitGroupOffsets(ctx, "connect-s3", map[model.TopicPartition]int64{tp0: 0})
	if err == nil || !strings.Contains(err.Error(), "group connect-s3 still has active members") {
		t.Errorf("commit into a group with members: %v", err)
	}
	if err := cfg.DeleteGroup(ctx, "connect-s3"); err == nil || !strings.Contains(err.Error(), "active members") {
		t.Errorf("delete of a group with members: %v", err)
	}
	if err := cfg.DeleteGroup(ctx, "never-existed"); err != nil {
		t.Errorf("deleting a missing group: %v", err)
	}
}
