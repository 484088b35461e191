package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"koff/model"
	"koff/ui/dialogs"
	"koff/ui/screens"
)

// goldenScreens drive a fresh dashboard on the demo store to each screen
// and state a golden records. Regenerate with `go test ./ui/ -update`.
var goldenScreens = []struct {
	name  string
	drive func(t *testing.T, f *fixture, m *Model)
}{
	{"connectors", func(t *testing.T, f *fixture, m *Model) {}},
	{"partitions", func(t *testing.T, f *fixture, m *Model) {
		openConnectorNamed(t, m, "jdbc-orders")
	}},
	{"detail", func(t *testing.T, f *fixture, m *Model) {
		openConnectorNamed(t, m, "jdbc-orders")
		send(t, m, press("down", "enter")...) // the orders table
	}},
	{"unparseable", func(t *testing.T, f *fixture, m *Model) {
		send(t, m, press("U")...)
	}},
	{"unparseable_detail", func(t *testing.T, f *fixture, m *Model) {
		send(t, m, press("U", "enter")...)
	}},
	{"help", func(t *testing.T, f *fixture, m *Model) {
		send(t, m, press("?")...)
	}},
	{"filter", func(t *testing.T, f *fixture, m *Model) {
		send(t, m, press("/", "s", "o", "u", "r")...)
	}},
	{"catching_up", func(t *testing.T, f *fixture, m *Model) {
		f.store.SetStatus(model.TailStatus{State: model.TailCatchingUp, Read: 8123, Total: 13000})
		send(t, m, tickMsg{})
	}},
	{"connectors_rest", func(t *testing.T, f *fixture, m *Model) {
		setREST(f)
		send(t, m, tickMsg{})
	}},
	{"partitions_rest", func(t *testing.T, f *fixture, m *Model) {
		setREST(f)
		send(t, m, tickMsg{})
		openConnectorNamed(t, m, "jdbc-orders")
	}},
	{"disconnected", func(t *testing.T, f *fixture, m *Model) {
		f.store.SetStatus(model.TailStatus{State: model.TailDisconnected,
			Reason: "dial tcp 10.0.0.7:9092: connect: connection refused"})
		send(t, m, tickMsg{})
	}},
}

func TestGolden(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {160, 48}} {
		for _, sc := range goldenScreens {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1]), func(t *testing.T) {
				f := demoStore()
				m := newTestModel(f.store)
				send(t, m, size(sz[0], sz[1]))
				sc.drive(t, f, m)
				out := screenText(m)
				requireFits(t, out, sz[0], sz[1])
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}

// requireFits fails when the screen would wrap or scroll the terminal.
func requireFits(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Errorf("screen has %d lines, terminal has %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("line %d is %d cells wide, terminal is %d: %q", i+1, n, w, l)
		}
	}
}

// openConnectorNamed moves the selection to a connector and presses enter.
func openConnectorNamed(t *testing.T, m *Model, name string) {
	t.Helper()
	selectConnector(t, m, name)
	send(t, m, press("enter")...)
	if _, ok := m.top().(*screens.PartitionsScreen); !ok {
		t.Fatalf("enter on %s did not open its partitions", name)
	}
}

func selectConnector(t *testing.T, m *Model, name string) {
	t.Helper()
	send(t, m, press("home")...)
	for range 100 {
		if selectedLine(m, name) {
			return
		}
		send(t, m, press("down")...)
	}
	t.Fatalf("no connector %s on screen:\n%s", name, screenText(m))
}

// selectedLine reports whether the row marked ▶ contains s.
func selectedLine(m *Model, s string) bool {
	for _, l := range strings.Split(screenText(m), "\n") {
		if strings.HasPrefix(l, "▶") {
			return strings.Contains(l, s)
		}
	}
	return false
}

// setREST gives the demo store a REST view: states of every kind, a
// connector REST does not list (mm2-source) and two that only REST knows.
func setREST(f *fixture) {
	tasks := func(states ...string) []model.TaskState {
		var ts []model.TaskState
		for i, s := range states {
			ts = append(ts, model.TaskState{ID: i, State: s, WorkerID: "connect-1:8083"})
		}
		return ts
	}
	f.store.SetREST(model.RESTStatus{
		URL: "http://connect-1.prod.internal:8083", Version: "3.7.1", At: t0,
		Connectors: map[string]model.ConnectorState{
			"inventory-connector": {Name: "inventory-connector", Type: "source", State: "RUNNING", Tasks: tasks("RUNNING")},
			"jdbc-orders":         {Name: "jdbc-orders", Type: "source", State: "RUNNING", Tasks: tasks("RUNNING", "FAILED")},
			"file-source":         {Name: "file-source", Type: "source", State: "STOPPED"},
			"jdbc-shop":           {Name: "jdbc-shop", Type: "source", State: "PAUSED", Tasks: tasks("PAUSED", "PAUSED")},
			"s3-sink":             {Name: "s3-sink", Type: "sink", State: "RUNNING", Tasks: tasks("RUNNING", "RUNNING", "RUNNING", "RUNNING")},
		},
	})
}

// goldenEdits drive the dashboard with a fake editor to each edit dialog.
var goldenEdits = []struct {
	name  string
	drive func(t *testing.T, f *fixture, ed *fakeEditor, m *Model)
}{
	{"history", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {
		openHistory(t, m)
		send(t, m, press("]")...) // scrolls to the chosen commit
	}},
	{"edit_invalid", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {
		selectPartition(t, m, "jdbc-orders", "rders")
		send(t, m, press("e", "backspace")...) // the closing brace
	}},
	{"confirm_topic_unknown", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {
		selectPartition(t, m, "jdbc-orders", "rders")
		pressSettle(t, m, "x")
	}},
	{"confirm_running", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {
		setREST(f)
		send(t, m, tickMsg{})
		ed.state, ed.tasks, ed.restPath = "RUNNING", 2, true
		selectPartition(t, m, "jdbc-orders", "rders")
		pressSettle(t, m, "x")
	}},
	{"reset_all_name", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {
		selectConnector(t, m, "jdbc-orders")
		pressSettle(t, m, "X")
		send(t, m, press("jdbc-")...)
	}},
	{"rewind", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {
		selectConnector(t, m, "jdbc-orders")
		send(t, m, press("T")...)
	}},
	{"quit_over_dialog", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {
		selectConnector(t, m, "jdbc-orders")
		send(t, m, press("S", "ctrl+c")...)
	}},
	// The help under an edit's outcome: one page, the edit keys on it.
	{"help_partitions", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {
		openConnectorNamed(t, m, "jdbc-orders")
		m.setStatus(statusOK, "set 1 partition of jdbc-orders: verified")
		send(t, m, press("?")...)
	}},
	{"help_detail", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {
		openHistory(t, m)
		send(t, m, press("?")...)
	}},
}

func TestGoldenEdit(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {160, 48}} {
		for _, sc := range goldenEdits {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1]), func(t *testing.T) {
				f, ed, m := editModel(t, sz[0], sz[1], nil)
				sc.drive(t, f, ed, m)
				out := screenText(m)
				requireFits(t, out, sz[0], sz[1])
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}

// goldenLag drive the dashboard on lagStore (every flush status, sinks
// growing and shrinking, orphans, a connector with its own offsets topic)
// with a fake editor.
var goldenLag = []struct {
	name  string
	drive func(t *testing.T, f *fixture, ed *fakeEditor, m *Model)
}{
	{"connectors", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {}},
	{"source_panel", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {
		openConnectorNamed(t, m, "inventory-connector")
	}},
	{"sink", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {
		openSinkNamed(t, m, "es-search")
	}},
	{"sink_form", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {
		openSinkNamed(t, m, "es-search")
		send(t, m, press("e", "up", "up")...) // to timestamp
		send(t, m, press("2025-11-29 18:00:00")...)
	}},
	{"sink_confirm", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {
		ed.state, ed.tasks = "RUNNING", 2
		openSinkNamed(t, m, "es-search")
		send(t, m, press("e")...)
		m.form.(*dialogs.SinkForm).Input.SetValue("")
		send(t, m, press("100", "tab")...) // below orders/0's log start
		pressSettle(t, m, "enter")
	}},
	{"stop_confirm", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {
		selectConnector(t, m, "inventory-connector")
		send(t, m, press("S")...)
	}},
	{"help", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {
		send(t, m, press("?")...)
	}},
	{"copy", func(t *testing.T, f *fixture, ed *fakeEditor, m *Model) {
		selectConnector(t, m, "jdbc-old-orders")
		send(t, m, press("c")...)
		send(t, m, press("jdbc-orders-v2")...)
	}},
}

func TestGoldenLag(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {160, 48}} {
		for _, sc := range goldenLag {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1]), func(t *testing.T) {
				f, ed, m := lagModel(t, sz[0], sz[1])
				sc.drive(t, f, ed, m)
				out := screenText(m)
				requireFits(t, out, sz[0], sz[1])
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}
