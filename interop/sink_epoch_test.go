package interop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol/metadata"
	"github.com/segmentio/kafka-go/protocol/offsetfetch"
)

// TestSinkEditsAfterTheLeaderEpochMoved: a real FileStreamSink resumes
// exactly where koff committed, on a partition whose leader epoch moved
// (the broker restarted between its records), directly and through REST;
// and an offset past the log end does what koff's plan says.
//
// Why the epoch matters: a consumer that starts from a committed offset
// carrying a leader epoch checks it (SubscriptionState's
// maybeValidatePositionForCurrentLeader, then an OffsetsForLeaderEpoch
// request): if that epoch ended before the offset, maybeCompleteValidation
// logs "Truncation detected" and moves to where the epoch ended. A commit
// with epoch 0 (kafka-go's zero value) on this partition, whose epoch 0
// ended at offset 10, sent the sink back to 10 and an offset past the end
// to 10 as well. Epoch -1, "none", is what Connect's REST API
// (Worker.alterSinkConnectorOffsets) and kafka-consumer-groups
// (ConsumerGroupCommand's reset) send through
// Admin#alterConsumerGroupOffsets: no validation, the position is used as
// it is. An offset past the end koff clamps to the end, as
// kafka-consumer-groups does (committed as asked it would get
// OFFSET_OUT_OF_RANGE and follow auto.offset.reset, earliest for sinks).
func TestSinkEditsAfterTheLeaderEpochMoved(t *testing.T) {
	s := realStack(t)
	name, topic := "epoch-sink", "epoch-sink-in"
	group := "connect-" + name
	part := fmt.Sprintf(`{"kafka_topic":%q,"kafka_partition":0}`, topic)
	s.createTopic(t, topic, 1)
	s.produce(t, topic, 0, sinkValues(0, 9)...)
	out := filepath.Join(s.FilesDir, name+".txt")
	s.createConnector(t, name, fileSink(out, topic))
	s.waitSinkCommitted(t, name, topic, 10)

	before := s.leaderEpoch(t, topic)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	began := time.Now()
	if err := s.RestartBroker(ctx); err != nil {
		t.Fatalf("restarting the broker: %v", err)
	}
	t.Logf("broker restarted, every partition led and the worker answering in %s", time.Since(began).Round(time.Second))
	after := s.leaderEpoch(t, topic)
	if after <= before {
		t.Fatalf("the broker restarted but %s/0's leader epoch is %d, was %d", topic, after, before)
	}
	t.Logf("%s/0: leader epoch %d before the broker restart, %d after", topic, before, after)
	s.produce(t, topic, 0, sinkValues(10, 19)...)
	s.waitSinkCommitted(t, name, topic, 20)
	want := sinkLines(0, 19)
	wantFile(t, out, want, "before any edit")
	_, own := s.committed(t, group, topic)
	t.Logf("the sink's own commit of offset 20 carries leader epoch %d", own)

	// Directly: koff commits to the group itself.
	s.stop(t, name)
	plan := mustKoff(t, s.withTopic("set", name, "--group", group, "--partition", part, "--offset", `{"kafka_offset":15}`, "--yes")...)
	if !strings.Contains(plan, "directly") {
		t.Errorf("without --connect-url the commit should go to the group directly:\n%s", plan)
	}
	s.wantCommitted(t, group, topic, 15, "koff's direct commit")
	s.resume(t, name)
	s.waitSinkCommitted(t, name, topic, 20)
	want = append(want, sinkLines(15, 19)...)
	wantFile(t, out, want, "after koff set to 15 directly")

	// Through Connect's REST API.
	s.stop(t, name)
	plan = mustKoff(t, s.withREST("set", name, "--partition", part, "--offset", `{"kafka_offset":12}`, "--yes")...)
	if !strings.Contains(plan, "Connect REST") {
		t.Errorf("with --connect-url the edit should go through Connect REST:\n%s", plan)
	}
	s.wantCommitted(t, group, topic, 12, "Connect's commit for koff's PATCH")
	s.resume(t, name)
	s.waitSinkCommitted(t, name, topic, 20)
	want = append(want, sinkLines(12, 19)...)
	wantFile(t, out, want, "after koff set to 12 through REST")

	// Past the log end, directly: koff clamps to the log end as
	// kafka-consumer-groups does, its plan says so, and the sink replays
	// nothing: it goes on with the next record produced.
	s.stop(t, name)
	plan = mustKoff(t, s.withTopic("set", name, "--group", group, "--to-offset", "100", "--yes")...)
	said := "offset 100 is above the log end 20: clamped to 20, as kafka-consumer-groups does"
	if !strings.Contains(plan, said) {
		t.Fatalf("koff's plan for offset 100 on a log of 0..19 should say %q:\n%s", said, plan)
	}
	s.wantCommitted(t, group, topic, 20, "koff's direct commit of 100, clamped to the log end")
	s.resume(t, name)
	s.produce(t, topic, 0, sinkValues(20, 21)...)
	s.waitSinkCommitted(t, name, topic, 22)
	want = append(want, sinkLines(20, 21)...)
	wantFile(t, out, want, "after koff set past the log end, whose plan said: "+said)
}

// sinkValues are the JSON strings "r<from>".."r<to>", one record each;
// FileStreamSink writes each as the line r<i>.
func sinkValues(from, to int) []string {
	var vs []string
	for i := from; i <= to; i++ {
		vs = append(vs, fmt.Sprintf(`"r%d"`, i))
	}
	return vs
}

func sinkLines(from, to int) []string {
	var ls []string
	for i := from; i <= to; i++ {
		ls = append(ls, fmt.Sprintf("r%d", i))
	}
	return ls
}

// waitSinkCommitted waits until the sink's committed offset of topic/0, as
// Connect reports it, is off. FileStreamSinkTask flushes its file before
// the worker commits, so every line before off is then in the file.
func (s *Stack) waitSinkCommitted(t *testing.T, name, topic string, off int64) {
	t.Helper()
	s.waitOffset(t, name, fmt.Sprintf(`{"kafka_partition":0,"kafka_topic":%q} => {"kafka_offset":%d}`, topic, off))
}

// wantFile fails unless path holds exactly the lines want.
func wantFile(t *testing.T, path string, want []string, when string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("%s the sink's file holds %d lines:\n  %s\nwant %d:\n  %s", when, len(got), strings.Join(got, " "), len(want), strings.Join(want, " "))
	}
}

// leaderEpoch is the leader epoch of topic's partition 0 (Metadata v7+).
func (s *Stack) leaderEpoch(t *testing.T, topic string) int32 {
	t.Helper()
	tr := &kafka.Transport{}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := tr.RoundTrip(ctx, kafka.TCP(s.Bootstrap), &metadata.Request{TopicNames: []string{topic}})
	if err != nil {
		t.Fatalf("metadata of %s: %v", topic, err)
	}
	for _, tm := range m.(*metadata.Response).Topics {
		for _, p := range tm.Partitions {
			if tm.Name == topic && p.PartitionIndex == 0 {
				return p.LeaderEpoch
			}
		}
	}
	t.Fatalf("metadata names no %s/0", topic)
	return 0
}

// committed is the group's committed offset of topic/0 and the leader
// epoch stored with it (OffsetFetch v5+), as the sink's consumer reads them.
func (s *Stack) committed(t *testing.T, group, topic string) (offset int64, epoch int32) {
	t.Helper()
	tr := &kafka.Transport{}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := tr.RoundTrip(ctx, kafka.TCP(s.Bootstrap), &offsetfetch.Request{
		GroupID: group, Topics: []offsetfetch.RequestTopic{{Name: topic, PartitionIndexes: []int32{0}}},
	})
	if err != nil {
		t.Fatalf("offsets of group %s: %v", group, err)
	}
	for _, tp := range m.(*offsetfetch.Response).Topics {
		for _, p := range tp.Partitions {
			if tp.Name == topic && p.PartitionIndex == 0 {
				return p.CommittedOffset, p.ComittedLeaderEpoch
			}
		}
	}
	t.Fatalf("group %s has no committed offset for %s/0", group, topic)
	return 0, 0
}

// wantCommitted fails unless topic/0's committed offset is off with no
// leader epoch (-1).
func (s *Stack) wantCommitted(t *testing.T, group, topic string, off int64, what string) {
	t.Helper()
	if gotOff, epoch := s.committed(t, group, topic); gotOff != off || epoch != -1 {
		t.Errorf("%s: committed offset %d with leader epoch %d, want %d with none (-1)", what, gotOff, epoch, off)
	}
}
