package ui

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"koff/ui/dialogs"
)

// The T rewind is a rewind wherever the dashboard tells it: the
// confirmation's title, the result in the status bar, and u's undo.
func TestTheDashboardTellsARewindAsARewind(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {100, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) { dashboardTellsARewind(t, sz[0], sz[1]) })
	}
}

func dashboardTellsARewind(t *testing.T, w, h int) {
	_, ed, m := editModel(t, w, h, nil)
	openConnectorNamed(t, m, "file-source")
	send(t, m, press("T")...)
	form, ok := m.form.(*dialogs.RewindForm)
	if !ok {
		t.Fatalf("T did not open the rewind dialog:\n%s", screenText(m))
	}
	form.Input.SetValue("")
	send(t, m, press("2025-11-29T18:09:25Z")...)
	pressSettle(t, m, "enter")
	if m.confirm == nil {
		t.Fatalf("no confirmation: %s\n%s", m.statusView(), screenText(m))
	}
	const at, stored = "2025-11-29 18:09:25.000 UTC", "2025-11-29T18:09:25.000Z"
	requireContains(t, m, "Rewind of file-source to "+at)
	requireLacks(t, m, "Import")
	pressSettle(t, m, "enter")
	requireStatus(t, m, "rewind of file-source to "+at+", 1 partition")

	eds, err := ed.real.Audit.Edits()
	if err != nil || len(eds) != 1 {
		t.Fatalf("audit: %v %d edits", err, len(eds))
	}
	if s := eds[0].Start; s.Kind != "rewind" || s.Rewind == nil || s.Rewind.At != stored || s.Rewind.Given != "2025-11-29T18:09:25Z" || s.Rewind.IfNewer != "leave" ||
		!strings.Contains(s.Command, "set file-source --to-datetime") {
		t.Errorf("the audit line of the dashboard's rewind: kind %s, rewind %+v, command %q", s.Kind, s.Rewind, s.Command)
	}
	send(t, m, tickMsg{})
	pressSettle(t, m, "u")
	if m.confirm == nil {
		t.Fatalf("u opened no dialog: %s\n%s", m.statusView(), screenText(m))
	}
	undo := ansi.Strip(strings.Join(m.confirm.Content(w-4), "\n"))
	if !strings.Contains(undo, "Undoes   rewind of file-source\n") || !strings.Contains(undo, "to "+at+" by alice") {
		t.Errorf("u does not name the rewind it undoes:\n%s", undo)
	}
}

// u says in the status bar which lines of the audit log it skipped: the
// edit meant may be in one of them.
func TestUndoSaysWhichAuditLinesItSkipped(t *testing.T) {
	_, ed, m := editModel(t, 100, 40, nil)
	selectPartition(t, m, "jdbc-orders", "customers")
	send(t, m, press("e")...)
	setField(m, 0, `{"incrementing":1}`)
	pressSettle(t, m, "ctrl+s")
	pressSettle(t, m, "enter")
	f, err := os.OpenFile(ed.real.Audit.Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"x","time":"2025-`)
	f.Close()
	send(t, m, tickMsg{})
	pressSettle(t, m, "u")
	if m.confirm == nil {
		t.Fatalf("u opened no dialog: %s", m.statusView())
	}
	requireStatus(t, m, "line 4: cut short (not a whole JSON line): skipped")

	// Nothing left to undo but the skipped line: the refusal says it too.
	send(t, m, press("esc")...)
	os.WriteFile(ed.real.Audit.Path, []byte("garbage\n"), 0o600)
	pressSettle(t, m, "u")
	requireStatus(t, m, "line 1: not an audit line")
}
