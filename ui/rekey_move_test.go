package ui

import (
	"errors"
	"strings"
	"testing"
)

// K on a source connector: the field's new value, the config change with
// it; the plan of every step in a dialog that enter confirms. The form
// opens at once; its fields' names, read off the UI goroutine, come after.
func TestRekeyFromTheConnectorsScreen(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	selectConnector(t, m, "jdbc-orders")
	cmd := send(t, m, press("K")...)
	if text := screenText(m); !strings.Contains(text, "Rekey · jdbc-orders") || strings.Contains(text, "Fields:") {
		t.Fatalf("K's form before its fields are read:\n%s", text)
	}
	send(t, m, awaitMsg[rekeyFieldsMsg](t, cmd, "K read no fields"))
	text := screenText(m)
	for _, want := range []string{"Rekey · jdbc-orders", "Set FIELD=VALUE", "Fields: protocol, table"} {
		if !strings.Contains(text, want) {
			t.Fatalf("K's form lacks %q:\n%s", want, text)
		}
	}
	send(t, m, press("table")...)
	if !strings.Contains(screenText(m), `"table": give FIELD=VALUE`) {
		t.Fatalf("a token without = is not refused:\n%s", screenText(m))
	}
	send(t, m, press("=shop.public.orders2")...)
	send(t, m, press("tab")...)
	send(t, m, press("table=shop.public.orders")...)
	send(t, m, press("tab")...)
	send(t, m, press("table.whitelist=orders2")...)
	settle(t, m, send(t, m, press("enter")...))
	text = screenText(m)
	for _, want := range []string{"Rekey · jdbc-orders", "1. stop jdbc-orders", "2. change the config of jdbc-orders", "table.whitelist=orders2"} {
		if !strings.Contains(text, want) {
			t.Errorf("the rekey's dialog lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "to confirm") {
		t.Errorf("a rekey asks for a name:\n%s", text)
	}
	pressSettle(t, m, "enter")
	requireCalls(t, ed, "plan-rekey jdbc-orders table=shop.public.orders2 where table=shop.public.orders", "apply-operation rekey of jdbc-orders")
	requireStatus(t, m, "rekey of jdbc-orders: all 3 steps done · undo: koff undo jdbc-orders --edit ")
}

// M: the context moved to, the plan of every step, the connector's name
// typed to confirm; a move cut midway says it is on both clusters.
func TestMoveFromTheConnectorsScreen(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, func(o *Options) { o.Contexts, o.Context = []string{"dr", "prod", "prod-2"}, "prod" })
	ed.applyErr = errors.New("connection reset by peer")
	selectConnector(t, m, "jdbc-orders")
	send(t, m, press("M")...)
	if text := screenText(m); !strings.Contains(text, "Move · jdbc-orders") || !strings.Contains(text, "prod-2") {
		t.Fatalf("M opened no move prompt:\n%s", text)
	}
	send(t, m, press("prod-2")...)
	settle(t, m, send(t, m, press("enter")...))
	text := screenText(m)
	for _, want := range []string{"Move · jdbc-orders → prod-2", "2. create jdbc-orders on prod-2 STOPPED", "Type jdbc-orders to confirm"} {
		if !strings.Contains(text, want) {
			t.Errorf("the move's dialog lacks %q:\n%s", want, text)
		}
	}
	settle(t, m, send(t, m, press("enter")...))
	requireCalls(t, ed, "plan-move jdbc-orders prod-2")
	send(t, m, press("jdbc-orders")...)
	pressSettle(t, m, "enter")
	requireCalls(t, ed, "plan-move jdbc-orders prod-2", "apply-operation move of jdbc-orders to prod-2")
	requireStatus(t, m, "jdbc-orders is on both Connect clusters now, STOPPED on both (here and on prod-2): neither runs it")
}

// Without another context, M says where to add one; without REST, why not.
func TestMoveNeedsAContextAndREST(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	selectConnector(t, m, "jdbc-orders")
	send(t, m, press("M")...)
	requireStatus(t, m, "a move goes to another Connect cluster a context names")
	_, ed2, m2 := editModel(t, 80, 24, func(o *Options) { o.REST = false })
	selectConnector(t, m2, "jdbc-orders")
	send(t, m2, press("M")...)
	requireStatus(t, m2, "needs --connect-url: a move creates and deletes connectors")
	send(t, m2, press("K")...)
	requireStatus(t, m2, "needs --connect-url: a rekey stops the connector")
	requireCalls(t, ed)
	requireCalls(t, ed2)
}

// Under koff serve (no contexts) M says where a move is made, and help
// does not offer it; ":" says the sessions share one cluster.
func TestMoveUnderServeSaysWhereItIsMade(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, func(o *Options) { o.Served = true; o.ContextFile = "/etc/koff/config.yaml" })
	selectConnector(t, m, "jdbc-orders")
	send(t, m, press("M")...)
	requireStatus(t, m, "koff serve has no contexts (its sessions share one cluster): a move is made with koff move NAME --to-context CTX, or M in a local dashboard")
	requireCalls(t, ed)
	send(t, m, press(":")...)
	requireStatus(t, m, "koff serve has no contexts to switch to: its sessions share the cluster it was started on")
	send(t, m, press("?")...)
	if text := screenText(m); strings.Contains(text, "move to another Connect cluster") {
		t.Errorf("help offers M under koff serve:\n%s", text)
	}
}

// K with a new name: the rename and the rekey as one operation, its new
// name typed to confirm as a rename's.
func TestRekeyWithRenameFromTheConnectorsScreen(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	selectConnector(t, m, "jdbc-orders")
	send(t, m, press("K")...)
	send(t, m, press("table=shop.public.orders2")...)
	send(t, m, press("tab", "tab", "tab")...)
	send(t, m, press("jdbc-orders")...)
	if text := screenText(m); !strings.Contains(text, "that is its name now") {
		t.Fatalf("a rename to its own name is not refused:\n%s", text)
	}
	send(t, m, press("-v2")...)
	settle(t, m, send(t, m, press("enter")...))
	text := screenText(m)
	for _, want := range []string{"jdbc-orders-v2", "2. create jdbc-orders-v2 STOPPED", "Type jdbc-orders-v2 to confirm"} {
		if !strings.Contains(text, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, text)
		}
	}
	pressSettle(t, m, "enter")
	requireCalls(t, ed, "plan-rekey jdbc-orders table=shop.public.orders2", "  renamed to jdbc-orders-v2")
	send(t, m, press("jdbc-orders-v2")...)
	pressSettle(t, m, "enter")
	requireCalls(t, ed, "plan-rekey jdbc-orders table=shop.public.orders2", "  renamed to jdbc-orders-v2", "apply-operation rename of jdbc-orders to jdbc-orders-v2")
}
