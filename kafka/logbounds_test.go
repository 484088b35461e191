package kafka

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"koff/model"
)

// logBounds, which the lag poller asks, gives the start and end offsets
// leaderOffsets (kafka-go's Metadata and ListOffsets) gives, with the
// cluster's id, over topics of several partitions and several records.
func TestLogBoundsSameAsLeaderOffsets(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "orders", 3)
	createTopic(t, addr, "logs", 12)
	for p := range 3 {
		var recs []kv
		for i := range 4 * (p + 1) {
			recs = append(recs, kv{key: fmt.Sprint(i), value: "x"})
		}
		produce(t, addr, "orders", p, recs...)
	}
	produce(t, addr, "logs", 11, kv{key: "k", value: "v"})
	var tps []model.TopicPartition
	for p := range 12 {
		tps = append(tps, model.TopicPartition{Topic: "logs", Partition: 11 - p}) // out of order
	}
	for p := range 3 {
		tps = append(tps, model.TopicPartition{Topic: "orders", Partition: p})
	}
	c := Config{Brokers: []string{addr}}.Client()
	ctx := context.Background()
	starts, ends, ls, err := logBounds(ctx, Config{Brokers: []string{addr}}.lagClient(), tps)
	if err != nil {
		t.Fatal(err)
	}
	if want := clusterID(ctx, c); ls.cluster != want || ls.cluster == "" {
		t.Errorf("cluster id %q, want %q", ls.cluster, want)
	}
	for _, k := range []struct {
		at  int64
		got topicOffsets
	}{{kafkago.FirstOffset, starts}, {kafkago.LastOffset, ends}} {
		want, err := leaderOffsets(ctx, c, tps, k.at, kafkago.ReadUncommitted)
		if err != nil {
			t.Fatal(err)
		}
		for _, tp := range tps {
			if got := k.got.of(tp); got != want[tp] {
				t.Errorf("%s at %d: %d, leaderOffsets says %d", tp, k.at, got, want[tp])
			}
		}
	}
	if got := ends.of(model.TopicPartition{Topic: "orders", Partition: 2}); got != 12 {
		t.Errorf("orders/2 ends at %d, want 12", got)
	}
	for _, bad := range []model.TopicPartition{{Topic: "orders", Partition: 3}, {Topic: "nope", Partition: 0}} {
		if _, _, _, err := logBounds(ctx, c, []model.TopicPartition{bad}); err == nil {
			t.Errorf("%s, which does not exist, gave no error", bad)
		}
	}
}

// On a cluster of three brokers, each partition's offsets come from its
// own leader, as leaderOffsets asks them.
func TestLogBoundsAsksEachLeader(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	addr := c.ListenAddrs()[0]
	createTopic(t, addr, "orders", 9)
	var tps []model.TopicPartition
	for p := range 9 {
		var recs []kv
		for i := range p + 1 {
			recs = append(recs, kv{key: fmt.Sprint(i), value: "x"})
		}
		produce(t, addr, "orders", p, recs...)
		tps = append(tps, model.TopicPartition{Topic: "orders", Partition: p})
	}
	ctx := context.Background()
	starts, ends, _, err := logBounds(ctx, Config{Brokers: []string{addr}}.lagClient(), tps)
	if err != nil {
		t.Fatal(err)
	}
	leaders := map[int32]bool{}
	var asked atomic.Int64
	c.Control(func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if r.Key() == kmsg.ListOffsets.Int16() {
			asked.Add(1)
		}
		return nil, nil, false
	})
	if _, _, _, err := logBounds(ctx, Config{Brokers: []string{addr}}.lagClient(), tps); err != nil {
		t.Fatal(err)
	}
	for _, tp := range tps {
		leaders[c.LeaderFor(tp.Topic, int32(tp.Partition))] = true
		if starts.of(tp) != 0 || ends.of(tp) != int64(tp.Partition+1) {
			t.Errorf("%s: start %d end %d, want 0 and %d", tp, starts.of(tp), ends.of(tp), tp.Partition+1)
		}
	}
	if len(leaders) < 2 {
		t.Fatalf("the partitions' leaders are %v: not a test of several", leaders)
	}
	if n := asked.Load(); n != int64(2*len(leaders)) {
		t.Errorf("%d ListOffsets requests, want one for the starts and one for the ends per leader (%d)", n, 2*len(leaders))
	}
}

// BenchmarkLogBounds100k asks the start and end offsets of a topic of
// 100,000 partitions as the lag poller does at each refresh for a big
// sink (logBounds), and as it did (leaderOffsets, twice). An embedded
// broker serves it in the same process, its share in both figures; with
// KOFF_BENCH_SINK_BROKER (bench/sink.sh's broker, or go run ./bench/load
// -serve ADDR -sink-partitions 100000) the broker is that one, and the
// figures are koff's alone.
//
//	go test ./kafka -run XXX -bench LogBounds100k -benchtime 5x
func BenchmarkLogBounds100k(b *testing.B) {
	parts, topic := 100_000, "bench-sink-topic"
	addr := os.Getenv("KOFF_BENCH_SINK_BROKER")
	if addr == "" {
		if testing.Short() { // CI: that it runs, not the figure
			parts = 5_000
		}
		c, err := startBenchBroker()
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		addr = c.ListenAddrs()[0]
		client := Config{Brokers: []string{addr}}.Client()
		if _, err := client.CreateTopics(context.Background(), &kafkago.CreateTopicsRequest{Topics: []kafkago.TopicConfig{{Topic: topic, NumPartitions: parts, ReplicationFactor: 1}}}); err != nil {
			b.Fatal(err)
		}
	}
	tps := make([]model.TopicPartition, parts)
	for p := range tps {
		tps[p] = model.TopicPartition{Topic: topic, Partition: p}
	}
	ctx := context.Background()
	b.Run("logBounds", func(b *testing.B) {
		b.ReportAllocs()
		cpu := processCPU()
		for range b.N {
			if _, _, _, err := logBounds(ctx, Config{Brokers: []string{addr}}.lagClient(), tps); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((processCPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	})
	b.Run("leaderOffsets", func(b *testing.B) {
		b.ReportAllocs()
		cpu := processCPU()
		for range b.N {
			cl := Config{Brokers: []string{addr}}.Client()
			for _, at := range []int64{kafkago.FirstOffset, kafkago.LastOffset} {
				if _, err := leaderOffsets(ctx, cl, tps, at, kafkago.ReadUncommitted); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric((processCPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	})
}

// processCPU is the user and system time the process has taken.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
