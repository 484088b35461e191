package kafka

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// BenchmarkSinkPoll500x50 measures one refresh of sink lag for 500 sink
// connectors (connect-* groups without members) of 50 topic-partitions
// each, on one broker: the time of PollGroupsOnce and the requests it
// sends, by kind.
//
//	go test ./kafka -run XXX -bench SinkPoll -benchtime 3x
func BenchmarkSinkPoll500x50(b *testing.B) {
	const groups, topics, parts = 500, 10, 5
	c, err := startBenchBroker()
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	addr := c.ListenAddrs()[0]
	client := Config{Brokers: []string{addr}}.Client()
	var cfgs []kafkago.TopicConfig
	for t := range topics {
		cfgs = append(cfgs, kafkago.TopicConfig{Topic: fmt.Sprintf("sink-topic-%d", t), NumPartitions: parts, ReplicationFactor: 1})
	}
	if _, err := client.CreateTopics(context.Background(), &kafkago.CreateTopicsRequest{Topics: cfgs}); err != nil {
		b.Fatal(err)
	}
	for g := range groups {
		req := &kafkago.OffsetCommitRequest{GroupID: fmt.Sprintf("connect-sink-%03d", g), GenerationID: -1, Topics: map[string][]kafkago.OffsetCommit{}}
		for t := range topics {
			for p := range parts {
				name := fmt.Sprintf("sink-topic-%d", t)
				req.Topics[name] = append(req.Topics[name], kafkago.OffsetCommit{Partition: p, Offset: 0})
			}
		}
		if _, err := client.OffsetCommit(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
	var requests [100]atomic.Int64
	c.Control(func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if k := r.Key(); k >= 0 && int(k) < len(requests) {
			requests[k].Add(1)
		}
		return nil, nil, false
	})
	store := &groupRecorder{}
	b.ResetTimer()
	for range b.N {
		if err := (Config{Brokers: []string{addr}}).PollGroupsOnce(context.Background(), store); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if len(store.polls) != groups {
		b.Fatalf("%d groups polled, want %d", len(store.polls), groups)
	}
	for _, p := range store.polls {
		if len(p.Partitions) != topics*parts {
			b.Fatalf("%s: %d partitions, want %d", p.Group, len(p.Partitions), topics*parts)
		}
	}
	var total int64
	for k := range requests {
		total += requests[k].Load()
	}
	b.ReportMetric(float64(total)/float64(b.N), "requests/refresh")
	b.ReportMetric(float64(requests[kmsg.OffsetFetch.Int16()].Load())/float64(b.N), "offsetfetch/refresh")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/refresh")
	for k := range requests {
		if n := requests[k].Load(); n > 0 {
			b.Logf("%s: %.0f per refresh", kmsg.NameForKey(int16(k)), float64(n)/float64(b.N))
		}
	}
}
