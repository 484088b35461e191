package ui

import (
	"bytes"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// TestSmokeRealProgram runs the dashboard in a real Bubble Tea program:
// it draws the connectors, and q ends it.
func TestSmokeRealProgram(t *testing.T) {
	f := demoStore()
	tm := teatest.NewTestModel(t, newTestModel(f.store),
		teatest.WithInitialTermSize(80, 24),
		teatest.WithProgramOptions(
			tea.WithColorProfile(colorprofile.Ascii),
			tea.WithEnvironment([]string{"TERM=xterm-256color"}),
		),
	)
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("inventory-connector"))
	}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(20*time.Millisecond))

	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	if _, ok := tm.FinalModel(t).(*Model); !ok {
		t.Fatal("the program ended without the dashboard model")
	}
}

// TestSmokeEditThroughRealProgram runs an edit in a real Bubble Tea
// program: the plan and the apply run as commands on the program's own
// goroutines, and their answers come back as messages.
func TestSmokeEditThroughRealProgram(t *testing.T) {
	f := demoStore()
	ed := newFakeEditor(t, f)
	m := New(Options{Source: f.store, Bootstrap: "localhost:9092", Topics: []string{topic},
		Now: func() time.Time { return t0 }, Editor: ed, REST: true})
	tm := teatest.NewTestModel(t, m,
		teatest.WithInitialTermSize(80, 24),
		teatest.WithProgramOptions(
			tea.WithColorProfile(colorprofile.Ascii),
			tea.WithEnvironment([]string{"TERM=xterm-256color"}),
		),
	)
	wait := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			return bytes.Contains(b, []byte(s))
		}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	wait("inventory-connector")
	for _, k := range []tea.KeyPressMsg{{Code: tea.KeyEnter}, {Code: tea.KeyDown}} {
		tm.Send(k) // jdbc-orders (late: first, worst first) › orders
	}
	wait("3 source partitions")
	tm.Send(tea.KeyPressMsg{Code: 'x', Text: "x"})
	wait("Reset offset")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("verified")
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	final := tm.FinalModel(t).(*Model)
	// Read back but not verified for the worker: a warning, not a check,
	// and one line at 80 columns.
	if got := ansi.Strip(final.statusView()); got != "⚠ reset 1 partition of jdbc-orders: read back, NOT verified for the worker" {
		t.Errorf("status after the edit: %q", got)
	}
	requireCalls(t, ed, "plan reset jdbc-orders", "apply reset jdbc-orders")
}
