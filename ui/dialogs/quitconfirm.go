package dialogs

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"

	"koff/keymap"
	"koff/ui/kit"
)

// QuitDialog asks before ctrl+c quits over an open dialog: a reflex
// ctrl+c must not throw away a typed offset or a plan under review. The
// dialog under it stays as it was, for n or esc to go back to.
type QuitDialog struct {
	km *keymap.KeyMap
	st *kit.Styles
	// Open names the dialog open under it; Busy the job in flight ("" when
	// none), which quitting stops part way.
	Open, Busy    string
	width, height int
	help          help.Model
}

func NewQuitDialog(km *keymap.KeyMap, st *kit.Styles, open, busy string) *QuitDialog {
	d := &QuitDialog{km: km, st: st, Open: open, Busy: busy, help: help.New()}
	d.help.Styles = st.Help
	return d
}

// SetSize takes the room a dialog may use; the question takes at most 64
// columns of it.
func (d *QuitDialog) SetSize(w, h int) {
	d.width, d.height = min(w, 64), h
}

func (d *QuitDialog) View() string {
	st, w := d.st, d.width-kit.DialogFrameW
	lines := []string{st.DialogTitle.Render("Quit koff?"), ""}
	what := "The open dialog"
	if d.Open != "" {
		what += " (" + d.Open + ")"
	}
	lines = append(lines, kit.IndentWrap("Quitting closes "+strings.ToLower(what[:1])+what[1:]+": nothing of it is written.", w, "", 0)...)
	if d.Busy != "" {
		lines = append(lines, "")
		lines = append(lines, kit.IndentWrap(st.Warn.Render("⚠ ")+"In flight: "+d.Busy+" Quitting stops it where it is; the audit log keeps what it wrote (koff undo puts it back).", w, "", 0)...)
	}
	lines = append(lines, "")
	lines = append(lines, kit.DialogKeys(d.help, st, w, []key.Binding{d.km.QuitYes, d.km.QuitNo}, "")...)
	return kit.RenderBox(st, d.width, d.height, lines)
}
