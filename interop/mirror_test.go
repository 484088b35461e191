package interop

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
)

// mirrorSource is a MirrorSourceConnector copying topics of this cluster
// back into it under the "src." prefix, one task, as byte arrays.
func (s *Stack) mirrorSource(topics string) map[string]string {
	return map[string]string{
		"connector.class":                       "org.apache.kafka.connect.mirror.MirrorSourceConnector",
		"source.cluster.alias":                  "src",
		"target.cluster.alias":                  "dst",
		"source.cluster.bootstrap.servers":      s.Bootstrap,
		"target.cluster.bootstrap.servers":      s.Bootstrap,
		"topics":                                topics,
		"replication.factor":                    "1",
		"offset-syncs.topic.replication.factor": "1",
		"sync.topic.acls.enabled":               "false",
		"sync.topic.configs.enabled":            "false",
		"refresh.topics.interval.seconds":       "2",
		"tasks.max":                             "1",
		"key.converter":                         "org.apache.kafka.connect.converters.ByteArrayConverter",
		"value.converter":                       "org.apache.kafka.connect.converters.ByteArrayConverter",
	}
}

// copies counts the records (transaction markers aside) of a topic's
// partition 0 with each value.
func (s *Stack) copies(t *testing.T, topic string) map[string]int {
	t.Helper()
	end := s.endOffset(t, topic, 0)
	n := map[string]int{}
	if end == 0 {
		return n
	}
	for _, r := range s.readUntil(t, topic, 0, 0, time.Minute, func(rs []record) bool { return len(rs) > 0 && rs[len(rs)-1].Offset >= end-1 }) {
		if len(r.Value) > 0 && r.Value[0] != 0 {
			n[string(r.Value)]++
		}
	}
	return n
}

// waitCopies waits until the target topic holds want copies of each value.
func (s *Stack) waitCopies(t *testing.T, topic string, want map[string]int) {
	t.Helper()
	waitFor(t, 90*time.Second, topic+" copies "+fmt.Sprint(want), func() (bool, string) {
		got := s.copies(t, topic)
		return fmt.Sprint(got) == fmt.Sprint(want), fmt.Sprint(got)
	})
	// Nothing more comes: MirrorSourceTask copies each record once.
	time.Sleep(3 * time.Second)
	if got := s.copies(t, topic); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: %v copies, want %v", topic, got, want)
	}
}

// sameAsConnect: koff get NAME -o json, from the topic alone and with REST,
// is Connect's GET for it.
func (s *Stack) sameAsConnect(t *testing.T, name string) {
	t.Helper()
	want := canonical(t, s.connectOffsets(t, name))
	for _, how := range [][]string{s.withTopic("get", name, "-o", "json"), s.withREST("get", name, "-o", "json")} {
		var got offsetsBody
		decode(t, []byte(mustKoff(t, how...)), &got)
		if g := canonical(t, got); !slices.Equal(g, want) {
			t.Errorf("koff %s:\n%s\nConnect's GET:\n%s", strings.Join(how, " "), strings.Join(g, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestMirrorMakerEdits: MirrorSourceConnector stores {"offset":N} for the
// last record it copied of {"cluster","partition","topic"} and resumes at
// N+1 (MirrorSourceTask.start seeks each partition to its loaded offset plus
// one, or to the beginning without one). koff get equals Connect's GET;
// koff set of one partition, through the offsets topic and through REST,
// makes the real task copy again from the next offset, counted on the
// target topic; koff reset of one partition and of all copies everything
// again.
func TestMirrorMakerEdits(t *testing.T) {
	s := realStack(t)
	const name, src = "mm-edit", "mm-edit-a"
	target := "src." + src
	s.createTopic(t, src, 2)
	s.produce(t, src, 0, "v0", "v1", "v2", "v3", "v4")
	s.produce(t, src, 1, "w0")
	s.createConnector(t, name, s.mirrorSource(src))
	all := func(n int) map[string]int {
		return map[string]int{"v0": n, "v1": n, "v2": n, "v3": n, "v4": n}
	}
	s.waitCopies(t, target, all(1))
	p0 := fmt.Sprintf(`{"cluster":"src","partition":0,"topic":%q}`, src)
	p1 := fmt.Sprintf(`{"cluster":"src","partition":1,"topic":%q}`, src)
	s.waitOffset(t, name, p0+` => {"offset":4}`)
	s.waitOffset(t, name, p1+` => {"offset":0}`)
	s.sameAsConnect(t, name)

	want := all(1)
	for _, step := range []struct {
		what string
		args []string
		via  func(...string) []string
		more []string // values copied again
	}{
		{"set partition 0 to 1 (offsets topic)", []string{"set", name, "--partition", p0, "--offset", `{"offset":1}`}, s.withTopic, []string{"v2", "v3", "v4"}},
		{"set partition 0 to 3 (REST)", []string{"set", name, "--partition", p0, "--offset", `{"offset":3}`}, s.withREST, []string{"v4"}},
		{"reset partition 0 (offsets topic)", []string{"reset", name, "--partition", p0}, s.withTopic, []string{"v0", "v1", "v2", "v3", "v4"}},
		{"reset all (REST)", []string{"reset", name}, s.withREST, []string{"v0", "v1", "v2", "v3", "v4"}},
	} {
		s.stop(t, name)
		out := mustKoff(t, step.via(append(step.args, "--yes")...)...)
		t.Logf("%s:\n%s", step.what, out)
		s.sameAsConnect(t, name)
		s.resume(t, name)
		for _, v := range step.more {
			want[v]++
		}
		s.waitCopies(t, target, want)
	}
	// Partition 1 was reset with all: its one record copied again.
	waitFor(t, 90*time.Second, "w0 copied twice", func() (bool, string) {
		got := s.copiesOf(t, target, 1)
		return got["w0"] == 2, fmt.Sprint(got)
	})
}

// copiesOf counts the values of one partition of a topic.
func (s *Stack) copiesOf(t *testing.T, topic string, partition int) map[string]int {
	t.Helper()
	end := s.endOffset(t, topic, partition)
	n := map[string]int{}
	if end == 0 {
		return n
	}
	for _, r := range s.readUntil(t, topic, partition, 0, time.Minute, func(rs []record) bool { return len(rs) > 0 && rs[len(rs)-1].Offset >= end-1 }) {
		if len(r.Value) > 0 && r.Value[0] != 0 {
			n[string(r.Value)]++
		}
	}
	return n
}

// TestMirrorCheckpointAndHeartbeat: MirrorCheckpointConnector's offsets
// ({"group","partition","topic"}) and MirrorHeartbeatConnector's
// ({"sourceClusterAlias","targetClusterAlias"}), as koff get reads them,
// equal Connect's GET.
func TestMirrorCheckpointAndHeartbeat(t *testing.T) {
	s := realStack(t)
	const src = "mm-ckpt-a"
	s.createTopic(t, src, 1)
	s.produce(t, src, 0, "c0", "c1", "c2", "c3")
	s.createConnector(t, "mm-ckpt-src", s.mirrorSource(src))
	s.waitCopies(t, "src."+src, map[string]int{"c0": 1, "c1": 1, "c2": 1, "c3": 1})
	s.commitGroup(t, "mm-ckpt-group", src, 0, 3)

	common := func(class string) map[string]string {
		c := s.mirrorSource(src)
		c["connector.class"] = class
		return c
	}
	ckpt := common("org.apache.kafka.connect.mirror.MirrorCheckpointConnector")
	ckpt["groups"] = "mm-ckpt-group"
	ckpt["emit.checkpoints.interval.seconds"] = "1"
	ckpt["refresh.groups.interval.seconds"] = "1"
	ckpt["checkpoints.topic.replication.factor"] = "1"
	s.createConnector(t, "mm-ckpt", ckpt)
	hb := common("org.apache.kafka.connect.mirror.MirrorHeartbeatConnector")
	hb["emit.heartbeats.interval.seconds"] = "1"
	hb["heartbeats.topic.replication.factor"] = "1"
	s.createConnector(t, "mm-heartbeat", hb)

	for _, name := range []string{"mm-ckpt", "mm-heartbeat"} {
		waitFor(t, 2*time.Minute, name+" offsets", func() (bool, string) {
			got := canonical(t, s.connectOffsets(t, name))
			return len(got) > 0, "none yet"
		})
		t.Logf("%s: %v", name, canonical(t, s.connectOffsets(t, name)))
		s.sameAsConnect(t, name)
	}
}

// commitGroup commits offset for a consumer group with no members, as
// kafka-consumer-groups --reset-offsets does: a group for
// MirrorCheckpointConnector to checkpoint.
func (s *Stack) commitGroup(t *testing.T, group, topic string, partition int, offset int64) {
	t.Helper()
	c := &kafka.Client{Addr: kafka.TCP(s.Bootstrap), Timeout: 10 * time.Second}
	res, err := c.OffsetCommit(context.Background(), &kafka.OffsetCommitRequest{
		GroupID: group, GenerationID: -1,
		Topics: map[string][]kafka.OffsetCommit{topic: {{Partition: partition, Offset: offset}}},
	})
	if err != nil {
		t.Fatalf("commit %s: %v", group, err)
	}
	for _, ps := range res.Topics {
		for _, p := range ps {
			if p.Error != nil {
				t.Fatalf("commit %s: %v", group, p.Error)
			}
		}
	}
}
