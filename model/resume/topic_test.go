package resume

import (
	"strings"
	"testing"
)

// TestJudgeOffsetAgainstTheLog: a consumer's next offset within its log
// resumes; below the log start the records in between are skipped (or the
// task fails), by the policy; beyond the log end the policy moves it back
// (earliest: everything the log holds is read) or skips what is held
// (latest). The consumer's reset is KafkaConsumer's auto.offset.reset on
// OffsetOutOfRange.
func TestJudgeOffsetAgainstTheLog(t *testing.T) {
	log := Log{Start: 100, End: 150}
	earliest := Policy{Reset: ResetEarliest, From: "test"}
	latest := Policy{Reset: ResetLatest, From: "test"}
	none := Policy{Reset: ResetNone, From: "test"}
	for _, c := range []struct {
		name      string
		next      int64
		p         Policy
		state     State
		lost      int64
		replayed  int64
		resumesAt string
		action    string
	}{
		{"at the log start", 100, earliest, Resumes, -1, -1, "", "reads on from offset 100 (50 records to read)"},
		{"at the log end", 150, earliest, Resumes, -1, -1, "", "reads on from offset 150 (0 records to read)"},
		{"within", 120, none, Resumes, -1, -1, "", "30 records to read"},
		{"below, earliest", 40, earliest, Gap, 60, -1, "offset 100", "moves it to the log start, offset 100, skipping the 60 records"},
		{"below, latest", 40, latest, Gap, 110, -1, "offset 150", "skipping the 60 records deleted and the 50 records still held"},
		{"below, none", 40, none, Gap, 60, -1, "", "makes the task fail (OffsetOutOfRangeException)"},
		{"below by one", 99, earliest, Gap, 1, -1, "offset 100", "skipping the 1 record"},
		{"beyond, earliest", 900, earliest, Replay, -1, 50, "offset 100", "reads the 50 records the log holds from there"},
		{"beyond, latest", 900, latest, Gap, 50, -1, "offset 150", "skipping the 50 records the log holds"},
		{"beyond, none", 151, none, Replay, -1, -1, "", "makes the task fail"},
		{"below, by duration", 40, Policy{Reset: "by_duration:pt1h", From: "test"}, Gap, 60, -1, "", "first record at or after that time"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := JudgeOffset(c.next, log, c.p)
			if got.State != c.state || got.Lost.Records != c.lost || got.Replayed.Records != c.replayed || got.ResumesAt != c.resumesAt {
				t.Errorf("JudgeOffset(%d, %+v, %s) = %s lost %d replayed %d resumes at %q; want %s lost %d replayed %d at %q",
					c.next, log, c.p.Reset, got.State, got.Lost.Records, got.Replayed.Records, got.ResumesAt, c.state, c.lost, c.replayed, c.resumesAt)
			}
			if !strings.Contains(got.Action, c.action) {
				t.Errorf("action %q does not say %q", got.Action, c.action)
			}
			if got.Position != "offset "+itoa(c.next) {
				t.Errorf("position %q", got.Position)
			}
		})
	}
}

// TestSinkPolicyIsConnectsEarliestUnlessOverridden: Connect's
// Worker.baseConsumerConfigs (apache/kafka, connect/runtime Worker.java)
// puts auto.offset.reset=earliest in every sink task's consumer config,
// and the connector's consumer.override.auto.offset.reset replaces it.
// MirrorMaker 2's MirrorConnectorConfig.sourceConsumerConfig lays
// consumer.* then source.consumer.* over its source consumer and puts
// earliest if absent.
func TestSinkPolicyIsConnectsEarliestUnlessOverridden(t *testing.T) {
	if p := SinkPolicy(nil); p.Reset != ResetEarliest || !strings.Contains(p.From, "default") {
		t.Errorf("SinkPolicy(nil) = %+v", p)
	}
	if p := SinkPolicy(map[string]string{"consumer.override.auto.offset.reset": " Latest "}); p.Reset != ResetLatest || p.From != "consumer.override.auto.offset.reset" {
		t.Errorf("override: %+v", p)
	}
	// A consumer.* without override. is the worker's prefix, not the connector's.
	if p := SinkPolicy(map[string]string{"consumer.auto.offset.reset": "latest"}); p.Reset != ResetEarliest {
		t.Errorf("consumer.auto.offset.reset on a sink: %+v", p)
	}
	if p := MirrorPolicy(nil); p.Reset != ResetEarliest {
		t.Errorf("MirrorPolicy(nil) = %+v", p)
	}
	both := map[string]string{"consumer.auto.offset.reset": "none", "source.consumer.auto.offset.reset": "latest"}
	if p := MirrorPolicy(both); p.Reset != ResetLatest || p.From != "source.consumer.auto.offset.reset" {
		t.Errorf("MirrorPolicy(both) = %+v", p)
	}
	if p := MirrorPolicy(map[string]string{"consumer.auto.offset.reset": "none"}); p.Reset != ResetNone {
		t.Errorf("MirrorPolicy(consumer.) = %+v", p)
	}
}
