package demo

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The sinks' topics and their partition counts.
var sinkTopics = map[string]map[string][]int{
	"s3-archive": {"shop.orders": {0, 1, 2}, "shop.payments": {0, 1, 2}},
	"es-search":  {"logs.app": {0, 1, 2}, "inventory.public.orders": {0}},
}

// describe returns a group's state and member count as the broker reports
// them. kafka-go's DescribeGroups cannot decode the members' subscription
// metadata of a current consumer (version 3, as Java's 3.x consumers and
// franz-go send), so this uses a plain DescribeGroups request.
func describe(t *testing.T, cl *kafka.Client, group string) (string, int) {
	t.Helper()
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = []string{group}
	resp, err := req.RequestWith(context.Background(), adminClient(t, cl.Addr.String()))
	if err != nil {
		t.Fatalf("describe %s: %v", group, err)
	}
	if len(resp.Groups) != 1 {
		t.Fatalf("describe %s: %d groups", group, len(resp.Groups))
	}
	g := resp.Groups[0]
	if err := kerr.ErrorForCode(g.ErrorCode); err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
		t.Fatalf("describe %s: %v", group, err)
	}
	return g.State, len(g.Members)
}

var admins sync.Map // bootstrap → *kgo.Client, one per test cluster

// adminClient returns a franz-go client for plain requests to a test
// cluster, closed when the test ends.
func adminClient(t *testing.T, bootstrap string) *kgo.Client {
	t.Helper()
	if cl, ok := admins.Load(bootstrap); ok {
		return cl.(*kgo.Client)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		t.Fatal(err)
	}
	if prev, loaded := admins.LoadOrStore(bootstrap, cl); loaded {
		cl.Close()
		return prev.(*kgo.Client)
	}
	t.Cleanup(func() {
		admins.Delete(bootstrap)
		cl.Close()
	})
	return cl
}

// committed returns a group's committed offsets (-1: none) for topics.
func committed(t *testing.T, cl *kafka.Client, group string, topics map[string][]int) map[topicPartition]int64 {
	t.Helper()
	resp, err := cl.OffsetFetch(context.Background(), &kafka.OffsetFetchRequest{GroupID: group, Topics: topics})
	if err != nil {
		t.Fatalf("offset fetch %s: %v", group, err)
	}
	out := map[topicPartition]int64{}
	if errors.Is(resp.Error, kafka.GroupIdNotFound) {
		// kfake's answer for a group that does not exist; Kafka's is -1
		// for every partition.
		for topic, ps := range topics {
			for _, p := range ps {
				out[topicPartition{topic, int32(p)}] = -1
			}
		}
		return out
	}
	if resp.Error != nil {
		t.Fatalf("offset fetch %s: %v", group, resp.Error)
	}
	for topic, ps := range resp.Topics {
		for _, p := range ps {
			if p.Error != nil {
				t.Fatalf("offset fetch %s %s[%d]: %v", group, topic, p.Partition, p.Error)
			}
			out[topicPartition{topic, int32(p.Partition)}] = p.CommittedOffset
		}
	}
	return out
}

// ends returns the log-end offset of each partition of topics.
func ends(t *testing.T, cl *kafka.Client, topics map[string][]int) map[topicPartition]int64 {
	t.Helper()
	req := &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{}}
	for topic, ps := range topics {
		for _, p := range ps {
			req.Topics[topic] = append(req.Topics[topic], kafka.LastOffsetOf(p))
		}
	}
	resp, err := cl.ListOffsets(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	out := map[topicPartition]int64{}
	for topic, ps := range resp.Topics {
		for _, p := range ps {
			if p.Error != nil {
				t.Fatalf("list offsets %s[%d]: %v", topic, p.Partition, p.Error)
			}
			out[topicPartition{topic, int32(p.Partition)}] = p.LastOffset
		}
	}
	return out
}

func sum(m map[topicPartition]int64) int64 {
	var n int64
	for _, v := range m {
		n += max(v, 0)
	}
	return n
}

// lag is log-end offset minus committed offset, summed over the sink's
// partitions, measured just after the group's committed offsets moved.
func lagAfterCommit(t *testing.T, cl *kafka.Client, group string, topics map[string][]int, since int64) (lag, total int64) {
	t.Helper()
	waitFor(t, 10*time.Second, "a commit of "+group, func() bool {
		total = sum(committed(t, cl, group, topics))
		return total > since
	})
	return sum(ends(t, cl, topics)) - total, total
}

// waitGroup waits until the group is in state with members members.
func waitGroup(t *testing.T, cl *kafka.Client, group, state string, members int) {
	t.Helper()
	waitFor(t, 15*time.Second, group+" "+state, func() bool {
		s, n := describe(t, cl, group)
		return s == state && n == members
	})
}

func TestSinkGroups(t *testing.T) {
	t.Parallel()
	c := startCluster(t, testOptions(t))
	cl := kafkaClient(t, c.Bootstrap())

	for name, want := range map[string]ConnectorInfo{
		"s3-archive": {Name: "s3-archive", Class: classS3, Type: "sink", Tasks: 2,
			Topics: []string{"shop.orders", "shop.payments"}, Group: "connect-s3-archive"},
		"es-search": {Name: "es-search", Class: classElasticsearch, Type: "sink", Tasks: 1,
			Topics: []string{"inventory.public.orders", "logs.app"}, Group: "es-search-v2"},
	} {
		got, ok := c.Connector(name)
		if !ok || got.Name != want.Name || got.Class != want.Class || got.Type != want.Type || got.Tasks != want.Tasks ||
			!slices.Equal(got.Topics, want.Topics) || got.Group != want.Group || got.OffsetsTopic != "" {
			t.Errorf("Connector(%s) = %+v, want %+v", name, got, want)
		}
		if g := c.SinkGroup(name); g != want.Group {
			t.Errorf("SinkGroup(%s) = %q", name, g)
		}
	}
	if g := c.SinkGroup("jdbc-shop"); g != "" {
		t.Errorf("SinkGroup of a source = %q", g)
	}

	// Real members: one per task, the group Stable while they run.
	s3, es := c.SinkGroup("s3-archive"), c.SinkGroup("es-search")
	waitGroup(t, cl, s3, "Stable", 2)
	waitGroup(t, cl, es, "Stable", 1)

	// es-search falls behind (its lag grows from commit to commit), while
	// s3-archive keeps up.
	esLag1, esTotal1 := lagAfterCommit(t, cl, es, sinkTopics["es-search"], 0)
	s3Lag1, s3Total1 := lagAfterCommit(t, cl, s3, sinkTopics["s3-archive"], 0)
	time.Sleep(4 * time.Second) // es-search falls behind by about 1.3 records/s
	esLag2, esTotal2 := lagAfterCommit(t, cl, es, sinkTopics["es-search"], esTotal1)
	s3Lag2, s3Total2 := lagAfterCommit(t, cl, s3, sinkTopics["s3-archive"], s3Total1)
	t.Logf("es-search: committed %d → %d, lag %d → %d; s3-archive: committed %d → %d, lag %d → %d",
		esTotal1, esTotal2, esLag1, esLag2, s3Total1, s3Total2, s3Lag1, s3Lag2)
	if esLag2 <= esLag1+1 {
		t.Errorf("es-search lag went from %d to %d; it should grow", esLag1, esLag2)
	}
	if s3Lag1 > 10 || s3Lag2 > 10 {
		t.Errorf("s3-archive lag %d then %d; it should keep up", s3Lag1, s3Lag2)
	}

	// Stopped: a final commit, then the members leave.
	for _, name := range []string{"s3-archive", "es-search"} {
		if err := c.StopConnector(name); err != nil {
			t.Fatal(err)
		}
		if s, n := describe(t, cl, c.SinkGroup(name)); s != "Empty" || n != 0 {
			t.Errorf("%s after stop: group %s with %d members, want Empty", name, s, n)
		}
	}
	stopped := committed(t, cl, es, sinkTopics["es-search"])
	time.Sleep(3 * testOptions(t).FlushInterval)
	if again := committed(t, cl, es, sinkTopics["es-search"]); sum(again) != sum(stopped) {
		t.Errorf("stopped es-search committed %v after its final commit %v", again, stopped)
	}

	// Resumed: back in the group, continuing from its committed offsets.
	if err := c.ResumeConnector("es-search"); err != nil {
		t.Fatal(err)
	}
	waitGroup(t, cl, es, "Stable", 1)
	_, total := lagAfterCommit(t, cl, es, sinkTopics["es-search"], sum(stopped))
	for tp, off := range committed(t, cl, es, sinkTopics["es-search"]) {
		if off < stopped[tp] {
			t.Errorf("resumed es-search committed %s[%d] at %d, below %d", tp.topic, tp.partition, off, stopped[tp])
		}
	}
	if total <= sum(stopped) {
		t.Errorf("resumed es-search did not move on from %d", sum(stopped))
	}

	// Paused: still in the group, nothing consumed.
	if err := c.PauseConnector("es-search"); err != nil {
		t.Fatal(err)
	}
	if s := c.ConnectorState("es-search"); s != "PAUSED" {
		t.Errorf("state after pause = %s", s)
	}
	time.Sleep(2 * testOptions(t).FlushInterval) // a commit in flight lands
	paused := sum(committed(t, cl, es, sinkTopics["es-search"]))
	time.Sleep(4 * testOptions(t).FlushInterval)
	if s, n := describe(t, cl, es); s != "Stable" || n != 1 {
		t.Errorf("paused es-search: group %s with %d members, want Stable with 1", s, n)
	}
	if now := sum(committed(t, cl, es, sinkTopics["es-search"])); now != paused {
		t.Errorf("paused es-search committed %d → %d", paused, now)
	}
	if err := c.ResumeConnector("es-search"); err != nil {
		t.Fatal(err)
	}
	lagAfterCommit(t, cl, es, sinkTopics["es-search"], paused)
}
