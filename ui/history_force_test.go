package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"koff/edit/history"
	"koff/model"
	"koff/ui/dialogs"
	"koff/ui/screens"
)

// historySection is the detail's content from its History heading on.
func historySection(m *Model) string {
	out := contentText(m)
	if i := strings.LastIndex(out, "\nHistory"); i >= 0 {
		return out[i:]
	}
	return ""
}

// lineWith is the first line of the detail's content that holds s.
func lineWith(m *Model, s string) string {
	for _, l := range strings.Split(contentText(m), "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// A commit the Tailer reads after the history was read is at the top of
// the list at once, marked in force, not five seconds later; the commit
// it replaced is no longer marked, and the commit chosen stays chosen.
func TestHistoryShowsTheCommitInForceAtOnce(t *testing.T) {
	now := t0
	f, _, m := editModel(t, 200, 50, func(o *Options) { o.Now = func() time.Time { return now } })
	openHistory(t, m)
	if l := lineWith(m, `{"position":143936}`); !strings.Contains(l, "in force") {
		t.Fatalf("the newest commit read is not marked in force: %q\n%s", l, contentText(m))
	}
	send(t, m, press("]")...)
	ds := m.top().(*screens.DetailScreen)
	chosen, _ := ds.SelectedCommit()
	f.put(now, keyAppLog, `{"position":150000}`)
	now = now.Add(250 * time.Millisecond)
	send(t, m, tickMsg{})
	if l := lineWith(m, `{"position":150000}`); !strings.Contains(l, "in force") {
		t.Fatalf("the commit in force is not shown at once, marked: %q\n%s", l, contentText(m))
	}
	if l := lineWith(m, `{"position":143936}`); strings.Contains(l, "in force") {
		t.Errorf("the replaced commit is still marked in force: %q", l)
	}
	out := contentText(m)
	if strings.Index(out, `{"position":150000}`) > strings.Index(out, `{"position":143936}`) {
		t.Errorf("the new commit is not at the top:\n%s", out)
	}
	if got, _ := ds.SelectedCommit(); got.TopicPartition != chosen.TopicPartition || got.Offset != chosen.Offset {
		t.Errorf("the chosen commit moved from %s@%d to %s@%d", chosen.TopicPartition, chosen.Offset, got.TopicPartition, got.Offset)
	}
	// [ chooses it, and t edits to its value.
	send(t, m, press("[", "[", "t")...)
	fm, ok := m.form.(*dialogs.EditForm)
	if !ok {
		t.Fatalf("t opened no form:\n%s", screenText(m))
	}
	if got := strings.Join(strings.Fields(fm.Fields[0].Area.Value()), ""); got != `{"position":150000}` {
		t.Errorf("t on the commit in force fills %s", got)
	}
}

// reload does what the Tailer does when the offsets topic was deleted and
// created again: the Store is emptied and the log holds new records.
func reload(f *fixture, at time.Time) {
	f.logMu.Lock()
	f.log = nil
	f.logMu.Unlock()
	f.store.Reset()
	f.store.SetStatus(model.TailStatus{State: model.TailLive, Since: at, Reloaded: at,
		ReloadReason: "offsets topic connect-offsets was deleted and created again"})
	f.put(at, keyAppLog, `{"position":7}`)
}

// After the Tailer reads the offsets topics again from scratch, the
// history read before is gone from the screen and read again at once;
// until it is, [, ] and t choose nothing and say why. The new history is
// the new log's.
func TestHistoryIsReadAgainAfterAReload(t *testing.T) {
	now := t0
	f, _, m := editModel(t, 100, 40, func(o *Options) { o.Now = func() time.Time { return now } })
	openHistory(t, m)
	send(t, m, press("]")...)
	now = now.Add(time.Second)
	reload(f, now)
	cmd := send(t, m, tickMsg{})
	out := contentText(m)
	if !strings.Contains(out, "history is being read again") || strings.Contains(out, `{"position":139840}`) {
		t.Fatalf("after the reload the old history is still shown:\n%s", out)
	}
	for _, k := range []string{"[", "]", "t"} {
		send(t, m, press(k)...)
		requireStatus(t, m, "history is being read again")
		if m.form != nil || m.busy != "" {
			t.Fatalf("%s acted on a history from before the reload", k)
		}
	}
	awaitHistory(t, m, cmd)
	out = contentText(m)
	if !strings.Contains(out, `{"position":7}`) || strings.Contains(out, `{"position":139840}`) {
		t.Fatalf("the history read again is not the new log's:\n%s", out)
	}
	send(t, m, press("t")...)
	fm, ok := m.form.(*dialogs.EditForm)
	if !ok {
		t.Fatalf("t after the new read opened no form:\n%s", screenText(m))
	}
	if got := strings.Join(strings.Fields(fm.Fields[0].Area.Value()), ""); got != `{"position":7}` {
		t.Errorf("t fills %s, not the new log's commit", got)
	}
}

// A read begun before a reload and answered after it is of a log that is
// gone: it is dropped, and the history read again; t meanwhile acts on
// nothing, even before the screen's next refresh.
func TestHistoryReadStraddlingAReloadIsDropped(t *testing.T) {
	now := t0
	f, _, m := editModel(t, 100, 40, func(o *Options) { o.Now = func() time.Time { return now } })
	openConnectorNamed(t, m, "file-source")
	var cmd = send(t, m, press("enter")...)
	for range 10 {
		if ds, ok := m.top().(*screens.DetailScreen); ok && ds.ID().Key == keyAppLog {
			if d, _ := ds.Detail(); d.Live {
				break
			}
		}
		send(t, m, press("esc", "down")...)
		cmd = send(t, m, press("enter")...)
	}
	msg := awaitMsg[historyMsg](t, cmd, "the history read did not answer")
	now = now.Add(time.Second)
	reload(f, now)
	again := send(t, m, msg) // answered after the reload, before any tick
	if h := historySection(m); strings.Contains(h, `{"position":139840}`) || !strings.Contains(h, "history is being read again") {
		t.Fatalf("a history read before the reload is shown:\n%s", h)
	}
	send(t, m, press("t")...)
	if m.form != nil {
		t.Fatal("t took a commit of a log that is gone")
	}
	requireStatus(t, m, "history is being read again")
	awaitHistory(t, m, again)
	if !strings.Contains(contentText(m), `{"position":7}`) {
		t.Fatalf("the history was not read again:\n%s", contentText(m))
	}
}

// A read that stops part way says so where the commits are, above them.
func TestHistoryPartialReadSaysSoInTheList(t *testing.T) {
	f, ed, m := editModel(t, 100, 60, nil)
	ed.real.History = func(ctx context.Context, topic string, keep func([]byte) bool, fn func(*history.Record) error) ([]history.RetainedLog, error) {
		logs, _ := f.readHistory(ctx, topic, keep, fn)
		return logs, errors.New("fetch connect-offsets/5: read tcp 10.0.0.7:9092: i/o timeout")
	}
	openHistory(t, m)
	out := contentText(m)
	warn := strings.Index(out, "the read stopped before the end")
	first := strings.Index(out, `{"position":143936}`)
	if warn < 0 || !strings.Contains(out, "i/o timeout") {
		t.Fatalf("a partial read is not said in the list:\n%s", out)
	}
	if first >= 0 && warn > first {
		t.Errorf("the partial read is said below the commits:\n%s", out)
	}
}

// Where the width allows, each commit is one line: its time, age, copy,
// place and value; narrower, each wraps as before.
func TestHistoryOneLinePerCommitWhenWide(t *testing.T) {
	_, _, m := editModel(t, 200, 50, nil)
	openHistory(t, m)
	l := lineWith(m, `{"position":139840}`)
	for _, want := range []string{"2025-11-29 18:09:40.000 UTC", "20s ago", "live", "connect-offsets/", `{"position":139840}`} {
		if !strings.Contains(l, want) {
			t.Errorf("the commit's line lacks %q: %q\n%s", want, l, contentText(m))
		}
	}
	_, _, m = editModel(t, 60, 20, nil)
	openHistory(t, m)
	if l := lineWith(m, `{"position":139840}`); strings.Contains(l, "20s ago") {
		t.Errorf("at 60 columns the commit is not wrapped: %q", l)
	}
	if !strings.Contains(contentText(m), "2025-11-29 18:09:40.000 UTC CreateTime") {
		t.Errorf("the wrapped commit lacks its time:\n%s", contentText(m))
	}
}

// An edit made from a commit (t) of a history read before a reload is
// closed, not applied: its value may be of a log that is gone.
func TestEditFromACommitIsDroppedAfterAReload(t *testing.T) {
	for _, stage := range []string{"form", "confirm"} {
		t.Run(stage, func(t *testing.T) {
			now := t0
			f, ed, m := editModel(t, 100, 40, func(o *Options) { o.Now = func() time.Time { return now } })
			openHistory(t, m)
			send(t, m, press("]", "t")...)
			if m.form == nil {
				t.Fatalf("t opened no form:\n%s", screenText(m))
			}
			if stage == "confirm" {
				pressSettle(t, m, "ctrl+s")
				if m.confirm == nil {
					t.Fatalf("no confirmation:\n%s", screenText(m))
				}
			}
			now = now.Add(time.Second)
			reload(f, now)
			if stage == "confirm" {
				send(t, m, press("enter")...) // before any tick
			} else {
				send(t, m, tickMsg{})
			}
			if m.form != nil || m.confirm != nil || m.busy != "" {
				t.Fatalf("the edit from a commit of a log that is gone is still open:\n%s", screenText(m))
			}
			requireStatus(t, m, "nothing was written: koff read the offsets topics again from scratch")
			for _, c := range ed.Calls() {
				if strings.HasPrefix(c, "apply") {
					t.Fatalf("applied: %v", ed.Calls())
				}
			}
		})
	}
}
