package dialogs

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"koff/edit/plan"
	"koff/keymap"
	"koff/ui/kit"
)

// copyForm is c: it asks which connector gets the selected connector's
// offsets, the way an orphan's offsets reach the connector that replaces
// it. The copy is planned (Editor.CopyRequest, then Plan) and confirmed
// like any edit.
type CopyForm struct {
	km   *keymap.KeyMap
	st   *kit.Styles
	from string
	// known are the connectors koff knows, true for those Connect lists.
	known map[string]bool
	input textinput.Model
	note  string
	err   error
	formState
	help          help.Model
	width, height int
}

func NewCopyForm(km *keymap.KeyMap, st *kit.Styles, from string, known map[string]bool) *CopyForm {
	f := &CopyForm{km: km, st: st, from: from, known: known, help: help.New()}
	f.help.Styles = st.Help
	f.input = textinput.New()
	f.input.Prompt = "› "
	f.input.Placeholder = "connector name"
	f.input.SetStyles(st.Input)
	f.Validate()
	return f
}

func (f *CopyForm) FocusCmd() tea.Cmd { return f.input.Focus() }

func (f *CopyForm) target() string { return strings.TrimSpace(f.input.Value()) }

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

func (f *CopyForm) Update(msg tea.Msg) tea.Cmd {
	cmd := f.typeInto(&f.input, msg)
	f.Validate()
	return cmd
}

func (f *CopyForm) SetSize(w, h int) {
	f.width, f.height = w, h
	sizeDialogInput(&f.input, &f.help, w)
}

func (f *CopyForm) View(spinner string) string {
	inner := f.width - kit.DialogFrameW
	st := f.st
	lines := []string{st.DialogTitle.Render("Copy offsets · " + f.from), ""}
	lines = append(lines, kit.IndentWrap(st.Muted.Render("Every source offset of "+f.from+
		" is written for the connector named below, as a planned edit you confirm. Its own offsets stay."), inner, "", 3)...)
	var inConnect []string
	for name, in := range f.known {
		if in && name != f.from {
			inConnect = append(inConnect, name)
		}
	}
	if len(inConnect) > 0 {
		sort.Strings(inConnect)
		lines = append(lines, kit.Truncate(st.Label.Render("In Connect: ")+strings.Join(inConnect, ", "), inner))
	}
	lines = append(lines, "", st.FieldFocus.Render("Copy to connector"), f.input.View())
	switch {
	case f.err == errEmpty:
		lines = append(lines, st.Muted.Render("  type the name of the connector that gets the offsets"))
	case f.err != nil:
		lines = append(lines, kit.IndentWrap(st.Bad.Render("✗ "+f.err.Error()), inner, "", 2)...)
	default:
		lines = append(lines, kit.IndentWrap(st.OK.Render("✓ ")+st.Muted.Render(f.note), inner, "", 2)...)
	}
	lines = append(lines, "")
	submit := f.km.FormSubmit
	submit.SetEnabled(f.err == nil)
	keys := kit.DialogKeys(f.help, st, inner, []key.Binding{submit, f.km.FormCancel}, "")
	lines = append(lines, planFooter(st, spinner, f.Planning, "reading "+f.from+"'s offsets", f.PlanErr, inner, keys)...)
	return kit.RenderBox(st, f.width, f.height, lines)
}
