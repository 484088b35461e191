package dialogs

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"koff/keymap"
	"koff/ui/kit"
)

// nameForm is a form of one line, a connector's or a context's name,
// checked as it is typed: copy (c), rename (N) and move (M) are each one,
// with their own check and submission.
type nameForm struct {
	km    *keymap.KeyMap
	st    *kit.Styles
	input textinput.Model
	note  string // what a valid name will do
	err   error
	formState
	help          help.Model
	width, height int
	validate      func() // the form's own check, into note and err
}

func newNameForm(km *keymap.KeyMap, st *kit.Styles, placeholder string) nameForm {
	f := nameForm{km: km, st: st, help: help.New()}
	f.help.Styles = st.Help
	f.input = textinput.New()
	f.input.Prompt = "› "
	f.input.Placeholder = placeholder
	f.input.SetStyles(st.Input)
	return f
}

func (f *nameForm) FocusCmd() tea.Cmd { return f.input.Focus() }

func (f *nameForm) target() string { return strings.TrimSpace(f.input.Value()) }

func (f *nameForm) Update(msg tea.Msg) tea.Cmd {
	cmd := f.typeInto(&f.input, msg)
	f.validate()
	return cmd
}

func (f *nameForm) SetSize(w, h int) {
	f.width, f.height = w, h
	sizeDialogInput(&f.input, &f.help, w)
}

// nameFormText is what one nameForm says: its title, what it does (and
// any lines under that), the field's label, the hint while it is empty,
// and what its plan is doing while it is made. Outside names in them are
// made safe by the view.
type nameFormText struct {
	title, about string
	extra        []string // rendered lines under about
	label, empty string
	planning     string
}

func (f *nameForm) view(spinner string, t nameFormText) string {
	inner := f.width - kit.DialogFrameW
	st := f.st
	lines := []string{st.DialogTitle.Render(kit.Clean(t.title)), ""}
	lines = append(lines, kit.IndentWrap(st.Muted.Render(kit.Clean(t.about)), inner, "", 3)...)
	lines = append(lines, t.extra...)
	lines = append(lines, "", st.FieldFocus.Render(t.label), f.input.View())
	lines = append(lines, fieldVerdict(st, f.err, t.empty, f.note, inner)...)
	lines = append(lines, "")
	submit := f.km.FormSubmit
	submit.SetEnabled(f.err == nil)
	keys := kit.DialogKeys(f.help, st, inner, []key.Binding{submit, f.km.FormCancel}, "")
	lines = append(lines, planFooter(st, spinner, f.Planning, kit.Clean(t.planning), f.PlanErr, inner, keys)...)
	return kit.RenderBox(st, f.width, f.height, lines)
}

// fieldVerdict is what a form says under a field as it is typed: a hint
// while it is empty, why it cannot be submitted, or what it will do.
// The texts may quote what was typed: they are made safe here.
func fieldVerdict(st *kit.Styles, err error, empty, note string, inner int) []string {
	switch {
	case err == errEmpty:
		return kit.IndentWrap(st.Muted.Render(kit.Clean(empty)), inner, "  ", 2)
	case err != nil:
		return kit.IndentWrap(st.Bad.Render("✗ "+kit.Clean(err.Error())), inner, "", 3)
	case note == "":
		return nil
	}
	return kit.IndentWrap(st.OK.Render("✓ ")+st.Muted.Render(kit.Clean(note)), inner, "", 2)
}
