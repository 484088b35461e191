package ui

import (
	"fmt"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"

	"koff/keymap"
	"koff/model"
)

// stateDialog asks before S stops or R resumes a connector: which one,
// the state Connect reports now, and what the change does. Like an edit,
// it is written to the audit log with who did it. enter goes ahead, esc
// cancels.
type stateDialog struct {
	km   *keymap.KeyMap
	st   *Styles
	stop bool // stop, else resume
	name string
	// rest is the connector's state from the last REST poll; known is
	// false when REST does not list it.
	rest          model.ConnectorState
	known, restOn bool
	sink          bool

	help          help.Model
	width, height int
}

func newStateDialog(km *keymap.KeyMap, st *Styles, stop bool, name string, sink bool, rest model.RESTStatus) *stateDialog {
	d := &stateDialog{km: km, st: st, stop: stop, name: name, sink: sink, help: help.New()}
	d.rest, d.known = rest.Connectors[name]
	d.restOn = restAvailable(rest)
	d.help.Styles = st.Help
	return d
}

func (d *stateDialog) verb() string {
	if d.stop {
		return "stop"
	}
	return "resume"
}

func (d *stateDialog) setSize(w, h int) {
	d.width, d.height = w, h
	d.help.SetWidth(w - dialogFrameW)
}

// confirmKey is enter, named after what it does.
func (d *stateDialog) confirmKey() key.Binding {
	return short(d.km.Confirm, d.verb()+" "+d.name)
}

func (d *stateDialog) view() string {
	st, w := d.st, d.width-dialogFrameW
	title := "Resume connector · " + d.name
	if d.stop {
		title = "Stop connector · " + d.name
	}
	lines := []string{st.DialogTitle.Render(title), ""}
	fact := func(label, value string) {
		lines = append(lines, st.Label.Render(fmt.Sprintf("%-*s", labelW, label))+value)
	}
	state := st.Warn.Render("? not listed by Connect's REST API")
	switch {
	case !d.restOn:
		state = st.Warn.Render("? unknown") + st.Muted.Render(" (Connect's REST API not read yet)")
	case d.known:
		state = st.stateStyle(d.rest.State).Render(stateText(d.rest.State)) +
			st.Muted.Render(" · "+plural(len(d.rest.Tasks), "task", "tasks"))
		if n := failedTasks(d.rest); n > 0 {
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
	case d.stop && d.known && d.rest.State == "STOPPED":
		what = st.Warn.Render("⚠ ") + d.name + " is already STOPPED: stopping it again changes nothing."
	case d.stop && d.sink:
		what = "Stopping shuts down its tasks: they commit their consumer group offsets one last time, and it reads nothing until resumed. Its offsets can then be edited."
	case d.stop:
		what = "Stopping shuts down its tasks: they flush their offsets one last time, and it produces nothing until resumed. Its offsets can then be edited."
	case d.known && d.rest.State == "RUNNING":
		what = st.Warn.Render("⚠ ") + d.name + " is already RUNNING: resuming it changes nothing."
	case d.known && d.rest.State == "PAUSED":
		what = "Resuming starts its paused tasks again: they continue from where they paused."
	default:
		what = "Resuming starts its tasks again: they read the offsets stored now and continue from there."
	}
	lines = append(lines, "")
	lines = append(lines, indentWrap(what, w, "", 0)...)
	lines = append(lines, indentWrap(st.Muted.Render("Written to the audit log as edits are: who, when, the state before."), w, "", 0)...)
	lines = append(lines, "")
	lines = append(lines, dialogKeys(d.help, d.st, w, []key.Binding{d.confirmKey(), d.km.Cancel}, "")...)
	return renderBox(d.st, d.width, d.height, lines)
}
