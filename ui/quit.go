package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"koff/ui/dialogs"
	"koff/ui/kit"
)

// dialogOpen: a dialog is open over the screen, whose work ctrl+c would
// throw away.
func (m *Model) dialogOpen() bool {
	return m.picker != nil || m.confirm != nil || m.state != nil || m.form != nil || m.op != nil
}

// dialogName names the open dialog in the quit question.
func (m *Model) dialogName() string {
	switch {
	case m.picker != nil:
		return "switch context"
	case m.confirm != nil:
		return "confirmation of the " + string(m.confirm.Plan.Kind) + " of " + kit.Clean(m.confirm.Plan.Connector)
	case m.op != nil:
		return "confirmation of the " + kit.Clean(m.op.Op.What())
	case m.state != nil && m.state.Stop:
		return "stop " + kit.Clean(m.state.Name)
	case m.state != nil:
		return "resume " + kit.Clean(m.state.Name)
	}
	switch m.form.(type) {
	case *dialogs.EditForm:
		return "offset editor"
	case *dialogs.SinkForm:
		return "sink offsets form"
	case *dialogs.CopyForm:
		return "copy prompt"
	case *dialogs.RenameForm:
		return "rename prompt"
	case *dialogs.RekeyForm:
		return "rekey form"
	case *dialogs.MoveForm:
		return "move prompt"
	case *dialogs.RewindForm:
		return "rewind to a time"
	case *dialogs.StrayForm:
		return "stray copy choice"
	}
	return ""
}

// handleQuitKey answers the quit question: y or a second ctrl+c quits, n
// or esc goes back to the dialog as it was; other keys wait.
func (m *Model) handleQuitKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.km.QuitYes):
		m.cancelPlan()
		return tea.Quit
	case key.Matches(msg, m.km.QuitNo):
		m.quit = nil
		m.layout()
	}
	return nil
}
