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

// TestSinkOffsetBeyondTheEndWithALeaderEpoch: a committed offset beyond the
// log end that carries a leader epoch is validated before any fetch
// (KafkaConsumer's SubscriptionState.maybeCompleteValidation, after
// OffsetsForLeaderEpoch): the epoch ends before the offset, "Truncation
// detected", and the consumer moves to where the epoch ends, not to the
// policy's place; an epoch the log does not know resets by the policy;
// none fails the task either way. Epoch -1 (REST, kafka-consumer-groups)
// is not validated: the fetch is out of range and the policy decides.
func TestSinkOffsetBeyondTheEndWithALeaderEpoch(t *testing.T) {
	at := time.Now()
	log := Log{Start: 0, End: 4}
	one := func(sp SinkPartition, config map[string]string) Partition {
		sp.Topic, sp.Log = "t", log
		return Sink("s", "", config, "g", []SinkPartition{sp}, "", at).Partitions[0]
	}
	// Epoch 0 of a topic created again ends at its log end: nothing the
	// log holds is read.
	p := one(SinkPartition{Committed: 9, Epoch: 0, EpochEnd: 4}, nil)
	if p.State != Gap || p.Lost.Records != 4 || p.ResumesAt != "offset 4" || p.Position != "offset 9" || !strings.Contains(p.Action, "Truncation detected") {
		t.Errorf("epoch ends at the log end: %+v", p)
	}
	// An epoch that ends mid-log: the records before are skipped.
	p = one(SinkPartition{Committed: 9, Epoch: 1, EpochEnd: 2}, nil)
	if p.State != Gap || p.Lost.Records != 2 || p.ResumesAt != "offset 2" || !strings.Contains(p.Action, "and reads the 2 records after") {
		t.Errorf("epoch ends mid-log: %+v", p)
	}
	// An epoch that ends at the log start: everything is read.
	p = one(SinkPartition{Committed: 9, Epoch: 0, EpochEnd: 0}, nil)
	if p.State != Replay || p.Replayed.Records != 4 || p.ResumesAt != "offset 0" {
		t.Errorf("epoch ends at the log start: %+v", p)
	}
	// Unknown to the log: the policy.
	p = one(SinkPartition{Committed: 9, Epoch: 7, EpochEnd: -1}, nil)
	if p.State != Replay || p.Replayed.Records != 4 || !strings.Contains(p.Action, "leader epoch 7 is not in the log") {
		t.Errorf("epoch unknown: %+v", p)
	}
	// No epoch: the policy.
	p = one(SinkPartition{Committed: 9, Epoch: -1, EpochEnd: -1}, nil)
	if p.State != Replay || p.Replayed.Records != 4 || strings.Contains(p.Action, "epoch") {
		t.Errorf("no epoch: %+v", p)
	}
	// none: the task fails.
	p = one(SinkPartition{Committed: 9, Epoch: 0, EpochEnd: 4}, map[string]string{"consumer.override.auto.offset.reset": "none"})
	if p.State != Replay || !strings.Contains(p.Action, "fail") {
		t.Errorf("none: %+v", p)
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
