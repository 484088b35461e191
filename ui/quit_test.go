package ui

import (
	"testing"

	"koff/ui/dialogs"
)

// ctrl+c over an open dialog asks before quitting: n and esc go back to
// the dialog as it was (what was typed kept), y and a second ctrl+c quit.
// Without a dialog ctrl+c quits at once, as before.
func TestCtrlCOverADialogAsksFirst(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	selectPartition(t, m, "jdbc-orders", "customers")
	send(t, m, press("e")...)
	setField(m, 0, `{"incrementing":77}`)
	for _, back := range []string{"esc", "n"} {
		if isQuit(send(t, m, press("ctrl+c")...)) {
			t.Fatal("ctrl+c over the offset editor quit without asking")
		}
		requireContains(t, m, "Quit koff?", "offset editor", "y/ctrl+c quit koff", "n/esc back to the dialog")
		send(t, m, press(back)...)
		requireLacks(t, m, "Quit koff?")
		f, ok := m.form.(*dialogs.EditForm)
		if !ok || f.Fields[0].Area.Value() != `{"incrementing":77}` {
			t.Fatalf("%s did not return to the dialog as it was:\n%s", back, screenText(m))
		}
	}
	// Keys other than the answers wait: the dialog under it gets none.
	send(t, m, press("ctrl+c", "x", "enter")...)
	requireContains(t, m, "Quit koff?")
	if f := m.form.(*dialogs.EditForm); f.Fields[0].Area.Value() != `{"incrementing":77}` {
		t.Fatalf("a key under the question reached the dialog: %q", f.Fields[0].Area.Value())
	}
	if !isQuit(send(t, m, press("y")...)) {
		t.Fatal("y did not quit")
	}
	send(t, m, press("n")...)
	if !isQuit(send(t, m, press("ctrl+c", "ctrl+c")...)) {
		t.Fatal("a second ctrl+c did not quit")
	}
	requireCalls(t, ed)

	// Every kind of dialog asks: the confirmation, stop, the rewind form.
	for _, open := range [][]string{{"X"}, {"S"}, {"T"}} {
		_, _, m := editModel(t, 80, 24, nil)
		selectConnector(t, m, "jdbc-orders")
		pressSettle(t, m, open...)
		if !m.dialogOpen() {
			t.Fatalf("%v opened no dialog:\n%s", open, screenText(m))
		}
		if isQuit(send(t, m, press("ctrl+c")...)) {
			t.Fatalf("ctrl+c over %v's dialog quit without asking", open)
		}
		requireContains(t, m, "Quit koff?")
		send(t, m, press("esc")...)
		if !m.dialogOpen() {
			t.Fatalf("esc from the question closed %v's dialog", open)
		}
	}
	// No dialog: ctrl+c quits at once.
	_, _, m = editModel(t, 80, 24, nil)
	if !isQuit(send(t, m, press("ctrl+c")...)) {
		t.Fatal("ctrl+c without a dialog did not quit")
	}
}

// The question fits the smallest screens, and says when a job would be
// stopped part way.
func TestQuitQuestionFitsAndNamesTheJobInFlight(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {200, 50}} {
		_, _, m := editModel(t, sz[0], sz[1], nil)
		selectConnector(t, m, "jdbc-orders")
		pressSettle(t, m, "X")
		m.busy = "applying reset-all of jdbc-orders: writing, then reading it back…"
		send(t, m, press("ctrl+c")...)
		requireContains(t, m, "Quit koff?", "In flight:", "y/ctrl+c quit koff")
		m.busy = ""
	}
}
