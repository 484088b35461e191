package store

import (
	"strings"
	"testing"
	"time"

	"koff/model"
)

// A connector that commits only when it produced something (Debezium on
// an idle database, measured on the real worker: a snapshot's commit and
// a streaming commit 1.1 s apart, then nothing) is idle once nothing was
// written since its last flush, not late; late counts from when records
// were first seen unflushed, not from the last flush an hour ago.
func TestAConnectorThatCommitsOnlyOnChangeIsIdleNotLate(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	events := []model.FlushEvent{{Start: t0, End: t0}, {Start: t0.Add(1100 * time.Millisecond), End: t0.Add(1100 * time.Millisecond)}}
	last := events[1].End
	at := last.Add(2500 * time.Millisecond) // 2.3× the estimated interval
	if r := model.AssessFlush(events, at, model.FlushInputs{State: "RUNNING", Unflushed: 0}); r.Status != model.FlushIdle {
		t.Errorf("nothing unflushed at 2.3× its interval: %s (%s), want idle", r.Status, r.Reason)
	}
	// An hour idle, then 1 record seen 0.5 s ago: its flush is not due yet.
	hour := last.Add(time.Hour)
	r := model.AssessFlush(events, hour, model.FlushInputs{State: "RUNNING", Unflushed: 1, Pending: hour.Add(-500 * time.Millisecond)})
	if r.Status != model.FlushOK || !strings.Contains(r.Reason, "1 records to flush") {
		t.Errorf("1 record seen 0.5 s ago after an idle hour: %s (%s), want ok", r.Status, r.Reason)
	}
	// Seen 10 s ago and still not flushed: stalled.
	r = model.AssessFlush(events, hour, model.FlushInputs{State: "RUNNING", Unflushed: 1, Pending: hour.Add(-10 * time.Second)})
	if r.Status != model.FlushStalled {
		t.Errorf("1 record seen 10 s ago, no flush: %s (%s), want stalled", r.Status, r.Reason)
	}
	// The Store dates the records from the first measurement that saw them
	// after one that saw none since the same flush.
	s := NewStore(StoreOptions{})
	s.SetUnflushed("dbz", model.Unflushed{Records: 0, Since: last, At: hour.Add(-time.Second)})
	s.SetUnflushed("dbz", model.Unflushed{Records: 1, Since: last, At: hour.Add(-500 * time.Millisecond)})
	s.SetUnflushed("dbz", model.Unflushed{Records: 2, Since: last, At: hour})
	if u := s.unflushed["dbz"]; !u.Pending.Equal(hour.Add(-500 * time.Millisecond)) {
		t.Errorf("pending since %v, want the first measurement that saw records", u.Pending)
	}
}

// While koff cannot read the offsets topics, a connector whose last flush
// koff saw grows old is unknown, not late or stalled: koff is blind, not
// the connector. A REST state from before REST went out of reach is no
// evidence either.
func TestAnOutageMakesFlushesUnknownNotLate(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	var events []model.FlushEvent
	for i := range 5 {
		at := t0.Add(time.Duration(i) * time.Second)
		events = append(events, model.FlushEvent{Start: at, End: at})
	}
	last := events[4].End
	row := model.ConnectorRow{ID: model.ConnectorID{Topic: "connect-offsets", Name: "src"}, Type: "source", Flushes: events, InREST: true,
		REST: model.ConnectorState{State: "RUNNING"}, Unflushed: &model.Unflushed{Records: 0, Since: last, At: last}}
	now := last.Add(10 * time.Second)
	for _, tc := range []struct {
		tail model.TailStatus
		want string
	}{
		{model.TailStatus{State: model.TailDisconnected, Since: last.Add(time.Second)}, "Kafka disconnected since "},
		{model.TailStatus{State: model.TailStalled, Since: last.Add(time.Second)}, "Kafka stalled since "},
		{model.TailStatus{State: model.TailLive, Silent: last.Add(time.Second)}, "no answer from Kafka for 9s"},
	} {
		row.Tail = tc.tail
		row.Unflushed.Records = 5 // the last measurement before the outage
		if r := row.Flush(now, 0); r.Status != model.FlushUnknown || !strings.HasPrefix(r.Reason, tc.want) {
			t.Errorf("%v: %s (%s), want unknown %q", tc.tail.State, r.Status, r.Reason, tc.want)
		}
	}
	// Recovered: the same row is judged on its evidence again.
	row.Tail = model.TailStatus{State: model.TailLive}
	if r := row.Flush(now, 0); r.Status != model.FlushStalled {
		t.Errorf("after recovery: %s (%s), want stalled", r.Status, r.Reason)
	}
	// REST out of reach: its last RUNNING does not make a silent connector stalled.
	row.Unflushed = nil
	row.RESTStale = "connection refused"
	if r := row.Flush(now, 0); r.Status != model.FlushUnknown || !strings.Contains(r.Reason, "state unknown") {
		t.Errorf("stale REST state: %s (%s), want unknown", r.Status, r.Reason)
	}
}
