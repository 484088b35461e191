package ui

import (
	"errors"
	"strings"
	"testing"
)

// N on the connectors screen: a prompt for the new name, the plan of
// every step in a dialog that runs nothing until the new name is typed
// there, then the steps, and the result in the status line.
func TestRenameFromTheConnectorsScreen(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	selectConnector(t, m, "jdbc-orders")
	send(t, m, press("N")...)
	if !strings.Contains(screenText(m), "Rename · jdbc-orders") {
		t.Fatalf("N opened no rename prompt:\n%s", screenText(m))
	}
	send(t, m, press("jdbc-orders")...)
	if !strings.Contains(screenText(m), "that is its name now") {
		t.Fatalf("the same name is not refused:\n%s", screenText(m))
	}
	for range len("jdbc-orders") {
		send(t, m, press("backspace")...)
	}
	send(t, m, press("orders-v2")...)
	settle(t, m, send(t, m, press("enter")...))
	text := screenText(m)
	for _, want := range []string{"Rename · jdbc-orders → orders-v2", "1. stop jdbc-orders", "2. create orders-v2 STOPPED", "Type orders-v2 to confirm"} {
		if !strings.Contains(text, want) {
			t.Errorf("the rename's dialog lacks %q:\n%s", want, text)
		}
	}
	// enter does nothing until the new name is typed.
	settle(t, m, send(t, m, press("enter")...))
	requireCalls(t, ed, "plan-rename jdbc-orders orders-v2")
	send(t, m, press("orders-v2")...)
	pressSettle(t, m, "enter")
	requireCalls(t, ed, "plan-rename jdbc-orders orders-v2", "apply-operation rename of jdbc-orders to orders-v2")
	requireStatus(t, m, "rename of jdbc-orders to orders-v2: all 4 steps done · undo: koff undo orders-v2 --edit 20261205T101646.888Z-20085b7d")
	if m.op != nil {
		t.Fatal("the dialog stays open after the rename")
	}
}

// A rename that fails midway says which steps happened and how to bring
// back the start.
func TestRenameFailedMidwaySaysWhichStepsHappened(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	ed.applyErr = errors.New("connection reset by peer")
	selectConnector(t, m, "jdbc-orders")
	send(t, m, press("N")...)
	send(t, m, press("orders-v2")...)
	settle(t, m, send(t, m, press("enter")...))
	send(t, m, press("orders-v2")...)
	pressSettle(t, m, "enter")
	requireStatus(t, m, "rename of jdbc-orders to orders-v2 stopped at step 3 (delete jdbc-orders): connection reset by peer")
	requireStatus(t, m, "done: 1 stop jdbc-orders, 2 create orders-v2")
	requireStatus(t, m, "koff undo orders-v2 --edit 20261205T101646.888Z-20085b7d brings back the start")
}

// Without Connect's REST API a rename cannot be made: N says why.
func TestRenameNeedsREST(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, func(o *Options) { o.REST = false })
	selectConnector(t, m, "jdbc-orders")
	send(t, m, press("N")...)
	requireStatus(t, m, "needs --connect-url: a rename creates and deletes connectors through Connect's REST API")
	requireCalls(t, ed)
}
