package dialogs

import (
	"context"
	"errors"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"koff/edit/plan"
	"koff/edit/planner"
	"koff/keymap"
	"koff/ui/kit"
)

// MoveForm is M: the context of the Connect cluster the selected connector
// moves to (koff move NAME --to-context CTX). The move is planned
// (Editor.PlanMove) and shown step by step in an OperationDialog, where
// the connector's name is typed to confirm.
type MoveForm struct {
	km        *keymap.KeyMap
	st        *kit.Styles
	connector string
	contexts  []string // the other contexts
	input     textinput.Model
	err       error
	formState
	help          help.Model
	width, height int
}

func NewMoveForm(km *keymap.KeyMap, st *kit.Styles, connector string, contexts []string) *MoveForm {
	f := &MoveForm{km: km, st: st, connector: connector, contexts: contexts, help: help.New()}
	f.help.Styles = st.Help
	f.input = textinput.New()
	f.input.Prompt = "› "
	f.input.Placeholder = "context"
	f.input.SetStyles(st.Input)
	if len(contexts) == 1 {
		f.input.SetValue(contexts[0])
	}
	f.Validate()
	return f
}

func (f *MoveForm) FocusCmd() tea.Cmd { return f.input.Focus() }

func (f *MoveForm) target() string { return strings.TrimSpace(f.input.Value()) }

func (f *MoveForm) Validate() {
	f.err = nil
	switch to := f.target(); {
	case to == "":
		f.err = errEmpty
	case !slices.Contains(f.contexts, to):
		f.err = errors.New("no other context " + to + " (have: " + strings.Join(f.contexts, ", ") + ")")
	}
}

func (f *MoveForm) Key(msg tea.KeyPressMsg) (tea.Cmd, *Submission) {
	if key.Matches(msg, f.km.FormSubmit) {
		f.Validate()
		if f.err != nil {
			return nil, nil
		}
		name, to := f.connector, f.target()
		return nil, &Submission{
			Label: "planning the move of " + name + " to " + to + "…",
			Operation: func(ctx context.Context, ed kit.Editor) (*plan.Operation, error) {
				return ed.PlanMove(ctx, planner.MoveRequestOf{Name: name, To: to})
			},
		}
	}
	return f.Update(msg), nil
}

func (f *MoveForm) Update(msg tea.Msg) tea.Cmd {
	cmd := f.typeInto(&f.input, msg)
	f.Validate()
	return cmd
}

func (f *MoveForm) SetSize(w, h int) {
	f.width, f.height = w, h
	sizeDialogInput(&f.input, &f.help, w)
}

func (f *MoveForm) View(spinner string) string {
	inner := f.width - kit.DialogFrameW
	st := f.st
	lines := []string{st.DialogTitle.Render("Move · " + kit.Clean(f.connector)), ""}
	lines = append(lines, kit.IndentWrap(st.Muted.Render("Created on the other Connect cluster with "+kit.Clean(f.connector)+
		"'s config and offsets, read back there; only then deleted here and its offsets tombstoned. The plan comes next."), inner, "", 3)...)
	lines = append(lines, "", st.FieldFocus.Render("To context"), f.input.View())
	switch {
	case f.err == errEmpty:
		lines = append(lines, kit.IndentWrap(st.Muted.Render("  one of: "+kit.Clean(strings.Join(f.contexts, ", "))), inner, "  ", 2)...)
	case f.err != nil:
		lines = append(lines, kit.IndentWrap(st.Bad.Render("✗ "+kit.Clean(f.err.Error())), inner, "", 2)...)
	default:
		lines = append(lines, st.OK.Render("✓ ")+st.Muted.Render(kit.Truncate(kit.Clean(f.target()), inner-2)))
	}
	lines = append(lines, "")
	submit := f.km.FormSubmit
	submit.SetEnabled(f.err == nil)
	keys := kit.DialogKeys(f.help, st, inner, []key.Binding{submit, f.km.FormCancel}, "")
	lines = append(lines, planFooter(st, spinner, f.Planning, "checking "+kit.Clean(f.target())+" and reading "+kit.Clean(f.connector)+"'s offsets", f.PlanErr, inner, keys)...)
	return kit.RenderBox(st, f.width, f.height, lines)
}
