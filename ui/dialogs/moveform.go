package dialogs

import (
	"context"
	"errors"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
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
	nameForm
	connector string
	contexts  []string // the other contexts
}

func NewMoveForm(km *keymap.KeyMap, st *kit.Styles, connector string, contexts []string) *MoveForm {
	f := &MoveForm{nameForm: newNameForm(km, st, "context"), connector: connector, contexts: contexts}
	f.validate = f.Validate
	if len(contexts) == 1 {
		f.input.SetValue(contexts[0])
	}
	f.Validate()
	return f
}

func (f *MoveForm) Validate() {
	f.note, f.err = "", nil
	switch to := f.target(); {
	case to == "":
		f.err = errEmpty
	case !slices.Contains(f.contexts, to):
		f.err = errors.New("no other context " + to + " (have: " + strings.Join(f.contexts, ", ") + ")")
	default:
		f.note = to
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

func (f *MoveForm) View(spinner string) string {
	return f.view(spinner, nameFormText{
		title: "Move · " + f.connector,
		about: "Created on the other Connect cluster with " + f.connector + "'s config and offsets, read back there; " +
			"only then deleted here and its offsets tombstoned. The plan comes next.",
		label: "To context", empty: "one of: " + strings.Join(f.contexts, ", "),
		planning: "checking " + f.target() + " and reading " + f.connector + "'s offsets",
	})
}
