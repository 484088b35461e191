package dialogs

import (
	"context"
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

// RekeyForm is K: the new value of a field of the selected connector's
// source partitions (koff rekey NAME --set F=V), which partitions
// (--where), and the config changes that go with it (--config). The
// rekey is planned (Editor.PlanRekey) and shown step by step in an
// OperationDialog.
type RekeyForm struct {
	km        *keymap.KeyMap
	st        *kit.Styles
	connector string
	// fields are the partitions' field names, shown as a hint.
	fields []string
	inputs [4]textinput.Model // set, where, config, rename
	focus  int
	err    error
	formState
	help          help.Model
	width, height int
}

var rekeyLabels = [4]string{"Set FIELD=VALUE", "Where FIELD=VALUE (optional)", "Config KEY=VALUE (optional)", "Rename to (optional)"}

func NewRekeyForm(km *keymap.KeyMap, st *kit.Styles, connector string, fields []string) *RekeyForm {
	f := &RekeyForm{km: km, st: st, connector: connector, help: help.New()}
	f.help.Styles = st.Help
	for i := range f.inputs {
		in := textinput.New()
		in.Prompt = "› "
		in.SetStyles(st.Input)
		f.inputs[i] = in
	}
	f.inputs[2].Placeholder = "key=value (e.g. Debezium's topic.prefix)"
	f.inputs[3].Placeholder = "a new name, in the same operation"
	f.SetFields(connector, fields)
	f.Validate()
	return f
}

// SetFields gives the form the field names of connector's partitions
// (read after it opened), for its hint and placeholders.
func (f *RekeyForm) SetFields(connector string, fields []string) {
	if connector != f.connector {
		return
	}
	f.fields = fields
	field := "field"
	if len(fields) > 0 {
		field = fields[0]
	}
	f.inputs[0].Placeholder = field + "=new value"
	f.inputs[1].Placeholder = field + "=value now (all partitions without it)"
}

func (f *RekeyForm) FocusCmd() tea.Cmd { return f.inputs[f.focus].Focus() }

// request is the rekey the fields ask for: space-separated pairs, as
// koff rekey takes them.
func (f *RekeyForm) request() (planner.RekeyRequest, error) {
	set := strings.Fields(f.inputs[0].Value())
	if len(set) == 0 {
		return planner.RekeyRequest{}, errEmpty
	}
	return planner.NewRekeyRequest(f.connector, set, strings.Fields(f.inputs[1].Value()), strings.Fields(f.inputs[2].Value()),
		strings.TrimSpace(f.inputs[3].Value()))
}

func (f *RekeyForm) Validate() {
	_, f.err = f.request()
}

func (f *RekeyForm) Key(msg tea.KeyPressMsg) (tea.Cmd, *Submission) {
	switch {
	case key.Matches(msg, f.km.FormNext):
		f.inputs[f.focus].Blur()
		if msg.String() == "shift+tab" {
			f.focus = (f.focus + len(f.inputs) - 1) % len(f.inputs)
		} else {
			f.focus = (f.focus + 1) % len(f.inputs)
		}
		return f.inputs[f.focus].Focus(), nil
	case key.Matches(msg, f.km.FormSubmit):
		req, err := f.request()
		f.err = err
		if err != nil {
			return nil, nil
		}
		return nil, &Submission{
			Label: "planning the rekey of " + f.connector + "…",
			Operation: func(ctx context.Context, ed kit.Editor) (*plan.Operation, error) {
				return ed.PlanRekey(ctx, req)
			},
		}
	}
	return f.Update(msg), nil
}

func (f *RekeyForm) Update(msg tea.Msg) tea.Cmd {
	cmd := f.typeInto(&f.inputs[f.focus], msg)
	f.Validate()
	return cmd
}

func (f *RekeyForm) SetSize(w, h int) {
	f.width, f.height = w, h
	for i := range f.inputs {
		sizeDialogInput(&f.inputs[i], &f.help, w)
	}
}

func (f *RekeyForm) View(spinner string) string {
	inner := f.width - kit.DialogFrameW
	st := f.st
	lines := []string{st.DialogTitle.Render("Rekey · " + kit.Clean(f.connector)), ""}
	hint := "Its offsets under new keys, byte for byte, the old keys tombstoned; stopped first and put back as it was. The plan comes next."
	if len(f.fields) > 0 {
		hint = "Fields: " + strings.Join(f.fields, ", ") + ". " + hint
	}
	lines = append(lines, kit.IndentWrap(st.Muted.Render(kit.Clean(hint)), inner, "", 3)...)
	lines = append(lines, "")
	for i, in := range f.inputs {
		label := st.FieldLabel.Render(rekeyLabels[i])
		if i == f.focus {
			label = st.FieldFocus.Render(rekeyLabels[i])
		}
		lines = append(lines, label, in.View())
	}
	lines = append(lines, fieldVerdict(st, f.err, "type the field's new value: FIELD=VALUE", "", inner)...)
	lines = append(lines, "")
	submit := f.km.FormSubmit
	submit.SetEnabled(f.err == nil)
	keys := kit.DialogKeys(f.help, st, inner, []key.Binding{submit, f.km.FormNext, f.km.FormCancel}, "")
	lines = append(lines, planFooter(st, spinner, f.Planning, "reading "+kit.Clean(f.connector)+"'s partitions and config", f.PlanErr, inner, keys)...)
	return kit.RenderBox(st, f.width, f.height, lines)
}
