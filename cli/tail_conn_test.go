package cli

import (
	"strings"
	"testing"
	"time"

	"koff/model"
)

// One outage is one "disconnected" line and one "reconnected" line, however
// often its reason changes and however the tailer retries; a stall that
// turns into a failure says so once.
func TestTailReportsOneOutageOnce(t *testing.T) {
	var out strings.Builder
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	c := connReport{w: &out, down: model.TailLive}
	for _, st := range []model.TailStatus{
		{State: model.TailLive},
		{State: model.TailStalled, Reason: "no fetch answered for 6s", Since: t0},
		{State: model.TailStalled, Reason: "no fetch answered for 7s", Since: t0},
		{State: model.TailDisconnected, Reason: "timed out waiting for the broker", Since: t0},
		{State: model.TailDisconnected, Reason: "dial tcp: connection refused", Since: t0},
		{State: model.TailDisconnected, Reason: "the broker at k:9092 reset the connection", Since: t0},
		{State: model.TailLive},
		{State: model.TailLive},
		{State: model.TailDisconnected, Reason: "bad\x1b]0;x\x07", Since: t0.Add(time.Minute)},
	} {
		c.update(st)
	}
	got := out.String()
	want := "koff: stalled since 2026-12-01 10:00:00.000 UTC: no fetch answered for 6s (waiting)\n" +
		"koff: disconnected since 2026-12-01 10:00:00.000 UTC: timed out waiting for the broker (retrying)\n"
	if !strings.HasPrefix(got, want) {
		t.Fatalf("got\n%s\nwant it to begin\n%s", got, want)
	}
	if n := strings.Count(got, "reconnected after"); n != 1 {
		t.Errorf("%d reconnected lines:\n%s", n, got)
	}
	if !strings.HasSuffix(got, `koff: disconnected since 2026-12-01 10:01:00.000 UTC: bad\x1b]0;x\x07 (retrying)`+"\n") {
		t.Errorf("a second outage, its reason escaped:\n%s", got)
	}
}
