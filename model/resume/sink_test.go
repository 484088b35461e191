package resume

import (
	"strings"
	"testing"
	"time"
)

// TestSinkJudgesEachCommittedPartition: every committed topic-partition is
// judged against its log, sorted by topic and partition; the connector is
// as bad as its worst partition; a log koff could not read is unknown for
// that partition alone; a group koff could not read makes the whole sink
// unknown; no commits at all resumes with a note.
func TestSinkJudgesEachCommittedPartition(t *testing.T) {
	at := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	parts := []SinkPartition{
		{Topic: "orders", Partition: 1, Committed: 5, Log: Log{Start: 0, End: 9}},
		{Topic: "orders", Partition: 0, Committed: 3, Log: Log{Start: 10, End: 12}},
		{Topic: "audit", Partition: 0, Committed: 7, Err: "Unknown Topic Or Partition"},
		{Topic: "fresh", Partition: 0, Committed: -1, Log: Log{Start: 4, End: 4}},
	}
	c := Sink("s3-sink", "io.confluent.connect.s3.S3SinkConnector", map[string]string{}, "connect-s3-sink", parts, "", at)
	if c.State() != Gap || c.Type != "sink" || !c.Checked.Equal(at) {
		t.Fatalf("state %s type %s checked %s", c.State(), c.Type, c.Checked)
	}
	var got []string
	for _, p := range c.Partitions {
		got = append(got, p.Partition+" "+string(p.State))
	}
	if strings.Join(got, ",") != "audit/0 unknown,fresh/0 resumes,orders/0 gap,orders/1 resumes" {
		t.Errorf("partitions: %v", got)
	}
	if p := c.Partitions[2]; p.Lost.Records != 7 || p.ResumesAt != "offset 10" {
		t.Errorf("orders/0: %+v", p)
	}
	if p := c.Partitions[0]; !strings.Contains(p.Reason, "Unknown Topic Or Partition") {
		t.Errorf("audit/0 reason %q", p.Reason)
	}
	if n := c.Counts(); n[Gap] != 1 || n[Resumes] != 2 || n[Unknown] != 1 {
		t.Errorf("counts %v", n)
	}

	down := Sink("s3-sink", "", nil, "connect-s3-sink", nil, "coordinator not available", at)
	if down.State() != Unknown || !strings.Contains(down.Reason, "connect-s3-sink: coordinator not available") {
		t.Errorf("group down: %s %q", down.State(), down.Reason)
	}
	empty := Sink("new-sink", "", nil, "connect-new-sink", nil, "", at)
	if empty.State() != Resumes || !strings.Contains(empty.Note, "auto.offset.reset=earliest") {
		t.Errorf("no commits: %s %q", empty.State(), empty.Note)
	}
	// The connector's own reset policy decides: latest skips what the log holds.
	latest := Sink("s", "", map[string]string{"consumer.override.auto.offset.reset": "latest"}, "g",
		[]SinkPartition{{Topic: "t", Partition: 0, Committed: 3, Log: Log{Start: 10, End: 12}}}, "", at)
	if p := latest.Partitions[0]; p.Lost.Records != 9 || p.ResumesAt != "offset 12" || !strings.Contains(p.Action, "consumer.override.auto.offset.reset") {
		t.Errorf("latest: %+v", p)
	}
}

// TestSinkOffsetWithALeaderEpochIsValidatedFirst: a committed offset that
// carries a leader epoch is validated before any fetch (KafkaConsumer's
// SubscriptionState.maybeCompleteValidation, after OffsetsForLeaderEpoch):
// an epoch that ends before the offset moves the consumer to where it
// ends ("Truncation detected"), not to the policy's place; an epoch the
// log does not know resets by the policy even within the log; none fails
// the task. Epoch -1 (REST, kafka-consumer-groups) is not validated: out
// of range, the policy decides.
func TestSinkOffsetWithALeaderEpochIsValidatedFirst(t *testing.T) {
	at := time.Now()
	log := Log{Start: 0, End: 4}
	one := func(sp SinkPartition, config map[string]string) Partition {
		sp.Topic, sp.Log = "t", log
		sp.EpochAsked = sp.Epoch >= 0
		return Sink("s", "", config, "g", []SinkPartition{sp}, "", at).Partitions[0]
	}
	for _, c := range []struct {
		name       string
		sp         SinkPartition
		config     map[string]string
		state      State
		lost, read int64
		at, says   string
	}{
		// A topic created again: epoch 0 ends at its log end, nothing the
		// log holds is read.
		{"beyond, epoch ends at the end", SinkPartition{Committed: 9, Epoch: 0, EpochEnd: 4}, nil, Gap, 4, -1, "offset 4", "Truncation detected"},
		{"beyond, epoch ends mid-log", SinkPartition{Committed: 9, Epoch: 1, EpochEnd: 2}, nil, Gap, 2, -1, "offset 2", "skipping the 2 records before it"},
		{"beyond, epoch ends at the start", SinkPartition{Committed: 9, Epoch: 0, EpochEnd: 0}, nil, Replay, -1, 4, "offset 0", "reads the 4 records the log holds"},
		{"beyond, epoch unknown", SinkPartition{Committed: 9, Epoch: 7, EpochEnd: -1}, nil, Replay, -1, 4, "offset 0", "leader epoch 7 is not in the log"},
		{"beyond, no epoch", SinkPartition{Committed: 9, Epoch: -1}, nil, Replay, -1, 4, "offset 0", "auto.offset.reset=earliest"},
		{"beyond, none", SinkPartition{Committed: 9, Epoch: 0, EpochEnd: 4}, map[string]string{"consumer.override.auto.offset.reset": "none"}, Replay, -1, -1, "", "fails the task (LogTruncationException"},
		// Within the log after an unclean leader election: the epoch
		// ended at 1, the consumer goes back there and reads 2 again.
		{"within, epoch ended before", SinkPartition{Committed: 3, Epoch: 2, EpochEnd: 1}, nil, Replay, -1, 2, "offset 1", "reads the 2 records before offset 3 again"},
		{"within, epoch unknown", SinkPartition{Committed: 3, Epoch: 9, EpochEnd: -1}, nil, Replay, -1, 3, "offset 0", "resets it by auto.offset.reset=earliest"},
		{"within, epoch unknown, latest", SinkPartition{Committed: 3, Epoch: 9, EpochEnd: -1}, map[string]string{"consumer.override.auto.offset.reset": "latest"}, Gap, 1, -1, "offset 4", "skipping the 1 record after offset 3"},
		{"within, valid", SinkPartition{Committed: 3, Epoch: 0, EpochEnd: 4}, nil, Resumes, -1, -1, "", "reads on from offset 3"},
	} {
		p := one(c.sp, c.config)
		if p.State != c.state || p.Lost.Records != c.lost || p.Replayed.Records != c.read || p.ResumesAt != c.at || !strings.Contains(p.Action, c.says) || p.Position != "offset "+itoa(c.sp.Committed) {
			t.Errorf("%s: %s lost %d read %d at %q: %s", c.name, p.State, p.Lost.Records, p.Replayed.Records, p.ResumesAt, p.Action)
		}
	}
	// Below the log start, an epoch that still ends past the offset: the
	// fetch is out of range and the policy decides, as without one.
	low := Sink("s", "", nil, "g", []SinkPartition{{Topic: "t", Committed: 2, Epoch: 0, EpochEnd: 20, EpochAsked: true, Log: Log{Start: 5, End: 20}}}, "", at).Partitions[0]
	if low.State != Gap || low.Lost.Records != 3 || low.ResumesAt != "offset 5" {
		t.Errorf("below the start, valid epoch: %+v", low)
	}
}

// TestSinkLeavesOutTopicsItNoLongerReads: a group keeps the offsets of
// topics a sink was once given; only its topics (or topics.regex) are
// judged, the others named in a note.
func TestSinkLeavesOutTopicsItNoLongerReads(t *testing.T) {
	parts := []SinkPartition{
		{Topic: "orders", Committed: 5, Log: Log{Start: 0, End: 9}},
		{Topic: "legacy", Committed: 1, Log: Log{Start: 50, End: 60}},
	}
	for _, config := range []map[string]string{{"topics": "orders, audit"}, {"topics.regex": "ord.*"}} {
		c := Sink("s", "", config, "g", parts, "", time.Now())
		if c.State() != Resumes || len(c.Partitions) != 1 || !strings.Contains(c.Note, "no longer reads are left out: legacy") {
			t.Errorf("%v: %s %+v %q", config, c.State(), c.Partitions, c.Note)
		}
	}
	if c := Sink("s", "", nil, "g", parts, "", time.Now()); c.State() != Gap {
		t.Errorf("without a config every topic is judged: %s", c.State())
	}
}
