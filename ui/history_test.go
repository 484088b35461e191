package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"koff/model/java"
	"koff/ui/dialogs"
	"koff/ui/screens"
)

// awaitHistory runs cmd (and every command of a batch) until the detail's
// history read answers, and hands the answer to the model.
func awaitHistory(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	send(t, m, awaitMsg[historyMsg](t, cmd, "the history read did not answer"))
}

// openHistory opens file-source's live application log partition, whose
// six commits (ten seconds apart) and a stray copy the demo store holds,
// and lets its history be read.
func openHistory(t *testing.T, m *Model) {
	t.Helper()
	openHistoryIn(t, m, java.PartitionFor([]byte(keyAppLog), 25))
}

// openHistoryIn opens the application log's copy in one partition of the
// offsets topic (7 holds a stray copy).
func openHistoryIn(t *testing.T, m *Model, live int) {
	t.Helper()
	openConnectorNamed(t, m, "file-source")
	for range 10 {
		cmd := send(t, m, press("enter")...)
		if ds, ok := m.top().(*screens.DetailScreen); ok && ds.ID().Key == keyAppLog && ds.ID().Partition == live {
			if !strings.Contains(contentText(m), "reading history…") {
				t.Fatalf("the detail does not say it reads the history:\n%s", contentText(m))
			}
			awaitHistory(t, m, cmd)
			return
		}
		send(t, m, press("esc", "down")...)
	}
	t.Fatalf("no live copy of the application log:\n%s", screenText(m))
}

// The detail lists every retained commit, newest first, with its age, the
// exact time, where it is (live or stray, topic-partition@offset), its
// value whole, and where each copy's history begins.
func TestDetailListsHistory(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	openHistory(t, m)
	requireCalls(t, ed, "history file-source")
	out := contentText(m)
	for _, want := range []string{
		"History  newest first · 7 commits retained · read just now",
		"live connect-offsets/", "stray connect-offsets/7: 1 commit from 2025-11-29 16:10:00.000 UTC",
		"10s ago · live", "2025-11-29 18:09:50.000 UTC CreateTime", `{"position":143936}`,
		"1m ago · live", `{"position":123456}`,
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("history lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, `{"position":143936}`) > strings.Index(out, `{"position":123456}`) {
		t.Errorf("history is not newest first:\n%s", out)
	}
}

// A value wider than the terminal wraps: every digit of it is on screen.
func TestHistoryValueWrapsWhole(t *testing.T) {
	f, _, m := editModel(t, 80, 24, nil)
	long := fmt.Sprintf(`{"position":%s}`, strings.Repeat("1234567890", 9))
	f.put(t0, keyAppLog, long)
	openHistory(t, m)
	out := strings.ReplaceAll(contentText(m), "\n      ", "")
	if !strings.Contains(out, long) {
		t.Fatalf("the long value is not whole:\n%s", contentText(m))
	}
}

// ] chooses an older commit and t opens the offset form filled with its
// value; enter plans the edit and the confirmation shows it.
func TestToCommitEditsToChosenValue(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	openHistory(t, m)
	send(t, m, press("]", "]")...)
	send(t, m, press("t")...)
	f, ok := m.form.(*dialogs.EditForm)
	if !ok {
		t.Fatalf("t did not open the offset form:\n%s", screenText(m))
	}
	if got := strings.Join(strings.Fields(f.Fields[0].Area.Value()), ""); got != `{"position":135744}` {
		t.Fatalf("form is filled with %s, want the third newest commit's value", got)
	}
	requireContains(t, m, "Edit offset to a commit", "From the commit")
	pressSettle(t, m, "ctrl+s")
	if m.confirm == nil {
		t.Fatalf("no confirmation:\n%s", screenText(m))
	}
	requireCalls(t, ed, "history file-source", "plan set file-source")
	requireContains(t, m, "135744")
}

// T on a source connector asks for a time, shows what it read, and plans
// the rewind the CLI plans: the confirmation names the commit taken.
func TestRewindDialogPlansRewind(t *testing.T) {
	_, ed, m := editModel(t, 100, 40, nil)
	openConnectorNamed(t, m, "file-source")
	send(t, m, press("T")...)
	form, ok := m.form.(*dialogs.RewindForm)
	if !ok {
		t.Fatalf("T did not open the rewind dialog:\n%s", screenText(m))
	}
	form.Input.SetValue("")
	send(t, m, press("2025-11-29T18:09:25Z")...)
	requireContains(t, m, "read as 2025-11-29 18:09:25.000 UTC (35s ago)")
	pressSettle(t, m, "enter")
	if m.confirm == nil {
		t.Fatalf("no confirmation: %s\n%s", m.statusView(), screenText(m))
	}
	requireCalls(t, ed, `rewind file-source 2025-11-29T18:09:25Z ""`)
	out := strings.Join(m.confirm.Content(200), "\n")
	for _, want := range []string{"rewind to 2025-11-29 18:09:25.000 UTC (35s ago)",
		`{"position":131648}, committed at 2025-11-29 18:09:20.000 UTC (CreateTime, connect-offsets/`,
		"set file-source --to-datetime 2025-11-29T18:09:25Z"} {
		if !strings.Contains(out, want) {
			t.Fatalf("confirmation lacks %q:\n%s", want, out)
		}
	}
	send(t, m, press("esc")...)
	requireStatus(t, m, "cancelled: nothing was written")
}

// A time that is no time says so in the dialog, and enter plans nothing.
func TestRewindDialogRefusesBadTime(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	openConnectorNamed(t, m, "file-source")
	send(t, m, press("T")...)
	m.form.(*dialogs.RewindForm).Input.SetValue("")
	send(t, m, press("yesterday", "enter")...)
	requireContains(t, m, `"yesterday" is not a time`)
	if m.busy != "" || len(ed.Calls()) != 0 {
		t.Fatalf("a bad time was planned: %v", ed.Calls())
	}
}

// contentText is the detail's whole content, scrolled or not.
func contentText(m *Model) string {
	return stripAll(m.top().(*screens.DetailScreen).Content())
}

func stripAll(lines []string) string {
	for i, l := range lines {
		lines[i] = ansi.Strip(l)
	}
	return strings.Join(lines, "\n")
}

// An edit applied from the detail (minutes after the partitions screen
// under it last drew) is marked on that screen's flush timeline when esc
// goes back to it, rather than falling off its end.
func TestEditFromHistoryThenBackToPartitions(t *testing.T) {
	clock := t0
	_, ed, m := editModel(t, 80, 24, func(o *Options) { o.Now = func() time.Time { return clock } })
	ed.state, ed.tasks = "STOPPED", 0
	openHistory(t, m)
	clock = t0.Add(3 * time.Minute)
	send(t, m, press("]", "t")...)
	pressSettle(t, m, "ctrl+s")
	if m.confirm == nil {
		t.Fatalf("no confirmation:\n%s", screenText(m))
	}
	pressSettle(t, m, "enter")
	requireStatus(t, m, "set 1 partition of file-source")
	send(t, m, press("esc")...)
	requireContains(t, m, "Connectors › file-source", "✎")
}

// A history longer than the detail keeps shows its newest commits first,
// says how many it read, and scrolls to the oldest it shows.
func TestBigHistoryShowsNewestFirst(t *testing.T) {
	f, _, m := editModel(t, 80, 24, nil)
	for i := range 700 {
		f.put(t0.Add(-time.Duration(700-i)*time.Hour), keyAppLog, fmt.Sprintf(`{"position":%d}`, 1_000_000+i))
	}
	openHistory(t, m)
	out := contentText(m)
	requireIn := func(want string) {
		t.Helper()
		if !strings.Contains(out, want) {
			t.Fatalf("history lacks %q", want)
		}
	}
	requireIn("707 commits retained")
	requireIn(fmt.Sprintf("the newest %d of 707 shown: koff history lists them all", screens.HistoryMax))
	if strings.Count(out, "CreateTime") != screens.HistoryMax {
		t.Errorf("%d commits shown, want %d", strings.Count(out, "CreateTime"), screens.HistoryMax)
	}
	newest := strings.Index(out, `{"position":143936}`) // t0-10s, the fixture's newest
	if newest < 0 || newest > strings.Index(out, `{"position":1000699}`) {
		t.Errorf("the newest commit is not first")
	}
	if strings.Contains(out, `{"position":1000000}`) {
		t.Errorf("the oldest commit is shown though %d newer ones are", screens.HistoryMax)
	}
	send(t, m, press("end")...)
	requireContains(t, m, `{"position":1000`, "lines ")
	requireLacks(t, m, "History  newest first")
}

// t on a stray copy's history edits the partition: the form shows the
// offset its task reads (the live copy's), not the stray's.
func TestToCommitFromStrayShowsLiveOffset(t *testing.T) {
	_, _, m := editModel(t, 100, 40, nil)
	openHistoryIn(t, m, 7)
	send(t, m, press("]", "t")...)
	f, ok := m.form.(*dialogs.EditForm)
	if !ok {
		t.Fatalf("t did not open the offset form:\n%s", screenText(m))
	}
	if f.Current != `{"position":143936}` {
		t.Errorf("current offset %s, want the live copy's", f.Current)
	}
}

// An edit applied from the history is in the history read next, marked as
// koff's: who made it and its edit id, from the audit log.
func TestHistoryMarksKoffEdits(t *testing.T) {
	_, ed, m := editModel(t, 100, 40, nil)
	ed.state, ed.tasks = "STOPPED", 0
	openHistory(t, m)
	send(t, m, press("]", "]", "t")...)
	pressSettle(t, m, "ctrl+s")
	pressSettle(t, m, "enter")
	requireStatus(t, m, "set 1 partition of file-source")
	send(t, m, press("esc")...)
	cmd := send(t, m, press("enter")...)
	awaitHistory(t, m, cmd)
	out := contentText(m)
	if !strings.Contains(out, "koff set by alice, edit ") {
		t.Fatalf("the edit is not marked as koff's:\n%s", out)
	}
	// The edit wrote both copies of the duplicated key; no older commit
	// is marked.
	if strings.Count(out, "koff set by alice") != 2 || !strings.Contains(out, "10s ago · live · connect-offsets/5@5\n") {
		t.Errorf("not exactly the two records koff wrote are marked:\n%s", out)
	}
}

// A tombstone is in the history as such; t on it plans a reset of the
// partition (or says the offset is deleted already), and on the commit
// before it puts that value back.
func TestHistoryTombstone(t *testing.T) {
	f, ed, m := editModel(t, 100, 40, nil)
	openOldLog := func() {
		t.Helper()
		openConnectorNamed(t, m, "file-source")
		for range 10 {
			cmd := send(t, m, press("enter")...)
			if ds, ok := m.top().(*screens.DetailScreen); ok && ds.ID().Key == keyOldLog {
				awaitHistory(t, m, cmd)
				return
			}
			send(t, m, press("esc", "down")...)
		}
		t.Fatal("no old.log partition")
	}
	openOldLog()
	out := contentText(m)
	for _, want := range []string{"2 commits retained · read just now · 1 tombstone", "1h ago · live", "✕ tombstone (offset deleted)", `{"position":99}`} {
		if !strings.Contains(out, want) {
			t.Fatalf("history lacks %q:\n%s", want, out)
		}
	}
	send(t, m, press("t")...)
	requireStatus(t, m, "offset is already deleted")

	// Recreated since: the tombstone is history, and t on it a reset.
	f.put(t0.Add(-time.Minute), keyOldLog, `{"position":5}`)
	send(t, m, press("esc", "esc", "esc")...)
	openOldLog()
	pressSettle(t, m, "]", "t")
	if m.confirm == nil {
		t.Fatalf("t on a tombstone planned no reset:\n%s", screenText(m))
	}
	requireCalls(t, ed, "history file-source", "history file-source", "plan reset file-source")
	send(t, m, press("esc", "]", "t")...)
	if f, ok := m.form.(*dialogs.EditForm); !ok || !strings.Contains(f.Fields[0].Area.Value(), "99") {
		t.Fatalf("t on the commit before the tombstone did not fill in its value:\n%s", screenText(m))
	}
}

// A commit made while the detail is open is read in the background once
// the history read is five seconds old: the history shown stays on screen
// meanwhile (no "reading history…"), and the commit chosen stays chosen.
func TestHistoryFollowsNewCommits(t *testing.T) {
	now := t0
	f, _, m := editModel(t, 80, 24, func(o *Options) { o.Now = func() time.Time { return now } })
	openHistory(t, m)
	send(t, m, press("]")...)
	ds := m.top().(*screens.DetailScreen)
	chosen, _ := ds.SelectedCommit()
	f.put(now, keyAppLog, `{"position":150000}`)
	now = now.Add(2 * time.Second)
	send(t, m, tickMsg{})
	if ds.HistoryBehind(now) {
		t.Fatal("a history read 2s ago is read again at once")
	}
	now = now.Add(4 * time.Second)
	cmd := send(t, m, tickMsg{})
	if out := contentText(m); strings.Contains(out, "reading history…") || !strings.Contains(out, `{"position":143936}`) {
		t.Fatalf("the history shown went away while it is read again:\n%s", out)
	}
	awaitHistory(t, m, cmd)
	out := contentText(m)
	for _, want := range []string{"8 commits retained · read just now", `{"position":150000}`} {
		if !strings.Contains(out, want) {
			t.Errorf("the history read again lacks %q:\n%s", want, out)
		}
	}
	if got, _ := ds.SelectedCommit(); got.TopicPartition != chosen.TopicPartition || got.Offset != chosen.Offset {
		t.Errorf("the chosen commit moved from %s@%d to %s@%d", chosen.TopicPartition, chosen.Offset, got.TopicPartition, got.Offset)
	}
	if ds.HistoryBehind(now.Add(time.Minute)) {
		t.Error("a history that shows the newest commit is still behind")
	}
}
