package demo

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// leaderEpochs is the leader epoch stored with each of a group's committed
// offsets (OffsetFetch v5+), by topic-partition.
func leaderEpochs(t *testing.T, bootstrap, group string) map[topicPartition]int32 {
	t.Helper()
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = group
	resp, err := req.RequestWith(context.Background(), adminClient(t, bootstrap))
	if err != nil {
		t.Fatalf("offset fetch %s: %v", group, err)
	}
	out := map[topicPartition]int32{}
	for _, tp := range resp.Topics {
		for _, p := range tp.Partitions {
			if p.Offset >= 0 {
				out[topicPartition{tp.Topic, p.Partition}] = p.LeaderEpoch
			}
		}
	}
	return out
}

// The demo's sinks commit as the real worker's do: a task's own commits
// and Connect's for a REST PATCH both carry no leader epoch (-1), measured
// on Apache Kafka 4.1.1 (interop.TestSinkEditsAfterTheLeaderEpochMoved).
// koff reads these groups; an epoch the real worker never writes would
// make the demo a different cluster.
func TestSinkCommitsCarryNoLeaderEpoch(t *testing.T) {
	t.Parallel()
	c, api := startRESTCluster(t, testOptions(t))
	group := c.SinkGroup("es-search")
	waitFor(t, 10*time.Second, "es-search to commit", func() bool { return len(api.offsets("es-search")) > 0 })
	own := leaderEpochs(t, c.Bootstrap(), group)
	for tp, e := range own {
		if e != -1 {
			t.Errorf("the task's commit of %s/%d carries leader epoch %d, want -1", tp.topic, tp.partition, e)
		}
	}
	api.wantEmpty("PUT", "/connectors/es-search/stop", 204)
	api.checkStatus("es-search", "STOPPED", 0)
	patch := offsetsBody(`{"kafka_topic":"logs.app","kafka_partition":0}`, `{"kafka_offset":1}`)
	api.json("PATCH", "/connectors/es-search/offsets", patch, 200, &map[string]string{})
	if e, ok := leaderEpochs(t, c.Bootstrap(), group)[topicPartition{"logs.app", 0}]; !ok || e != -1 {
		t.Errorf("Connect's commit for the PATCH of logs.app/0 carries leader epoch %d (committed: %v), want -1", e, ok)
	}
}
