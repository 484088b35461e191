package dialogs

import (
	"fmt"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"

	"koff/keymap"
	"koff/model"
	"koff/ui/kit"
)

// stateDialog asks before S stops or R resumes a connector: which one,
// the state Connect reports now, and what the change does. Like an edit,
// it is written to the audit log with who did it. enter goes ahead, esc
// cancels.
type StateDialog struct {
	km   *keymap.KeyMap
	st   *kit.Styles
	Stop bool // stop, else resume
	Name string
	// rest is the connector's state from the last REST poll; known is
	// false when REST does not list it.
	rest          model.ConnectorState
	known, restOn bool
	sink          bool

	help          help.Model
	width, height int
}

func NewStateDialog(km *keymap.KeyMap, st *kit.Styles, stop bool, name string, sink bool, rest model.RESTStatus) *StateDialog {
	d := &StateDialog{km: km, st: st, Stop: stop, Name: name, sink: sink, help: help.New()}
	d.rest, d.known = rest.Connectors[name]
	d.restOn = kit.RESTAvailable(rest)
	d.help.Styles = st.Help
	return d
}

func (d *StateDialog) verb() string {
	if d.Stop {
		return "stop"
	}
	return "resume"
}

func (d *StateDialog) SetSize(w, h int) {
	d.width, d.height = w, h
	d.help.SetWidth(w - kit.DialogFrameW)
}

// confirmKey is enter, named after what it does.
func (d *StateDialog) confirmKey() key.Binding {
	return kit.Short(d.km.Confirm, d.verb()+" "+d.Name)
}

func (d *StateDialog) View() string {
	st, w := d.st, d.width-kit.DialogFrameW
	title := "Resume connector · " + d.Name
	if d.Stop {
		title = "Stop connector · " + d.Name
	}
	lines := []string{st.DialogTitle.Render(title), ""}
	fact := func(label, value string) {
		lines = append(lines, st.Label.Render(fmt.Sprintf("%-*s", kit.LabelW, label))+value)
	}
	state := st.Warn.Render("? not listed by Connect's REST API")
	switch {
	case !d.restOn:
		state = st.Warn.Render("? unknown") + st.Muted.Render(" (Connect's REST API not read yet)")
	case d.known:
		state = st.StateStyle(d.rest.State).Render(kit.StateText(d.rest.State)) +
			st.Muted.Render(" · "+kit.Plural(len(d.rest.Tasks), "task", "tasks"))
		if n := kit.FailedTasks(d.rest); n > 0 {
			state += st.Bad.Render(fmt.Sprintf(" · ✗ %d failed", n))
		}
	}
	fact("State", state)
	kind := "source"
	if d.sink {
		kind = "sink"
	}
	fact("Kind", kind)

	var what string
	switch {
	case d.Stop && d.known && d.rest.State == "STOPPED":
		what = st.Warn.Render("⚠ ") + d.Name + " is already STOPPED: stopping it again changes nothing."
	case d.Stop && d.sink:
		what = "Stopping shuts down its tasks: they commit their consumer group offsets one last time, and it reads nothing until resumed. Its offsets can then be edited."
	case d.Stop:
		what = "Stopping shuts down its tasks: they flush their offsets one last time, and it produces nothing until resumed. Its offsets can then be edited."
	case d.known && d.rest.State == "RUNNING":
		what = st.Warn.Render("⚠ ") + d.Name + " is already RUNNING: resuming it changes nothing."
	case d.known && d.rest.State == "PAUSED":
		what = "Resuming starts its paused tasks again: they continue from where they paused."
	default:
		what = "Resuming starts its tasks again: they read the offsets stored now and continue from there."
	}
	lines = append(lines, "")
	lines = append(lines, kit.IndentWrap(what, w, "", 0)...)
	lines = append(lines, kit.IndentWrap(st.Muted.Render("Written to the audit log as edits are: who, when, the state before."), w, "", 0)...)
	lines = append(lines, "")
	lines = append(lines, kit.DialogKeys(d.help, d.st, w, []key.Binding{d.confirmKey(), d.km.Cancel}, "")...)
	return kit.RenderBox(d.st, d.width, d.height, lines)
}
