package dialogs

import (
	"context"
	"errors"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"koff/edit/plan"
	"koff/keymap"
	"koff/ui/kit"
)

// RenameForm is N: it asks for the selected connector's new name. The
// rename is planned (Editor.PlanRename) and shown step by step in an
// OperationDialog, where the name is typed again to confirm.
type RenameForm struct {
	nameForm
	from  string
	known map[string]bool // connectors koff knows, true for those Connect lists
}

func NewRenameForm(km *keymap.KeyMap, st *kit.Styles, from string, known map[string]bool) *RenameForm {
	f := &RenameForm{nameForm: newNameForm(km, st, "new name"), from: from, known: known}
	f.validate = f.Validate
	f.Validate()
	return f
}

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

func (f *RenameForm) View(spinner string) string {
	return f.view(spinner, nameFormText{
		title: "Rename · " + f.from,
		about: "A connector created under the new name with " + f.from + "'s config and offsets; " + f.from +
			" deleted and its offsets tombstoned. The plan comes next.",
		label: "New name", empty: "type the connector's new name",
		planning: "reading " + f.from + "'s config and offsets",
	})
}
