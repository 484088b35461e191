package ui

import (
	"bytes"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
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
