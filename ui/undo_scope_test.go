package ui

import (
	"testing"

	"koff/ui/screens"
)

// u undoes the last edit of the connector selected (or shown), as every
// key acts on the selected row: with jdbc-orders and then mm2-source
// edited, u on jdbc-orders undoes jdbc-orders' edit, never mm2-source's,
// on the connectors, partitions and detail screens alike; on a connector
// with no edit the status bar says so.
func TestUndoActsOnTheSelectedConnector(t *testing.T) {
	_, ed, m := editModel(t, 120, 50, nil)
	selectPartition(t, m, "jdbc-orders", "customers")
	send(t, m, press("e")...)
	setField(m, 0, `{"incrementing":1}`)
	pressSettle(t, m, "ctrl+s")
	pressSettle(t, m, "enter")
	requireStatus(t, m, "set 1 partition of jdbc-orders")
	send(t, m, press("esc", "esc")...)
	selectPartition(t, m, "mm2-source", "east")
	send(t, m, press("e")...)
	setField(m, 0, `{"offset":5}`)
	pressSettle(t, m, "ctrl+s")
	pressSettle(t, m, "enter")
	requireStatus(t, m, "set 1 partition of mm2-source")
	send(t, m, press("esc", "esc")...)
	send(t, m, tickMsg{})

	// The connectors screen: the selected row, not the last edit.
	selectConnector(t, m, "jdbc-orders")
	pressSettle(t, m, "u")
	if m.confirm == nil {
		t.Fatalf("u on jdbc-orders opened no dialog:\n%s", screenText(m))
	}
	if m.confirm.Plan.Connector != "jdbc-orders" {
		t.Fatalf("u on jdbc-orders offers the undo of %s", m.confirm.Plan.Connector)
	}
	requireContains(t, m, "jdbc-orders", `{"incrementing":1} → {"incrementing":9002}`)
	requireLacks(t, m, `{"offset":5}`)
	send(t, m, press("esc")...)

	// The partitions screen and the detail: the connector shown.
	openConnectorNamed(t, m, "jdbc-orders")
	pressSettle(t, m, "u")
	if m.confirm == nil || m.confirm.Plan.Connector != "jdbc-orders" {
		t.Fatalf("u on jdbc-orders' partitions did not offer jdbc-orders' undo:\n%s", screenText(m))
	}
	send(t, m, press("esc", "esc")...)
	selectPartition(t, m, "mm2-source", "east")
	send(t, m, press("enter")...)
	if _, ok := m.top().(*screens.DetailScreen); !ok {
		t.Fatalf("enter opened no detail:\n%s", screenText(m))
	}
	pressSettle(t, m, "u")
	if m.confirm == nil || m.confirm.Plan.Connector != "mm2-source" {
		t.Fatalf("u on mm2-source's partition did not offer mm2-source's undo:\n%s", screenText(m))
	}
	requireContains(t, m, `{"offset":5} → {"offset":9007199254740993}`)
	send(t, m, press("esc", "esc", "esc")...)

	// A connector with no edit: said in the status bar, nothing offered.
	selectConnector(t, m, "file-source")
	pressSettle(t, m, "u")
	if m.confirm != nil {
		t.Fatalf("u on file-source offered an undo of %s", m.confirm.Plan.Connector)
	}
	requireStatus(t, m, "no edit of file-source")
	requireCalls(t, ed, "plan set jdbc-orders", "apply set jdbc-orders", "plan set mm2-source", "apply set mm2-source",
		`undo-request "jdbc-orders"`, "plan undo jdbc-orders", `undo-request "jdbc-orders"`, "plan undo jdbc-orders",
		`undo-request "mm2-source"`, "plan undo mm2-source", `undo-request "file-source"`)
}

// e, x, u and the other edit keys say why where they do nothing: on the
// unparseable records (which belong to no connector), t off a history, n
// on a partition's detail.
func TestEditKeysSayWhyWhereTheyDoNothing(t *testing.T) {
	_, ed, m := editModel(t, 100, 30, nil)
	send(t, m, press("U")...)
	for _, k := range []string{"e", "x", "X", "n", "S", "R", "u", "c", "T"} {
		send(t, m, press(k)...)
		requireStatus(t, m, k+": ")
		requireStatus(t, m, "unparseable records belong to no connector")
	}
	send(t, m, press("enter")...) // an unparseable record's detail
	send(t, m, press("u")...)
	requireStatus(t, m, "unparseable records belong to no connector")
	send(t, m, press("esc", "esc")...)
	send(t, m, press("t")...)
	requireStatus(t, m, "t: edits to a commit of a partition's history; open a source partition first")
	for _, k := range []string{"[", "]"} {
		send(t, m, press(k)...)
		requireStatus(t, m, "[/]: choose a commit of a partition's history; open a source partition first")
	}
	selectPartition(t, m, "jdbc-orders", "customers")
	send(t, m, press("enter", "n")...)
	requireStatus(t, m, "n: new partition; on the partitions screen")
	if m.form != nil || m.confirm != nil || m.busy != "" {
		t.Fatal("a key that does nothing here opened something")
	}
	requireCalls(t, ed)
}

// On a partition's detail, e and x act on the partition shown, as they do
// on its row.
func TestEditKeysOnTheDetailActOnThePartitionShown(t *testing.T) {
	_, _, m := editModel(t, 100, 30, nil)
	selectPartition(t, m, "jdbc-orders", "customers")
	send(t, m, press("enter", "e")...)
	requireContains(t, m, "Edit offset · jdbc-orders", "customers")
	send(t, m, press("esc")...)
	pressSettle(t, m, "x")
	if m.confirm == nil || m.confirm.Plan.Connector != "jdbc-orders" || len(m.confirm.Plan.Changes) != 1 {
		t.Fatalf("x on the detail did not plan the partition's reset:\n%s", screenText(m))
	}
}
