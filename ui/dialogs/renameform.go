package dialogs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"koff/edit/plan"
	"koff/keymap"
	"koff/ui/kit"
)

// RenameForm is N: it asks for the selected connector's new name. The
// rename is planned (Editor.PlanRename) and shown step by step in an
// OperationDialog, where the name is typed again to confirm.
type RenameForm struct {
	km    *keymap.KeyMap
	st    *kit.Styles
	from  string
	known map[string]bool // connectors koff knows, true for those Connect lists
	input textinput.Model
	note  string
	err   error
	formState
	help          help.Model
	width, height int
}

func NewRenameForm(km *keymap.KeyMap, st *kit.Styles, from string, known map[string]bool) *RenameForm {
	f := &RenameForm{km: km, st: st, from: from, known: known, help: help.New()}
	f.help.Styles = st.Help
	f.input = textinput.New()
	f.input.Prompt = "› "
	f.input.Placeholder = "new name"
	f.input.SetStyles(st.Input)
	f.Validate()
	return f
}

func (f *RenameForm) FocusCmd() tea.Cmd { return f.input.Focus() }

func (f *RenameForm) target() string { return strings.TrimSpace(f.input.Value()) }

func (f *RenameForm) Validate() {
	f.note, f.err = "", nil
	to := f.target()
	inREST, known := f.known[to]
	switch {
	case to == "":
		f.err = errEmpty
	case to == f.from:
		f.err = errors.New("that is its name now")
	case inREST:
		f.err = errors.New(to + " is in Connect: choose another name")
	case known:
		f.note = to + " has offsets but is not in Connect: those of the same source partitions are replaced, others stay"
	default:
		f.note = to + " is free: created with " + f.from + "'s config and offsets"
	}
}

func (f *RenameForm) Key(msg tea.KeyPressMsg) (tea.Cmd, *Submission) {
	if key.Matches(msg, f.km.FormSubmit) {
		f.Validate()
		if f.err != nil {
			return nil, nil
		}
		from, to := f.from, f.target()
		return nil, &Submission{
			Label: fmt.Sprintf("planning the rename of %s to %s…", from, to),
			Operation: func(ctx context.Context, ed kit.Editor) (*plan.Operation, error) {
				return ed.PlanRename(ctx, from, to)
			},
		}
	}
	return f.Update(msg), nil
}

func (f *RenameForm) Update(msg tea.Msg) tea.Cmd {
	cmd := f.typeInto(&f.input, msg)
	f.Validate()
	return cmd
}

func (f *RenameForm) SetSize(w, h int) {
	f.width, f.height = w, h
	sizeDialogInput(&f.input, &f.help, w)
}

func (f *RenameForm) View(spinner string) string {
	inner := f.width - kit.DialogFrameW
	st := f.st
	lines := []string{st.DialogTitle.Render("Rename · " + kit.Clean(f.from)), ""}
	lines = append(lines, kit.IndentWrap(st.Muted.Render("A connector created under the new name with "+kit.Clean(f.from)+
		"'s config and offsets; "+kit.Clean(f.from)+" deleted and its offsets tombstoned. The plan comes next."), inner, "", 3)...)
	lines = append(lines, "", st.FieldFocus.Render("New name"), f.input.View())
	switch {
	case f.err == errEmpty:
		lines = append(lines, st.Muted.Render("  type the connector's new name"))
	case f.err != nil:
		lines = append(lines, kit.IndentWrap(st.Bad.Render("✗ "+kit.Clean(f.err.Error())), inner, "", 2)...)
	default:
		lines = append(lines, kit.IndentWrap(st.OK.Render("✓ ")+st.Muted.Render(kit.Clean(f.note)), inner, "", 2)...)
	}
	lines = append(lines, "")
	submit := f.km.FormSubmit
	submit.SetEnabled(f.err == nil)
	keys := kit.DialogKeys(f.help, st, inner, []key.Binding{submit, f.km.FormCancel}, "")
	lines = append(lines, planFooter(st, spinner, f.Planning, "reading "+kit.Clean(f.from)+"'s config and offsets", f.PlanErr, inner, keys)...)
	return kit.RenderBox(st, f.width, f.height, lines)
}
