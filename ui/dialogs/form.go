package dialogs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"koff/edit/plan"
	"koff/edit/planner"
	"koff/keymap"
	"koff/model"
	"koff/model/java"
	"koff/model/text"
	"koff/ui/kit"
)

// formDialog is a dialog that leads to a planned edit: the offset editor,
// the sink offsets form and the copy prompt. The root gives it the keys it
// does not take itself (ctrl+c, esc) and plans what it submits.
type FormDialog interface {
	SetSize(w, h int)
	View(spinner string) string
	// update gives a paste or a cursor blink to the focused input.
	Update(msg tea.Msg) tea.Cmd
	// key handles a key; a non-nil submission is the edit to plan.
	Key(msg tea.KeyPressMsg) (tea.Cmd, *Submission)
	// focusCmd focuses the input when the dialog opens.
	FocusCmd() tea.Cmd
	State() *formState
}

// formState is what every form shares: whether its plan is in flight,
// and the last plan's error, word for word.
type formState struct {
	Planning bool
	PlanErr  string
	// create: the last plan refused a partition the connector never had
	// (a likely typo); submitting the same text again adds it, as the
	// CLI's --create does. Any key typed clears it.
	Create bool
}

func (s *formState) State() *formState { return s }

// typeInto hands a message to one of the form's inputs; a key press clears
// the last plan error, which was about what was typed before.
func (s *formState) typeInto(in *textinput.Model, msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	*in, cmd = in.Update(msg)
	if _, ok := msg.(tea.KeyPressMsg); ok {
		s.PlanErr, s.Create = "", false
	}
	return cmd
}

// sizeDialogInput fits a form's one-line input and its help to a dialog
// of width w.
func sizeDialogInput(in *textinput.Model, h *help.Model, w int) {
	inner := w - kit.DialogFrameW
	in.SetWidth(max(inner-4, 4))
	h.SetWidth(inner)
}

// submission is an edit a dialog asks for: plan runs inside a tea.Cmd, and
// note, when set, tells the confirmation how the offsets were chosen.
type Submission struct {
	Label string
	Note  string
	Plan  func(ctx context.Context, ed kit.Editor) (*plan.Plan, error)
	// Detail is lines the confirmation shows under the note (a rewind's
	// commits); Plan may fill it, and Note, with what it found.
	Detail []string
	// Operation, instead of Plan, plans an operation of several steps (a
	// rename), which OperationDialog confirms.
	Operation func(ctx context.Context, ed kit.Editor) (*plan.Operation, error)
}

// planRequest submits a plan.Request to Editor.Plan.
func PlanRequest(req plan.Request) *Submission {
	return &Submission{
		Label: fmt.Sprintf("planning %s of %s…", req.Kind, req.Connector),
		Plan:  func(ctx context.Context, ed kit.Editor) (*plan.Plan, error) { return ed.Plan(ctx, req) },
	}
}

// planSinkRequest submits a plan.SinkRequest to Editor.PlanSink.
func PlanSinkRequest(req plan.SinkRequest, note string) *Submission {
	return &Submission{
		Label: fmt.Sprintf("planning %s of %s: reading group offsets…", req.Kind, req.Connector),
		Note:  note,
		Plan:  func(ctx context.Context, ed kit.Editor) (*plan.Plan, error) { return ed.PlanSink(ctx, req) },
	}
}

// formField is one JSON input of the offset editor, validated as it is
// typed with the same parser the edit pipeline uses.
type formField struct {
	label string
	Area  textarea.Model
	// check parses the text: note is shown when it is valid, err when not.
	check func(string) (note string, err error)
	// shape, when set, warns about valid text that a task may not read
	// as meant (see edit/planner/shape.go); the edit can still go ahead.
	shape func(string) []string
	empty string // shown instead of an error while the field is empty
	note  string
	Err   error
	warns []string
}

func (f *formField) Validate() {
	v := strings.TrimSpace(f.Area.Value())
	f.warns = nil
	if v == "" {
		f.note, f.Err = "", errEmpty
		return
	}
	f.note, f.Err = f.check(v)
	if f.Err == nil && f.shape != nil {
		f.warns = f.shape(v)
	}
}

// errEmpty marks an empty field: invalid, but not worth a red message.
var errEmpty = errors.New("empty")

// editForm is the offset editor: e edits the selected source partition's
// offset, n adds one for a source partition not stored yet.
type EditForm struct {
	km        *keymap.KeyMap
	st        *kit.Styles
	title     string
	connector string
	// partition is the source partition e edits; newPartition is true for
	// n, whose first field is the partition.
	partition     java.Object
	partitionJSON string
	Current       string // e: the offset in force, as stored
	ID            model.PartitionID
	moved         bool // e: the offset in force changed while the form was open
	NewPartition  bool
	from          string          // t in the history: the commit whose value is filled in
	known         map[string]bool // n: the connector's stored partitions, canonical
	written       []java.Object   // the offset shapes the connector wrote
	Fields        []*formField
	focus         int
	formState
	help          help.Model
	width, height int
}

// The textarea is at most this many lines tall; longer JSON scrolls in it.
const maxFieldLines = 8

func newTextarea(st *kit.Styles, placeholder string) textarea.Model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.CharLimit = 0 // offsets can be long (GTID sets, file lists)
	ta.MaxWidth = 0  // the dialog decides
	ta.MaxHeight = 0 // it scrolls beyond its height
	ta.Placeholder = placeholder
	ta.SetStyles(st.TextArea)
	return ta
}

// newOffsetForm is e: the offset of one stored source partition.
func NewOffsetForm(km *keymap.KeyMap, st *kit.Styles, connector string, row model.PartitionRow, partition java.Object, known []java.Object) *EditForm {
	f := &EditForm{km: km, st: st, title: "Edit offset · " + kit.Clean(connector), connector: connector,
		partition: partition, partitionJSON: kit.CleanBlock(row.Partition, kit.DetailMax), Current: kit.CleanBlock(row.Offset, kit.DetailMax), help: help.New()}
	f.ID, f.written = row.ID, known
	if row.Deleted {
		f.Current = ""
	}
	field := &formField{label: "New offset", Area: newTextarea(st, `{"position":123}`),
		empty: "type the new offset as a JSON object",
		check: func(s string) (string, error) {
			_, null, err := plan.ParseOffset(s)
			if err != nil {
				return "", err
			}
			if null {
				return "null deletes the offset: this becomes a reset", nil
			}
			return "valid offset", nil
		}}
	field.shape = shapeAgainst(row, known)
	// JSON's \u escapes for what a terminal would act on: the same value.
	field.Area.SetValue(string(text.JSONSafe([]byte(initialOffset(row.Offset)))))
	f.Fields = []*formField{field}
	f.help.Styles = st.Help
	f.Validate()
	return f
}

// FromCommit fills the new offset with a commit's value from the
// partition's history (t on the detail view); from says which commit.
func (f *EditForm) FromCommit(value, from string) {
	f.title = "Edit offset to a commit · " + kit.Clean(f.connector)
	f.from = from
	f.Fields[0].Area.SetValue(string(text.JSONSafe([]byte(initialOffset(value)))))
	f.Validate()
}

// shapeAgainst warns of a new offset's shape against row's offset and
// the shapes the connector wrote: the judgement the CLI's plan prints.
func shapeAgainst(row model.PartitionRow, known []java.Object) func(string) []string {
	cur, err := model.ParseOffset([]byte(row.Offset))
	if err != nil || row.Deleted {
		cur = nil
	}
	return func(s string) []string {
		o, _, _ := plan.ParseOffset(s)
		return cleanAll(planner.OffsetShapeWarnings(o, cur, known))
	}
}

// cleanAll makes warnings that quote typed or stored field names safe
// to print.
func cleanAll(ws []string) []string {
	for i, w := range ws {
		ws[i] = kit.Clean(w)
	}
	return ws
}

// follow keeps e's "current offset" and its warnings true while a running
// task commits under the open form: what is typed stays, and the form says
// the offset moved (the plan would see it too and refuse a stale edit).
func (f *EditForm) Follow(src kit.Source) {
	if f.NewPartition || f.ID.Key == "" {
		return
	}
	d, ok := src.Partition(f.ID)
	if !ok {
		return
	}
	cur := kit.CleanBlock(d.Offset, kit.DetailMax)
	if d.Deleted {
		cur = ""
	}
	if cur == f.Current {
		return
	}
	f.Current, f.moved = cur, true
	f.Fields[0].shape = shapeAgainst(d.PartitionRow, f.written)
	f.Validate()
}

// newPartitionForm is n: a source partition and its offset, both typed.
// The selected row, when there is one, fills them in as a template: the
// partition map's field names are the part that is easy to get wrong.
func NewPartitionForm(km *keymap.KeyMap, st *kit.Styles, connector string, row model.PartitionRow, hasRow bool, known map[string]bool, sib kit.SiblingShapes) *EditForm {
	f := &EditForm{km: km, st: st, title: "Add a source partition · " + kit.Clean(connector), connector: connector,
		NewPartition: true, known: known, help: help.New()}
	part := &formField{label: "Source partition", Area: newTextarea(st, `{"table":"orders"}`),
		empty: "type the source partition map as a JSON object",
		check: func(s string) (string, error) {
			p, err := plan.ParsePartition(s)
			if err != nil {
				return "", err
			}
			if f.known[kit.CanonPartition(p)] {
				return "this source partition is stored already: its offset is replaced", nil
			}
			return "new source partition", nil
		},
		shape: func(s string) []string {
			p, _ := plan.ParsePartition(s)
			var out []string
			if w := planner.PartitionShapeWarning(p, sib.Partitions); w != "" {
				out = append(out, kit.Clean(w))
			}
			if !f.known[kit.CanonPartition(p)] {
				if c := planner.ClosestPartitions(p, sib.Partitions); len(c) > 0 {
					out = append(out, kit.Clean("not one of the connector's partitions"+planner.PartitionDidYouMean(c)))
				}
			}
			return out
		}}
	off := &formField{label: "Offset", Area: newTextarea(st, `{"position":0}`),
		empty: "type its offset as a JSON object",
		check: func(s string) (string, error) {
			_, null, err := plan.ParseOffset(s)
			if err != nil {
				return "", err
			}
			if null {
				return "", errNullNew
			}
			return "valid offset", nil
		},
		shape: func(s string) []string {
			o, _, _ := plan.ParseOffset(s)
			return cleanAll(planner.OffsetShapeWarnings(o, nil, sib.Offsets))
		}}
	if hasRow {
		part.Area.SetValue(string(text.JSONSafe([]byte(row.Partition))))
		if !row.Deleted {
			off.Area.SetValue(string(text.JSONSafe([]byte(row.Offset))))
		}
	}
	f.Fields = []*formField{part, off}
	f.help.Styles = st.Help
	f.Validate()
	return f
}

var errNullNew = errors.New("a new source partition needs an offset object, not null")

// initialOffset is what the editor starts with: the stored offset pretty
// printed when it is small, compact when pretty would not fit the field.
func initialOffset(stored string) string {
	if stored == "" {
		return ""
	}
	o, err := model.ParseOffset([]byte(stored))
	if err != nil || o == nil {
		return stored
	}
	pretty := java.Pretty(o, "  ")
	if strings.Count(pretty, "\n")+1 <= maxFieldLines-2 {
		return pretty
	}
	return stored
}

func (f *EditForm) Validate() {
	for _, fl := range f.Fields {
		fl.Validate()
	}
}

func (f *EditForm) Valid() bool {
	f.Validate()
	for _, fl := range f.Fields {
		if fl.Err != nil {
			return false
		}
	}
	return true
}

// request is the edit the form describes; call it only when valid.
func (f *EditForm) request() (plan.Request, error) {
	req := plan.Request{Connector: f.connector, Kind: plan.KindSet, Create: f.Create}
	it := plan.Item{Partition: f.partition}
	offsetText := f.Fields[len(f.Fields)-1].Area.Value()
	if f.NewPartition {
		p, err := plan.ParsePartition(strings.TrimSpace(f.Fields[0].Area.Value()))
		if err != nil {
			return req, err
		}
		it.Partition = p
	}
	o, null, err := plan.ParseOffset(strings.TrimSpace(offsetText))
	if err != nil {
		return req, err
	}
	if null {
		req.Kind = plan.KindReset
	}
	it.Offset = o
	req.Items = []plan.Item{it}
	return req, nil
}

func (f *EditForm) FocusCmd() tea.Cmd {
	for i, fl := range f.Fields {
		if i != f.focus {
			fl.Area.Blur()
		}
	}
	fl := f.Fields[f.focus]
	fl.Area.MoveToEnd()
	return fl.Area.Focus()
}

func (f *EditForm) cycleFocus() tea.Cmd {
	if len(f.Fields) < 2 {
		return nil
	}
	f.focus = (f.focus + 1) % len(f.Fields)
	return f.FocusCmd()
}

// key: tab moves between fields, enter or ctrl+s submits valid JSON, and
// enter on invalid JSON is a newline.
func (f *EditForm) Key(msg tea.KeyPressMsg) (tea.Cmd, *Submission) {
	switch {
	case key.Matches(msg, f.km.FormNext):
		return f.cycleFocus(), nil
	case key.Matches(msg, f.km.FormSubmit) && f.Valid():
		req, err := f.request()
		if err != nil { // valid() parsed the same text: cannot happen
			f.PlanErr = err.Error()
			return nil, nil
		}
		return nil, PlanRequest(req)
	case key.Matches(msg, f.km.FormSubmit) && !f.enterTypes(msg):
		return nil, nil // ctrl+s on invalid JSON: the message under the field says why
	}
	return f.Update(msg), nil
}

// enterTypes reports whether the key is the focused textarea's newline.
func (f *EditForm) enterTypes(msg tea.KeyPressMsg) bool {
	return key.Matches(msg, f.Fields[f.focus].Area.KeyMap.InsertNewline)
}

// update gives a key, a paste or a cursor blink to the focused field and
// validates again.
func (f *EditForm) Update(msg tea.Msg) tea.Cmd {
	fl := f.Fields[f.focus]
	var cmd tea.Cmd
	fl.Area, cmd = fl.Area.Update(msg)
	if _, ok := msg.(tea.KeyPressMsg); ok && f.PlanErr != "" {
		f.PlanErr, f.Create = "", false
		f.SetSize(f.width, f.height) // the fields' own heights again
	}
	f.Validate()
	return cmd
}

// setSize fits the fields to a dialog of outer size w×h.
func (f *EditForm) SetSize(w, h int) {
	f.width, f.height = w, h
	inner := w - kit.DialogFrameW
	lines := maxFieldLines
	if len(f.Fields) > 1 {
		lines = 3
	}
	// What is not the fields: title, blank, context, blanks, labels,
	// messages, blank, keys, and the frame.
	fixed := 2 + kit.DialogFrameH + len(f.Fields)*3 + 2
	if !f.NewPartition {
		fixed += 4
	}
	if f.from != "" {
		fixed += 1 + len(kit.IndentWrap(f.from, inner, "  ", 3))
	}
	lines = min(lines, max((h-fixed)/len(f.Fields), 1))
	for _, fl := range f.Fields {
		fl.Area.SetWidth(inner)
		want := strings.Count(fl.Area.Value(), "\n") + 2
		fl.Area.SetHeight(min(max(want, 3), lines))
	}
	f.help.SetWidth(inner)
}

// view renders the form as a dialog box.
func (f *EditForm) View(spinner string) string {
	inner := f.width - kit.DialogFrameW
	st := f.st
	if f.PlanErr != "" {
		// The fields shrink to their text while a plan's refusal shows,
		// so its did-you-mean and what to do next are not cut.
		for _, fl := range f.Fields {
			fl.Area.SetHeight(strings.Count(fl.Area.Value(), "\n") + 1)
		}
	}
	lines := []string{st.DialogTitle.Render(f.title), ""}
	if !f.NewPartition {
		lines = append(lines, st.FieldLabel.Render("Source partition"))
		lines = append(lines, kit.IndentWrap(f.partitionJSON, inner, "  ", 3)...)
		label := "Current offset"
		if f.moved {
			label += " (moved while this form was open)"
		}
		lines = append(lines, st.FieldLabel.Render(label))
		cur := f.Current
		if cur == "" {
			cur = "(none: deleted)"
		}
		lines = append(lines, kit.IndentWrap(cur, inner, "  ", 3)...)
	}
	if f.from != "" {
		lines = append(lines, st.FieldLabel.Render("From the commit"))
		lines = append(lines, kit.IndentWrap(f.from, inner, "  ", 3)...)
	}
	for i, fl := range f.Fields {
		if i > 0 || !f.NewPartition {
			lines = append(lines, "")
		}
		label := st.FieldLabel.Render(fl.label)
		switch {
		case len(f.Fields) > 1 && i == f.focus: // which field tab left you in, without colour too
			label = st.FieldFocus.Render("▶ " + fl.label)
		case len(f.Fields) > 1:
			label = st.FieldLabel.Render("  " + fl.label)
		case i == f.focus:
			label = st.FieldFocus.Render(fl.label)
		}
		lines = append(lines, label)
		lines = append(lines, strings.Split(fl.Area.View(), "\n")...)
		switch {
		case fl.Err == errEmpty:
			lines = append(lines, st.Muted.Render("  "+fl.empty))
		case fl.Err != nil:
			lines = append(lines, kit.IndentWrap(st.Bad.Render("✗ "+fl.Err.Error()), inner, "", 3)...)
		default:
			lines = append(lines, st.OK.Render("✓ ")+st.Muted.Render(fl.note))
		}
		for _, w := range fl.warns {
			lines = append(lines, kit.IndentWrap(st.Warn.Render("⚠ ")+w, inner, "  ", 3)...)
		}
	}
	lines = append(lines, "")
	lines = append(lines, planFooter(st, spinner, f.Planning, "reading the current offsets", f.PlanErr, inner, f.keys(inner))...)
	return kit.RenderBox(st, f.width, f.height, lines)
}

// keys is the form's key line. Submit shows only when the JSON is valid;
// until then the line says what is missing.
func (f *EditForm) keys(w int) []string {
	submit := f.km.FormSubmit
	submit.SetEnabled(f.Valid())
	next := f.km.FormNext
	next.SetEnabled(len(f.Fields) > 1)
	note := ""
	if !f.Valid() {
		note = "fix the JSON to review the edit"
	}
	return kit.DialogKeys(f.help, f.st, w, []key.Binding{submit, next, f.km.FormCancel}, note)
}

// planFooter ends a form: a spinner while its plan is being made, else the
// key line, under the plan's error if it failed.
func planFooter(st *kit.Styles, spinner string, planning bool, doing, planErr string, inner int, keys []string) []string {
	switch {
	case planning:
		return []string{spinner + " planning: " + doing + "…"}
	case planErr != "":
		return append(kit.IndentWrap(st.Bad.Render("✗ "+planErr), inner, "", 4), keys...)
	}
	return keys
}
