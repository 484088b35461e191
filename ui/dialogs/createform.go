package dialogs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
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

// CreateForm is C: a new connector like the selected one (koff create).
// It asks for the name, the config (the selected connector's, as JSON to
// edit, its secrets [hidden] and kept unless typed), where the offsets
// come from, and the state it starts in. The create is planned
// (Editor.PlanCreate) and shown step by step in an OperationDialog.
type CreateForm struct {
	km   *keymap.KeyMap
	st   *kit.Styles
	from string
	sink bool
	// fromConfig is the selected connector's config, whose secrets a
	// [hidden] value keeps.
	fromConfig map[string]string
	known      map[string]bool // connectors koff knows, true for those Connect lists
	name       textinput.Model
	config     *formField
	offsets    int // createOffsets index
	start      int // 0 running, 1 stopped
	focus      int // createFocus
	err        error
	formState
	help          help.Model
	width, height int
}

// The form's fields, in tab order.
const (
	focusName = iota
	focusConfig
	focusOffsets
	focusStart
	createFields
)

// Where a created connector's offsets come from.
const (
	offsetsNone   = iota // --no-offsets
	offsetsCopied        // --offsets-from the selected connector
	offsetsStored        // those stored under the new name, as they are
)

var startStates = []string{"running", "stopped"}

func NewCreateForm(km *keymap.KeyMap, st *kit.Styles, from string, sink bool, config map[string]string, known map[string]bool) *CreateForm {
	f := &CreateForm{km: km, st: st, from: from, sink: sink, fromConfig: config, known: known, help: help.New()}
	f.help.Styles = st.Help
	f.name = textinput.New()
	f.name.Prompt = "› "
	f.name.Placeholder = "the new connector's name"
	f.name.SetStyles(st.Input)
	shown := map[string]string{}
	for k, v := range config {
		if k == "name" {
			continue // the name field's
		}
		if plan.Hidden(k, v) {
			v = plan.HiddenText
		}
		shown[k] = v
	}
	body, _ := json.MarshalIndent(shown, "", "  ") // sorted keys
	f.config = &formField{label: "Config (" + from + "'s)", Area: newTextarea(st, `{"connector.class":"…"}`),
		empty: "type the connector's config as a JSON object",
		check: func(s string) (string, error) {
			cfg, err := f.parseConfig(s)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("valid config: %d settings, %s", len(cfg), plan.ClassOf(cfg)), nil
		}}
	f.config.Area.SetValue(string(body))
	f.config.Area.MoveToBegin()
	if sink {
		f.offsets = offsetsStored // a sink's are its group's
	}
	f.Validate()
	return f
}

func (f *CreateForm) FocusCmd() tea.Cmd {
	f.name.Blur()
	f.config.Area.Blur()
	switch f.focus {
	case focusName:
		return f.name.Focus()
	case focusConfig:
		return f.config.Area.Focus()
	}
	return nil
}

func (f *CreateForm) target() string { return strings.TrimSpace(f.name.Value()) }

// parseConfig reads the JSON as koff create -f reads a flat config, with
// the name field's name; a [hidden] secret keeps the selected connector's.
func (f *CreateForm) parseConfig(s string) (map[string]string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &top); err != nil || top == nil {
		return nil, errors.New("not a JSON object of settings")
	}
	name := f.target()
	if name == "" {
		name = "x" // the name field says what is missing
	}
	if _, ok := top["name"]; !ok {
		top["name"], _ = json.Marshal(name)
	}
	data, _ := json.Marshal(top)
	got, cfg, err := plan.ParseConnectorConfig(data)
	if err != nil {
		return nil, err
	}
	if got != name {
		return nil, fmt.Errorf("the config's name %q is not the name above: leave it out", got)
	}
	for k, v := range cfg {
		if v == plan.HiddenText {
			old, ok := f.fromConfig[k]
			if !ok {
				return nil, fmt.Errorf("%s is %s: %s has no value of it to keep", k, plan.HiddenText, f.from)
			}
			cfg[k] = old
		}
	}
	return cfg, nil
}

func (f *CreateForm) Validate() {
	f.config.Validate()
	f.err = nil
	to := f.target()
	inREST := f.known[to]
	switch {
	case to == "":
		f.err = errEmpty
	case inREST:
		f.err = errors.New(to + " is in Connect: choose another name")
	}
}

// offsetsChoices are the offsets field's words, for the new name.
func (f *CreateForm) offsetsChoices() []string {
	to := f.target()
	if to == "" {
		to = "the new name"
	}
	stored := "as stored under " + to
	if _, has := f.known[to]; has {
		stored += " (it has offsets)"
	} else {
		stored += " (none: it starts from none)"
	}
	return []string{"none", "copied from " + f.from, stored}
}

func (f *CreateForm) request() (planner.CreateRequest, error) {
	if f.err != nil {
		return planner.CreateRequest{}, f.err
	}
	if f.config.Err != nil {
		return planner.CreateRequest{}, f.config.Err
	}
	cfg, err := f.parseConfig(strings.TrimSpace(f.config.Area.Value()))
	if err != nil {
		return planner.CreateRequest{}, err
	}
	name := f.target()
	req := planner.CreateRequest{Name: name, Config: maps.Clone(cfg), Start: startStates[f.start], FromDashboard: true}
	switch f.offsets {
	case offsetsNone:
		req.NoOffsets = true
		req.Args = append(req.Args, "--no-offsets")
	case offsetsCopied:
		req.OffsetsFrom = f.from
		req.Args = append(req.Args, "--offsets-from", f.from)
	}
	req.Args = append(req.Args, "--start", req.Start)
	return req, nil
}

func (f *CreateForm) Key(msg tea.KeyPressMsg) (tea.Cmd, *Submission) {
	switch {
	case key.Matches(msg, f.km.FormNext):
		if msg.String() == "shift+tab" {
			f.focus = (f.focus + createFields - 1) % createFields
		} else {
			f.focus = (f.focus + 1) % createFields
		}
		return f.FocusCmd(), nil
	case key.Matches(msg, f.km.FormSubmit) && (f.focus != focusConfig || f.valid()):
		req, err := f.request()
		if err != nil {
			return nil, nil // the form says why
		}
		return nil, &Submission{
			Label: "planning the create of " + req.Name + "…",
			Operation: func(ctx context.Context, ed kit.Editor) (*plan.Operation, error) {
				return ed.PlanCreate(ctx, req)
			},
		}
	case key.Matches(msg, f.km.Choice) && (f.focus == focusOffsets || f.focus == focusStart):
		step := 1
		if msg.String() == "left" {
			step = -1
		}
		if f.focus == focusStart {
			f.start = (f.start + step + len(startStates)) % len(startStates)
		} else if !f.sink {
			f.offsets = (f.offsets + step + 3) % 3
		}
		f.PlanErr = ""
		return nil, nil
	}
	return f.Update(msg), nil
}

func (f *CreateForm) valid() bool {
	_, err := f.request()
	return err == nil
}

func (f *CreateForm) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch f.focus {
	case focusName:
		cmd = f.typeInto(&f.name, msg)
	case focusConfig:
		f.config.Area, cmd = f.config.Area.Update(msg)
		if _, ok := msg.(tea.KeyPressMsg); ok {
			f.PlanErr = ""
		}
	}
	f.Validate()
	return cmd
}

func (f *CreateForm) SetSize(w, h int) {
	f.width, f.height = w, h
	sizeDialogInput(&f.name, &f.help, w)
	f.config.Area.SetWidth(w - kit.DialogFrameW)
}

func (f *CreateForm) label(i int, text string) string {
	if i == f.focus {
		return f.st.FieldFocus.Render("▶ " + text)
	}
	return f.st.FieldLabel.Render("  " + text)
}

// choiceLine is a choice field on one line: its label, the choices with
// the chosen one in brackets (without colour too), and the keys when it
// has focus.
func (f *CreateForm) choiceLine(i int, label string, choices []string, chosen int, inner int) []string {
	var parts []string
	for j, c := range choices {
		if j == chosen {
			parts = append(parts, f.st.FieldFocus.Render("("+kit.Clean(c)+")"))
		} else {
			parts = append(parts, f.st.Muted.Render(kit.Clean(c)))
		}
	}
	hint := ""
	if i == f.focus {
		hint = f.st.Muted.Render("  " + f.km.Choice.Help().Key)
	}
	return hanging(f.label(i, label)+"  "+strings.Join(parts, " · ")+hint, inner)
}

// hanging wraps a line to inner, its continuation lines indented.
func hanging(s string, inner int) []string {
	lines := kit.IndentWrap(s, inner-4, "", 3)
	for i := 1; i < len(lines); i++ {
		lines[i] = "    " + lines[i]
	}
	return lines
}

func (f *CreateForm) View(spinner string) string {
	inner := f.width - kit.DialogFrameW
	st := f.st
	head := []string{st.DialogTitle.Render("Create like · " + kit.Clean(f.from))}
	hint := kit.IndentWrap(st.Muted.Render("Created STOPPED, its offsets written and read back, then started. The plan comes next."), inner, "", 2)
	head = append(head, hint...)
	head = append(head, "", f.label(focusName, "Name"), f.name.View())
	hintLines := len(hint) + 1 // and the blank line after it
	head = append(head, fieldVerdict(st, f.err, "type the new connector's name", f.target()+" is free", inner)...)
	head = append(head, f.label(focusConfig, "Config ("+kit.Clean(f.from)+"'s; "+plan.HiddenText+" keeps its secret)"))
	tail := fieldVerdict(st, f.config.Err, f.config.empty, f.config.note, inner)
	if f.sink {
		tail = append(tail, hanging(f.label(focusOffsets, "Offsets")+st.Muted.Render("  its consumer group's, as they are (consumer.override.group.id, else connect-NAME)"), inner)...)
	} else {
		tail = append(tail, f.choiceLine(focusOffsets, "Offsets", f.offsetsChoices(), f.offsets, inner)...)
	}
	tail = append(tail, f.choiceLine(focusStart, "Start", startStates, f.start, inner)...)
	tail = append(tail, "")
	submit := f.km.FormSubmit
	submit.SetEnabled(f.valid())
	keys := kit.DialogKeys(f.help, st, inner, []key.Binding{submit, f.km.FormNext, f.km.FormCancel}, "")
	tail = append(tail, planFooter(st, spinner, f.Planning, "checking Connect and the offsets", f.PlanErr, inner, keys)...)
	// The config gets the rows the rest leaves; on a small screen the
	// hint gives way to it.
	room := f.height - kit.DialogFrameH - len(head) - len(tail)
	if room < 4 {
		head = append(head[:1], head[1+hintLines:]...)
		room += hintLines
	}
	want := strings.Count(f.config.Area.Value(), "\n") + 1
	f.config.Area.SetHeight(max(min(want, maxFieldLines, room), 1))
	lines := append(head, strings.Split(f.config.Area.View(), "\n")...)
	lines = append(lines, tail...)
	return kit.RenderBox(st, f.width, f.height, lines)
}
