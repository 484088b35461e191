package ui

import (
	"strings"
	"testing"
	"time"

	"koff/ui/dialogs"
)

// The editor shows them under the field as the offset is typed, and
// still lets the edit go ahead.
func TestEditFormWarnsAboutShape(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}} {
		_, _, m := editModel(t, sz[0], sz[1], nil)
		selectPartition(t, m, "jdbc-orders", "9002") // customers
		send(t, m, press("e")...)
		setField(m, 0, `{"incrementing":9002}`)
		requireContains(t, m, "⚠ the same as the offset in force")
		setField(m, 0, `{"incrementng":9003}`)
		requireContains(t, m, "⚠ drops incrementing and adds", "incrementng")
		requireFits(t, screenText(m), sz[0], sz[1])
		if !m.form.(*dialogs.EditForm).Valid() {
			t.Error("a shape warning made the offset invalid")
		}
		send(t, m, press("esc")...)
		// n: a new partition whose field names differ from the others'.
		send(t, m, press("n")...)
		setField(m, 0, `{"protocol":"1","tabel":"refunds"}`)
		requireContains(t, m, "⚠ its partition fields (protocol, tabel) differ")
		send(t, m, press("esc")...)
	}
}

// A running task commits while e is open: the form says the offset in
// force moved and judges what is typed against the new one, keeping it.
func TestEditFormFollowsTheOffsetInForce(t *testing.T) {
	f, _, m := editModel(t, 80, 24, nil)
	selectPartition(t, m, "jdbc-orders", "9002") // customers
	send(t, m, press("e")...)
	setField(m, 0, `{"incrementing":9002}`)
	requireContains(t, m, "⚠ the same as the offset in force")
	f.put(t0.Add(time.Second), keyCustomers, `{"incrementing":9050}`)
	send(t, m, tickMsg{})
	requireContains(t, m, "Current offset (moved while this form was open)", `{"incrementing":9050}`)
	if strings.Contains(screenText(m), "the same as the offset in force") {
		t.Errorf("the no-op warning stayed after the offset moved:\n%s", screenText(m))
	}
	if got := m.form.(*dialogs.EditForm).Fields[0].Area.Value(); got != `{"incrementing":9002}` {
		t.Errorf("what was typed changed to %q", got)
	}
	setField(m, 0, `{"incrementing":9050}`)
	requireContains(t, m, "⚠ the same as the offset in force")
}

// The editor learns the shapes a connector writes from its history, as
// the CLI's plan does: Debezium's snapshot shape, once in the history,
// is no warning on a partition streaming now; a misspelt field still is.
func TestEditFormKnowsTheShapesTheConnectorWrote(t *testing.T) {
	f, _, m := editModel(t, 80, 24, nil)
	f.put(t0.Add(-2*time.Second), keyInventory, `{"ts_sec":1732903000,"file":"mysql-bin.000003","pos":154,"snapshot":true}`)
	f.put(t0.Add(-time.Second), keyInventory, `{"ts_sec":1732903001,"file":"mysql-bin.000003","pos":30154,"row":1,"server_id":223344,"event":2}`)
	send(t, m, tickMsg{})
	selectPartition(t, m, "inventory-connector", "dbserver1")
	send(t, m, press("e")...)
	setField(m, 0, `{"ts_sec":1732903000,"file":"mysql-bin.000003","pos":200,"snapshot":true}`)
	if s := screenText(m); strings.Contains(s, "│   ⚠") {
		t.Errorf("a shape in the connector's history warned:\n%s", s)
	}
	setField(m, 0, `{"ts_sec":1732903000,"file":"mysql-bin.000003","pos":200,"snapshott":true}`)
	requireContains(t, m, "⚠ drops snapshot and adds snapshott (misspelt?)")
}
