package ui

import (
	"strings"
	"testing"
	"time"

	"koff/model"
	"koff/ui/dialogs"
)

// The dashboard in New York: a commit's time copied from the partition's
// history (UTC, with or without its " UTC") and pasted into T names the
// same commit as in UTC; the dialog echoes the instant in UTC and in New
// York; a time without a zone is UTC, never New York's; a time in the
// future is refused in the dialog and nothing is planned.
func TestRewindDialogInNewYorkReadsTimesAsTheScreensShowThem(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no zone database: %v", err)
	}
	clock := t0.In(ny)
	_, ed, m := editModel(t, 100, 40, func(o *Options) { o.Now = func() time.Time { return clock } })
	openHistory(t, m)
	shown := "2025-11-29 18:09:20.000 UTC"
	if !strings.Contains(contentText(m), shown) {
		t.Fatalf("the history does not show %q:\n%s", shown, contentText(m))
	}
	send(t, m, press("esc", "esc")...)
	for _, c := range []struct{ typed, read, asked string }{
		{shown, "read as 2025-11-29 18:09:20.000 UTC (2025-11-29 13:09:20.000 EST, 40s ago)", "2025-11-29T18:09:20Z"},
		// Read as New York's, 18:09:20 would be 23:09:20 UTC: after now.
		{strings.TrimSuffix(shown, " UTC"), "read as 2025-11-29 18:09:20.000 UTC (2025-11-29 13:09:20.000 EST, 40s ago)", "2025-11-29T18:09:20Z"},
		{"2025-11-29 13:09:20 EST", "read as 2025-11-29 18:09:20.000 UTC", "2025-11-29T18:09:20Z"},
		{"-50s", "read as 2025-11-29 18:09:10.000 UTC (2025-11-29 13:09:10.000 EST, 50s ago)", "2025-11-29T18:09:10Z"},
	} {
		t.Run(c.typed, func(t *testing.T) {
			openConnectorNamed(t, m, "file-source")
			send(t, m, press("T")...)
			form, ok := m.form.(*dialogs.RewindForm)
			if !ok {
				t.Fatalf("T did not open the rewind dialog:\n%s", screenText(m))
			}
			if v := form.Input.Value(); v != "2025-11-29 17:10 UTC" {
				t.Errorf("the dialog opens with %q, want an hour ago in UTC, as koff shows times", v)
			}
			form.Input.SetValue("")
			send(t, m, press(c.typed)...)
			requireContains(t, m, c.read)
			calls := len(ed.Calls())
			pressSettle(t, m, "enter")
			if m.confirm == nil {
				t.Fatalf("no confirmation: %s\n%s", m.statusView(), screenText(m))
			}
			if got := ed.Calls()[calls]; got != `rewind file-source `+c.asked+` ""` {
				t.Errorf("planned %s, want the rewind to %s", got, c.asked)
			}
			out := strings.Join(m.confirm.Content(200), "\n")
			if !strings.Contains(out, "rewind to "+strings.TrimPrefix(c.read, "read as ")) {
				t.Errorf("the plan does not echo %q:\n%s", c.read, out)
			}
			send(t, m, press("esc", "esc")...)
		})
	}
	// In the future, by a zone or by a sign: refused, nothing planned.
	for _, typed := range []string{"2025-11-29 19:00", "now+1h", "2025-11-29 18:10:00 -01:00"} {
		openConnectorNamed(t, m, "file-source")
		send(t, m, press("T")...)
		m.form.(*dialogs.RewindForm).Input.SetValue("")
		calls := len(ed.Calls())
		send(t, m, press(typed, "enter")...)
		requireContains(t, m, "in the future: give a time up to now")
		if m.confirm != nil || len(ed.Calls()) != calls {
			t.Fatalf("%q in the future was planned: %v", typed, ed.Calls()[calls:])
		}
		send(t, m, press("esc", "esc")...)
	}
}

// The header's outage and reload times are koff's one time form (UTC, the
// zone named), whatever the dashboard's zone: before, New York saw
// "disconnected since 13:08:00", a wall-clock time with no zone five hours
// off every other time on the screen.
func TestHeaderTimesAreUTCWithTheZoneNamed(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no zone database: %v", err)
	}
	f, _, m := editModel(t, 160, 30, func(o *Options) { o.Now = func() time.Time { return t0.In(ny) } })
	f.store.SetStatus(model.TailStatus{State: model.TailDisconnected, Reason: "connection refused",
		Since: t0.Add(-2 * time.Minute).In(ny), Reloaded: t0.Add(-time.Minute).In(ny), ReloadReason: "a new cluster id"})
	send(t, m, tickMsg{})
	requireContains(t, m, "disconnected since 2025-11-29 18:08:00.000 UTC", "↻ reloaded 2025-11-29 18:09:00.000 UTC: a new cluster id")
	if strings.Contains(screenText(m), "13:08") {
		t.Errorf("the header shows New York's wall clock:\n%s", screenText(m))
	}
}
