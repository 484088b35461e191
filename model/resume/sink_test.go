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
