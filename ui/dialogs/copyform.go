package dialogs

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"koff/edit/plan"
	"koff/keymap"
	"koff/ui/kit"
)

// CopyForm is c: it asks which connector gets the selected connector's
// offsets, the way an orphan's offsets reach the connector that replaces
// it. The copy is planned (Editor.CopyRequest, then Plan) and confirmed
// like any edit.
type CopyForm struct {
	nameForm
	from string
	// known are the connectors koff knows, true for those Connect lists.
	known map[string]bool
}

func NewCopyForm(km *keymap.KeyMap, st *kit.Styles, from string, known map[string]bool) *CopyForm {
	f := &CopyForm{nameForm: newNameForm(km, st, "connector name"), from: from, known: known}
	f.validate = f.Validate
	f.Validate()
	return f
}

func (f *CopyForm) Validate() {
	f.note, f.err = "", nil
	to := f.target()
	inREST, known := f.known[to]
	switch {
	case to == "":
		f.err = errEmpty
	case to == f.from:
		f.err = errors.New("that is the connector the offsets come from")
	case inREST:
		f.note = to + " is in Connect: its offsets for the same source partitions are replaced"
	case known:
		f.note = to + " has offsets but is not in Connect: its offsets for the same source partitions are replaced"
	default:
		f.note = "no connector " + to + " yet: one created with this name starts from these offsets"
	}
}

func (f *CopyForm) Key(msg tea.KeyPressMsg) (tea.Cmd, *Submission) {
	if key.Matches(msg, f.km.FormSubmit) {
		f.Validate()
		if f.err != nil {
			return nil, nil
		}
		from, to := f.from, f.target()
		return nil, &Submission{
			Label: fmt.Sprintf("planning a copy of %s's offsets to %s…", from, to),
			Plan: func(ctx context.Context, ed kit.Editor) (*plan.Plan, error) {
				req, err := ed.CopyRequest(from, to)
				if err != nil {
					return nil, err
				}
				// The target is typed to be a new connector's name; the
				// plan the dialog shows says when koff has never seen it.
				req.Create = true
				return ed.Plan(ctx, req)
			},
		}
	}
	return f.Update(msg), nil
}

func (f *CopyForm) View(spinner string) string {
	var extra []string
	var inConnect []string
	for name, in := range f.known {
		if in && name != f.from {
			inConnect = append(inConnect, name)
		}
	}
	if len(inConnect) > 0 {
		sort.Strings(inConnect)
		extra = append(extra, kit.Truncate(f.st.Label.Render("In Connect: ")+kit.Clean(strings.Join(inConnect, ", ")), f.width-kit.DialogFrameW))
	}
	return f.view(spinner, nameFormText{
		title: "Copy offsets · " + f.from,
		about: "Every source offset of " + f.from + " is written for the connector named below, as a planned edit you confirm. Its own offsets stay.",
		extra: extra,
		label: "Copy to connector", empty: "type the name of the connector that gets the offsets",
		planning: "reading " + f.from + "'s offsets",
	})
}
