package ui

import (
	"strings"
	"testing"

	"koff/model"
)

// withConfig gives the fixture's jdbc-orders a config in Connect's REST
// view, a secret among it.
func withConfig(f *fixture) {
	f.store.SetREST(model.RESTStatus{URL: "http://connect:8083", Version: "4.1.1", At: t0, StateAt: t0,
		Connectors: map[string]model.ConnectorState{"jdbc-orders": {Name: "jdbc-orders", Type: "source", State: "RUNNING",
			Config: map[string]string{"connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector", "name": "jdbc-orders",
				"connection.password": "s3cret", "topic.prefix": "shop.", "table.whitelist": "orders"}}}})
}

// C on the connectors screen: a connector like the selected one, its
// config as JSON to edit (the secret hidden, and kept), a name, where its
// offsets come from and how it starts; the plan of every step, and enter
// runs it.
func TestCreateLikeTheSelectedConnector(t *testing.T) {
	f, ed, m := editModel(t, 80, 24, nil)
	withConfig(f)
	selectConnector(t, m, "jdbc-orders")
	send(t, m, press("C")...)
	text := screenText(m)
	for _, want := range []string{"Create like · jdbc-orders", "Name", `"topic.prefix": "shop."`, `"connection.password": "[hidden]"`} {
		if !strings.Contains(text, want) {
			t.Fatalf("C's dialog lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "s3cret") {
		t.Fatalf("the dialog shows the secret:\n%s", text)
	}
	send(t, m, press("jdbc-orders")...)
	if !strings.Contains(screenText(m), "jdbc-orders is in Connect: choose another name") {
		t.Fatalf("a name Connect has is not refused:\n%s", screenText(m))
	}
	for range len("jdbc-orders") {
		send(t, m, press("backspace")...)
	}
	send(t, m, press("orders-2")...)
	send(t, m, press("tab")...) // the config
	send(t, m, press("end")...)
	send(t, m, press("tab")...) // offsets: none → copied
	send(t, m, press("right")...)
	send(t, m, press("tab")...) // start: running → stopped
	send(t, m, press("right")...)
	text = screenText(m)
	if !strings.Contains(text, "(copied from jdbc-orders)") || !strings.Contains(text, "(stopped)") {
		t.Fatalf("the choices:\n%s", text)
	}
	settle(t, m, send(t, m, press("enter")...))
	requireCalls(t, ed, `plan-create orders-2 topic.prefix=shop. secret=s3cret from="jdbc-orders" none=false start=stopped`)
	text = screenText(m)
	if !strings.Contains(text, "1. create orders-2 STOPPED") || strings.Contains(text, "to confirm") {
		t.Fatalf("the create's dialog:\n%s", text)
	}
	pressSettle(t, m, "enter")
	requireStatus(t, m, "create of orders-2: ")
}

// Without Connect's REST API C says why; a connector Connect does not list
// has no config to start from.
func TestCreateSaysWhyItCannot(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, func(o *Options) { o.REST = false })
	selectConnector(t, m, "jdbc-orders")
	send(t, m, press("C")...)
	requireStatus(t, m, "needs --connect-url: a connector is created through Connect's REST API")
	_, ed2, m2 := editModel(t, 80, 24, nil)
	selectConnector(t, m2, "jdbc-orders")
	send(t, m2, press("C")...)
	requireStatus(t, m2, "jdbc-orders is not in Connect: no config to create a connector like it from")
	requireCalls(t, ed)
	requireCalls(t, ed2)
}
