package kafka

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/model"
	"koff/model/store"
)

// commitGroup commits offsets for a group with no members, as a plain
// client (or an operator's tool) does.
func commitGroup(t *testing.T, addr, group string, offsets map[model.TopicPartition]int64) {
	t.Helper()
	c := Config{Brokers: []string{addr}}.Client()
	req := &kafkago.OffsetCommitRequest{GroupID: group, GenerationID: -1, Topics: map[string][]kafkago.OffsetCommit{}}
	for tp, off := range offsets {
		req.Topics[tp.Topic] = append(req.Topics[tp.Topic], kafkago.OffsetCommit{Partition: tp.Partition, Offset: off})
	}
	res, err := c.OffsetCommit(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for topic, parts := range res.Topics {
		for _, p := range parts {
			if p.Error != nil {
				t.Fatalf("commit %s/%d: %v", topic, p.Partition, p.Error)
			}
		}
	}
}

type groupRecorder struct {
	named []string
	polls []model.GroupPoll
}

func (g *groupRecorder) SinkGroups() []string { return g.named }
func (g *groupRecorder) SetGroups(_ time.Time, p []model.GroupPoll) {
	g.polls = p
}

func TestGroupPollsLagIsEndMinusCommitted(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "orders", 3)
	createTopic(t, addr, "logs", 2)
	for p := 0; p < 3; p++ {
		var recs []kv
		for i := 0; i < 10*(p+1); i++ {
			recs = append(recs, kv{key: fmt.Sprint(i), value: "x"})
		}
		produce(t, addr, "orders", p, recs...)
	}
	produce(t, addr, "logs", 1, kv{key: "a", value: "b"}, kv{key: "c", value: "d"})
	tp := func(topic string, p int) model.TopicPartition {
		return model.TopicPartition{Topic: topic, Partition: p}
	}
	commitGroup(t, addr, "connect-s3", map[model.TopicPartition]int64{tp("orders", 0): 10, tp("orders", 1): 5, tp("orders", 2): 0})
	commitGroup(t, addr, "es-v2", map[model.TopicPartition]int64{tp("logs", 1): 1})
	commitGroup(t, addr, "someone-else", map[model.TopicPartition]int64{tp("logs", 0): 0})

	polls, err := Config{Brokers: []string{addr}}.GroupPolls(context.Background(), []string{"es-v2", "not-there"})
	if err != nil {
		t.Fatal(err)
	}
	byGroup := map[string]model.GroupPoll{}
	for _, p := range polls {
		byGroup[p.Group] = p
	}
	if len(polls) != 2 || byGroup["someone-else"].Group != "" {
		t.Fatalf("polled %v: want connect-s3 (by its name) and es-v2 (named by REST) only", polls)
	}
	want := map[model.TopicPartition]int64{tp("orders", 0): 0, tp("orders", 1): 15, tp("orders", 2): 30}
	s3 := byGroup["connect-s3"]
	if len(s3.Partitions) != 3 || s3.State != "Empty" || s3.Members != 0 {
		t.Fatalf("connect-s3 = %+v", s3)
	}
	for _, p := range s3.Partitions {
		if p.Lag() != want[p.TopicPartition] || p.End-p.Committed != p.Lag() {
			t.Errorf("%s: committed %d end %d lag %d, want lag %d", p.TopicPartition, p.Committed, p.End, p.Lag(), want[p.TopicPartition])
		}
	}
	if es := byGroup["es-v2"]; len(es.Partitions) != 1 || es.Partitions[0].Lag() != 1 {
		t.Errorf("es-v2 = %+v", es)
	}

	// The poller keeps polling into a store.
	rec := &groupRecorder{named: []string{"es-v2"}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { Config{Brokers: []string{addr}}.PollGroups(ctx, 50*time.Millisecond, rec); close(done) }()
	time.Sleep(300 * time.Millisecond)
	cancel()
	<-done
	if len(rec.polls) != 2 {
		t.Errorf("poller stored %d groups, want 2", len(rec.polls))
	}
}

func TestOffsetsAtTimestamp(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "data", 1)
	produce(t, addr, "data", 0, kv{key: "a", value: "1"}, kv{key: "b", value: "2"})
	time.Sleep(5 * time.Millisecond)
	mid := time.Now()
	time.Sleep(20 * time.Millisecond)
	produce(t, addr, "data", 0, kv{key: "c", value: "3"}, kv{key: "d", value: "4"}, kv{key: "e", value: "5"})
	tp := model.TopicPartition{Topic: "data", Partition: 0}
	got, err := Config{Brokers: []string{addr}}.OffsetsAt(context.Background(), []model.TopicPartition{tp}, mid)
	if err != nil || got[tp] != 2 {
		t.Errorf("offset at the middle = %d (%v), want 2", got[tp], err)
	}
	got, _ = Config{Brokers: []string{addr}}.OffsetsAt(context.Background(), []model.TopicPartition{tp}, time.Now().Add(time.Hour))
	if got[tp] != 5 {
		t.Errorf("offset after every record = %d, want the end, 5", got[tp])
	}
}

// Records a crash would replay: those written after the last flush.
func TestRecordsSinceCountsWhatWasProducedAfterAFlush(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "shop.orders", 2)
	createTopic(t, addr, "shop.payments", 1)
	produce(t, addr, "shop.orders", 0, kv{key: "1", value: "a"}, kv{key: "2", value: "b"})
	produce(t, addr, "shop.orders", 1, kv{key: "3", value: "c"})
	time.Sleep(5 * time.Millisecond) // timestamps are in ms: keep the flush out of the last record's ms
	flush := time.Now()
	time.Sleep(20 * time.Millisecond)
	produce(t, addr, "shop.orders", 0, kv{key: "4", value: "d"}, kv{key: "5", value: "e"}, kv{key: "6", value: "f"})
	produce(t, addr, "shop.payments", 0, kv{key: "7", value: "g"}, kv{key: "8", value: "h"})
	n, err := Config{Brokers: []string{addr}}.RecordsSince(context.Background(), []string{"shop.orders", "shop.payments"}, flush)
	if err != nil || n != 5 {
		t.Errorf("records since the flush = %d (%v), want 5", n, err)
	}
	if _, err := (Config{Brokers: []string{addr}}).RecordsSince(context.Background(), []string{"nope"}, flush); err == nil {
		t.Error("a missing topic should be an error")
	}
}

// A record of the flush's own millisecond belongs to the flush: an
// exactly-once task writes a transaction's records and its offsets record
// within one millisecond, and such a connector has nothing unflushed.
func TestRecordsSinceLeavesOutTheFlushsMillisecond(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "shop.orders", 1)
	c := Config{Brokers: []string{addr}}
	flush := time.Now().Truncate(time.Millisecond)
	tp := model.TopicPartition{Topic: "shop.orders", Partition: 0}
	recs := []store.Record{
		{Topic: tp.Topic, Key: []byte("1"), Value: []byte("a"), Time: flush.Add(-time.Millisecond)},
		{Topic: tp.Topic, Key: []byte("2"), Value: []byte("b"), Time: flush},
		{Topic: tp.Topic, Key: []byte("3"), Value: []byte("c"), Time: flush.Add(500 * time.Microsecond)},
	}
	if _, err := c.ProduceBatch(context.Background(), tp, recs); err != nil {
		t.Fatal(err)
	}
	if n, err := c.RecordsSince(context.Background(), []string{"shop.orders"}, flush.Add(300*time.Microsecond)); err != nil || n != 0 {
		t.Errorf("records since a flush in the same millisecond as the last two = %d (%v), want 0", n, err)
	}
	if _, err := c.ProduceBatch(context.Background(), tp, []store.Record{{Topic: tp.Topic, Key: []byte("4"), Value: []byte("d"), Time: flush.Add(time.Millisecond)}}); err != nil {
		t.Fatal(err)
	}
	if n, err := c.RecordsSince(context.Background(), []string{"shop.orders"}, flush); err != nil || n != 1 {
		t.Errorf("records since the flush, one written a millisecond later = %d (%v), want 1", n, err)
	}
}

// The batched group requests (one FindCoordinator, DescribeGroups and
// OffsetFetch per coordinator) give what asking group by group gives, and
// the start and end offsets asked of each leader at once equal kafka-go's
// one request per partition.
func TestBatchedGroupPollsEqualOneByOne(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "orders", 3)
	createTopic(t, addr, "logs", 2)
	for p := 0; p < 3; p++ {
		var recs []kv
		for i := 0; i < 5*(p+1); i++ {
			recs = append(recs, kv{key: fmt.Sprint(i), value: "x"})
		}
		produce(t, addr, "orders", p, recs...)
	}
	tp := func(topic string, p int) model.TopicPartition {
		return model.TopicPartition{Topic: topic, Partition: p}
	}
	// joinGroup waits for the only connect-* group: the live one first.
	member := joinGroup(t, addr, "connect-live", "orders")
	defer member.Close()
	commitGroup(t, addr, "connect-a", map[model.TopicPartition]int64{tp("orders", 0): 3, tp("orders", 2): 7, tp("logs", 1): 0})
	commitGroup(t, addr, "connect-b", map[model.TopicPartition]int64{tp("orders", 1): 9})
	ids := []string{"connect-a", "connect-b", "connect-live", "connect-never-committed"}

	c := Config{Brokers: []string{addr}}.Client()
	ctx := context.Background()
	batched, err := batchedGroupPolls(ctx, c, ids)
	if err != nil {
		t.Fatal(err)
	}
	single, err := groupPollsOneByOne(ctx, c, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		b, s := *batched[id], *single[id]
		sort.Slice(s.Partitions, func(i, j int) bool {
			return s.Partitions[i].TopicPartition.String() < s.Partitions[j].TopicPartition.String()
		})
		sort.Slice(b.Partitions, func(i, j int) bool {
			return b.Partitions[i].TopicPartition.String() < b.Partitions[j].TopicPartition.String()
		})
		if fmt.Sprintf("%+v", b) != fmt.Sprintf("%+v", s) {
			t.Errorf("%s: batched %+v\n  one by one %+v", id, b, s)
		}
	}
	if a := batched["connect-a"]; len(a.Partitions) != 3 || a.State != "Empty" {
		t.Errorf("connect-a = %+v", a)
	}
	if l := batched["connect-live"]; l.Members != 1 || len(l.Clients) != 1 || strings.Contains(l.Clients[0], "@/") {
		t.Errorf("connect-live = %+v, want one member, its host without a leading /", l)
	}

	tps := []model.TopicPartition{tp("orders", 0), tp("orders", 1), tp("orders", 2), tp("logs", 0), tp("logs", 1)}
	for _, at := range []int64{kafkago.FirstOffset, kafkago.LastOffset} {
		got, err := leaderOffsets(ctx, c, tps, at, kafkago.ReadUncommitted)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range tps {
			res, err := c.ListOffsets(ctx, &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{x.Topic: {{Partition: x.Partition, Timestamp: at}}}})
			if err != nil {
				t.Fatal(err)
			}
			p := res.Topics[x.Topic][0]
			want := p.LastOffset
			if at == kafkago.FirstOffset {
				want = p.FirstOffset
			}
			if got[x] != want {
				t.Errorf("%s at %d: %d, kafka-go says %d", x, at, got[x], want)
			}
		}
	}
	if _, err := leaderOffsets(ctx, c, []model.TopicPartition{tp("orders", 9)}, kafkago.LastOffset, kafkago.ReadUncommitted); err == nil {
		t.Error("a partition that does not exist gave no error")
	}
}
