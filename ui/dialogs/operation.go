package dialogs

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"koff/edit/plan"
	"koff/keymap"
	"koff/ui/kit"
)

// OperationDialog shows an operation of several steps (a rename) before
// anything is done: every step in order, an offsets step with every offset
// before → after and the records it writes, the warnings and the command
// line. The operation's name (the new name of a rename) is typed to
// confirm; enter then runs the steps, esc cancels.
type OperationDialog struct {
	km *keymap.KeyMap
	st *kit.Styles
	Op *plan.Operation

	name textinput.Model
	// confirmName is what is typed to confirm: the new name.
	confirmName string

	vp            viewport.Model
	help          help.Model
	Width, height int

	Running bool
}

func NewOperationDialog(km *keymap.KeyMap, st *kit.Styles, op *plan.Operation) *OperationDialog {
	d := &OperationDialog{km: km, st: st, Op: op, confirmName: op.Connector, vp: viewport.New(), help: help.New()}
	if op.Kind == plan.KindRekey || op.Kind == plan.KindCreate {
		// The connector stays what it is, where it is (or a new one is
		// made, named in the dialog before): enter confirms.
		d.confirmName = ""
	}
	d.help.Styles = st.Help
	d.vp.KeyMap = viewport.KeyMap{}
	d.name = textinput.New()
	d.name.Prompt = "› "
	d.name.SetStyles(st.Input)
	d.name.Focus()
	return d
}

func (d *OperationDialog) nameOK() bool {
	return d.confirmName == "" || d.name.Value() == d.confirmName
}

// CanApply: the name is typed and nothing runs yet.
func (d *OperationDialog) CanApply() bool { return !d.Running && d.nameOK() }

// Start marks the dialog busy: keys wait until the steps are done.
func (d *OperationDialog) Start() {
	d.Running = true
	d.name.Blur()
}

// Update scrolls the body, or types into the name prompt.
func (d *OperationDialog) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok && scrollBody(d.km, &d.vp, k) {
		return nil
	}
	if d.Running {
		return nil
	}
	var cmd tea.Cmd
	d.name, cmd = d.name.Update(msg)
	return cmd
}

// SetSize fits the dialog to outer width w and at most h rows.
func (d *OperationDialog) SetSize(w, h int) {
	d.Width, d.height = w, h
	inner := w - kit.DialogFrameW
	d.help.SetWidth(inner)
	d.name.SetWidth(max(inner-4, 4))
	d.vp.SetWidth(inner)
	d.vp.SetContentLines(d.Content(inner))
}

// View renders the box; spinner is the root's spinner frame.
func (d *OperationDialog) View(spinner string) string {
	inner := d.Width - kit.DialogFrameW
	foot := d.footer(inner, spinner)
	h := max(min(d.vp.TotalLineCount(), d.height-kit.DialogFrameH-3-len(foot)), 1)
	d.vp.SetHeight(h)
	title := d.st.DialogTitle.Render(opTitle(d.Op))
	if total := d.vp.TotalLineCount(); total > d.vp.Height() {
		where := fmt.Sprintf("%d–%d/%d", d.vp.YOffset()+1, min(d.vp.YOffset()+d.vp.Height(), total), total)
		title = kit.Spread(title, d.st.Muted.Render(where), inner)
	}
	lines := []string{title, ""}
	lines = append(lines, strings.Split(d.vp.View(), "\n")...)
	lines = append(lines, "")
	lines = append(lines, foot...)
	return kit.RenderBox(d.st, d.Width, d.height, lines)
}

func opTitle(op *plan.Operation) string {
	switch op.Kind {
	case plan.KindRename:
		return "Rename · " + kit.Clean(op.From) + " → " + kit.Clean(op.Connector)
	case plan.KindCreate:
		return "Create · " + kit.Clean(op.Connector)
	case plan.KindRekey:
		return "Rekey · " + kit.Clean(op.Connector)
	case plan.KindMove:
		return "Move · " + kit.Clean(op.Connector) + " → " + kit.Clean(op.To)
	case plan.KindUndoOperation:
		return "Undo · the " + kit.Clean(op.UndoesWhat)
	}
	return kit.Clean(op.What())
}

// Content is the scrolling body: the steps in order, each offsets step's
// changes, the warnings, the command line.
func (d *OperationDialog) Content(w int) []string {
	st, op := d.st, d.Op
	var out []string
	out = append(out, st.Section.Render("Steps")+st.Muted.Render(fmt.Sprintf("  %d, in order; each waited for", len(op.Steps))))
	for i, s := range op.Steps {
		// A hanging indent: the step's number stands out.
		ls := kit.IndentWrap(fmt.Sprintf("%d. %s", i+1, kit.Clean(s.Text())), w, "      ", 0)
		ls[0] = "   " + strings.TrimPrefix(ls[0], "      ")
		out = append(out, ls...)
		switch {
		case s.Kind == plan.StepCreate:
			out = append(out, kit.IndentWrap(st.Muted.Render("config: "+kit.Clean(plan.ConfigText(s.Config))), w, "     ", 0)...)
		case s.Kind == plan.StepConfig:
			// Its text names every key it changes.
		case s.Plan != nil:
			p := s.Plan
			out = append(out, kit.IndentWrap(st.Muted.Render(kit.Clean(p.PathReason)), w, "     ", 0)...)
			for _, ch := range p.Changes {
				out = append(out, changeLines(st, ch, w, "     ")...)
			}
			for _, warn := range p.Warnings {
				out = append(out, kit.IndentWrap(st.Warn.Render("⚠ ")+kit.Clean(warn), w, "     ", 0)...)
			}
		}
	}
	if op.Kind == plan.KindMove {
		out = append(out, kit.IndentWrap(st.Muted.Render("The offsets are read again after the stop (its tasks' last flush) and must read back on "+
			kit.Clean(op.To)+" before "+kit.Clean(op.Connector)+" is deleted here. If a step fails, the status line says which happened, and u brings back the start."), w, "", 0)...)
	}
	if op.Kind == plan.KindRename {
		out = append(out, kit.IndentWrap(st.Muted.Render("The offsets are read again after the stop (its tasks' last flush) and must read back before "+
			kit.Clean(op.From)+" is deleted. If a step fails, the status line says which happened, and u brings back the start."), w, "", 0)...)
	}
	for _, warn := range op.Warnings {
		out = append(out, kit.IndentWrap(st.Warn.Render("⚠ ")+kit.Clean(warn), w, "", 0)...)
	}
	if op.Command != "" {
		out = append(out, "", st.Section.Render("Command")+st.Muted.Render("  the same from a shell"))
		out = append(out, commandLines(kit.Clean(op.Command), w, "  ")...)
	}
	return out
}

func (d *OperationDialog) footer(w int, spinner string) []string {
	st := d.st
	if d.Running {
		return []string{spinner + " " + kit.Truncate(fmt.Sprintf("running the %d steps of the %s…", len(d.Op.Steps), kit.Clean(d.Op.What())), w-2),
			st.Muted.Render("Working: keys wait until it is done (ctrl+c quits koff).")}
	}
	var out []string
	if d.confirmName != "" {
		out = []string{kit.Truncate("Type "+st.Title.Render(kit.Clean(d.confirmName))+" to confirm:", w), d.name.View()}
	}
	apply := d.km.Confirm
	apply.SetEnabled(d.CanApply())
	note := ""
	if !d.nameOK() {
		note = "type the name to continue"
	}
	bindings := []key.Binding{apply}
	if d.vp.TotalLineCount() > d.vp.Height() {
		scroll := d.km.DialogDown
		scroll.SetHelp("↑↓", "scroll")
		bindings = append(bindings, scroll)
	}
	keys := kit.DialogKeys(d.help, st, w, append(bindings, d.km.Cancel), note)
	for i, l := range keys {
		if ansi.StringWidth(l) > w {
			keys[i] = kit.Truncate(l, w)
		}
	}
	return append(out, keys...)
}
