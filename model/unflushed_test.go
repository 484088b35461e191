package model

import (
	"testing"
	"time"
)

// A connector REST reports STOPPED or PAUSED has no task flushing: koff
// status, koff metrics and the dashboard all say idle, also in the
// interval right after its last records (which may be another tool's
// edit, no flush). A REST state kept from before REST's outage is no
// evidence, and neither is a secondary copy's.
func TestStoppedConnectorIsIdleRightAfterItsLastRecords(t *testing.T) {
	now := time.Date(2026, 12, 3, 2, 0, 0, 0, time.UTC)
	row := func(state, stale, own string) ConnectorRow {
		return ConnectorRow{
			ID:         ConnectorID{Topic: "connect-offsets", Name: "jdbc"},
			Partitions: 1,
			Flushes:    []FlushEvent{{Start: now.Add(-2 * time.Second), End: now.Add(-2 * time.Second)}},
			REST:       ConnectorState{State: state},
			InREST:     true,
			RESTStale:  stale,
			OwnTopic:   own,
		}
	}
	for _, c := range []struct {
		name       string
		r          ConnectorRow
		want       FlushStatus
		wantReason string
	}{
		{"stopped", row("STOPPED", "", ""), FlushIdle, "STOPPED: no task flushes"},
		{"paused", row("PAUSED", "", ""), FlushIdle, "PAUSED: no task flushes"},
		{"running", row("RUNNING", "", ""), FlushOK, "flushing"},
		{"stopped, REST out of reach", row("STOPPED", "connection refused", ""), FlushOK, "flushing"},
	} {
		rep := c.r.Flush(now, 5*time.Second)
		if rep.Status != c.want || rep.Reason != c.wantReason {
			t.Errorf("%s: %s (%s), want %s (%s)", c.name, rep.Status, rep.Reason, c.want, c.wantReason)
		}
	}
}
