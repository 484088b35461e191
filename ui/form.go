package ui

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

	"koff/edit"
	"koff/keymap"
	"koff/model"
	"koff/model/java"
	"koff/model/text"
)

// formDialog is a dialog that leads to a planned edit: the offset editor,
// the sink offsets form and the copy prompt. The root gives it the keys it
// does not take itself (ctrl+c, esc) and plans what it submits.
type formDialog interface {
	setSize(w, h int)
	view(spinner string) string
	// update gives a paste or a cursor blink to the focused input.
	update(msg tea.Msg) tea.Cmd
	// key handles a key; a non-nil submission is the edit to plan.
	key(msg tea.KeyPressMsg) (tea.Cmd, *submission)
	// focusCmd focuses the input when the dialog opens.
	focusCmd() tea.Cmd
	state() *formState
}

// formState is what every form shares: whether its plan is in flight,
// and the last plan's error, word for word.
type formState struct {
	planning bool
	planErr  string
	// create: the last plan refused a partition the connector never had
	// (a likely typo); submitting the same text again adds it, as the
	// CLI's --create does. Any key typed clears it.
	create bool
}

func (s *formState) state() *formState { return s }

// typeInto hands a message to one of the form's inputs; a key press clears
// the last plan error, which was about what was typed before.
func (s *formState) typeInto(in *textinput.Model, msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	*in, cmd = in.Update(msg)
	if _, ok := msg.(tea.KeyPressMsg); ok {
		s.planErr, s.create = "", false
	}
	return cmd
}

// sizeDialogInput fits a form's one-line input and its help to a dialog
// of width w.
func sizeDialogInput(in *textinput.Model, h *help.Model, w int) {
	inner := w - dialogFrameW
	in.SetWidth(max(inner-4, 4))
	h.SetWidth(inner)
}

// submission is an edit a dialog asks for: plan runs inside a tea.Cmd, and
// note, when set, tells the confirmation how the offsets were chosen.
type submission struct {
	label string
	note  string
	plan  func(ctx context.Context, ed Editor) (*edit.Plan, error)
}

// planRequest submits an edit.Request to Editor.Plan.
func planRequest(req edit.Request) *submission {
	return &submission{
		label: fmt.Sprintf("planning %s of %s…", req.Kind, req.Connector),
		plan:  func(ctx context.Context, ed Editor) (*edit.Plan, error) { return ed.Plan(ctx, req) },
	}
}

// planSinkRequest submits an edit.SinkRequest to Editor.PlanSink.
func planSinkRequest(req edit.SinkRequest, note string) *submission {
	return &submission{
		label: fmt.Sprintf("planning %s of %s: reading group offsets…", req.Kind, req.Connector),
		note:  note,
		plan:  func(ctx context.Context, ed Editor) (*edit.Plan, error) { return ed.PlanSink(ctx, req) },
	}
}

// formField is one JSON input of the offset editor, validated as it is
// typed with the same parser the edit pipeline uses.
type formField struct {
	label string
	ta    textarea.Model
	// check parses the text: note is shown when it is valid, err when not.
	check func(string) (note string, err error)
	// shape, when set, warns about valid text that a task may not read
	// as meant (see shape.go); the edit can still go ahead.
	shape func(string) []string
	empty string // shown instead of an error while the field is empty
	note  string
	err   error
	warns []string
}

func (f *formField) validate() {
	v := strings.TrimSpace(f.ta.Value())
	f.warns = nil
	if v == "" {
		f.note, f.err = "", errEmpty
		return
	}
	f.note, f.err = f.check(v)
	if f.err == nil && f.shape != nil {
		f.warns = f.shape(v)
	}
}

// errEmpty marks an empty field: invalid, but not worth a red message.
var errEmpty = errors.New("empty")

// editForm is the offset editor: e edits the selected source partition's
// offset, n adds one for a source partition not stored yet.
type editForm struct {
	km        *keymap.KeyMap
	st        *Styles
	title     string
	connector string
	// partition is the source partition e edits; newPartition is true for
	// n, whose first field is the partition.
	partition     java.Object
	partitionJSON string
	current       string // e: the offset in force, as stored
	id            model.PartitionID
	moved         bool // e: the offset in force changed while the form was open
	newPartition  bool
	known         map[string]bool // n: the connector's stored partitions, canonical
	written       []java.Object   // the offset shapes the connector wrote
	fields        []*formField
	focus         int
	formState
	help          help.Model
	width, height int
}

// The textarea is at most this many lines tall; longer JSON scrolls in it.
const maxFieldLines = 8

func newTextarea(st *Styles, placeholder string) textarea.Model {
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
func newOffsetForm(km *keymap.KeyMap, st *Styles, connector string, row model.PartitionRow, partition java.Object, known []java.Object) *editForm {
	f := &editForm{km: km, st: st, title: "Edit offset · " + clean(connector), connector: connector,
		partition: partition, partitionJSON: cleanBlock(row.Partition, detailMax), current: cleanBlock(row.Offset, detailMax), help: help.New()}
	f.id, f.written = row.ID, known
	if row.Deleted {
		f.current = ""
	}
	field := &formField{label: "New offset", ta: newTextarea(st, `{"position":123}`),
		empty: "type the new offset as a JSON object",
		check: func(s string) (string, error) {
			_, null, err := edit.ParseOffset(s)
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
	field.ta.SetValue(string(text.JSONSafe([]byte(initialOffset(row.Offset)))))
	f.fields = []*formField{field}
	f.help.Styles = st.Help
	f.validate()
	return f
}

// shapeAgainst warns of a new offset's shape against row's offset and
// the shapes the connector wrote: the judgement the CLI's plan prints.
func shapeAgainst(row model.PartitionRow, known []java.Object) func(string) []string {
	cur, err := model.ParseOffset([]byte(row.Offset))
	if err != nil || row.Deleted {
		cur = nil
	}
	return func(s string) []string {
		o, _, _ := edit.ParseOffset(s)
		return cleanAll(edit.OffsetShapeWarnings(o, cur, known))
	}
}

// cleanAll makes warnings that quote typed or stored field names safe
// to print.
func cleanAll(ws []string) []string {
	for i, w := range ws {
		ws[i] = clean(w)
	}
	return ws
}

// follow keeps e's "current offset" and its warnings true while a running
// task commits under the open form: what is typed stays, and the form says
// the offset moved (the plan would see it too and refuse a stale edit).
func (f *editForm) follow(src Source) {
	if f.newPartition || f.id.Key == "" {
		return
	}
	d, ok := src.Partition(f.id)
	if !ok {
		return
	}
	cur := cleanBlock(d.Offset, detailMax)
	if d.Deleted {
		cur = ""
	}
	if cur == f.current {
		return
	}
	f.current, f.moved = cur, true
	f.fields[0].shape = shapeAgainst(d.PartitionRow, f.written)
	f.validate()
}

// newPartitionForm is n: a source partition and its offset, both typed.
// The selected row, when there is one, fills them in as a template: the
// partition map's field names are the part that is easy to get wrong.
func newPartitionForm(km *keymap.KeyMap, st *Styles, connector string, row model.PartitionRow, hasRow bool, known map[string]bool, sib siblingShapes) *editForm {
	f := &editForm{km: km, st: st, title: "Add a source partition · " + clean(connector), connector: connector,
		newPartition: true, known: known, help: help.New()}
	part := &formField{label: "Source partition", ta: newTextarea(st, `{"table":"orders"}`),
		empty: "type the source partition map as a JSON object",
		check: func(s string) (string, error) {
			p, err := edit.ParsePartition(s)
			if err != nil {
				return "", err
			}
			if f.known[canonPartition(p)] {
				return "this source partition is stored already: its offset is replaced", nil
			}
			return "new source partition", nil
		},
		shape: func(s string) []string {
			p, _ := edit.ParsePartition(s)
			var out []string
			if w := edit.PartitionShapeWarning(p, sib.partitions); w != "" {
				out = append(out, clean(w))
			}
			if !f.known[canonPartition(p)] {
				if c := edit.ClosestPartitions(p, sib.partitions); len(c) > 0 {
					out = append(out, clean("not one of the connector's partitions"+edit.PartitionDidYouMean(c)))
				}
			}
			return out
		}}
	off := &formField{label: "Offset", ta: newTextarea(st, `{"position":0}`),
		empty: "type its offset as a JSON object",
		check: func(s string) (string, error) {
			_, null, err := edit.ParseOffset(s)
			if err != nil {
				return "", err
			}
			if null {
				return "", errNullNew
			}
			return "valid offset", nil
		},
		shape: func(s string) []string {
			o, _, _ := edit.ParseOffset(s)
			return cleanAll(edit.OffsetShapeWarnings(o, nil, sib.offsets))
		}}
	if hasRow {
		part.ta.SetValue(string(text.JSONSafe([]byte(row.Partition))))
		if !row.Deleted {
			off.ta.SetValue(string(text.JSONSafe([]byte(row.Offset))))
		}
	}
	f.fields = []*formField{part, off}
	f.help.Styles = st.Help
	f.validate()
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

func (f *editForm) validate() {
	for _, fl := range f.fields {
		fl.validate()
	}
}

func (f *editForm) valid() bool {
	f.validate()
	for _, fl := range f.fields {
		if fl.err != nil {
			return false
		}
	}
	return true
}

// request is the edit the form describes; call it only when valid.
func (f *editForm) request() (edit.Request, error) {
	req := edit.Request{Connector: f.connector, Kind: edit.KindSet, Create: f.create}
	it := edit.Item{Partition: f.partition}
	offsetText := f.fields[len(f.fields)-1].ta.Value()
	if f.newPartition {
		p, err := edit.ParsePartition(strings.TrimSpace(f.fields[0].ta.Value()))
		if err != nil {
			return req, err
		}
		it.Partition = p
	}
	o, null, err := edit.ParseOffset(strings.TrimSpace(offsetText))
	if err != nil {
		return req, err
	}
	if null {
		req.Kind = edit.KindReset
	}
	it.Offset = o
	req.Items = []edit.Item{it}
	return req, nil
}

func (f *editForm) focusCmd() tea.Cmd {
	for i, fl := range f.fields {
		if i != f.focus {
			fl.ta.Blur()
		}
	}
	fl := f.fields[f.focus]
	fl.ta.MoveToEnd()
	return fl.ta.Focus()
}

func (f *editForm) cycleFocus() tea.Cmd {
	if len(f.fields) < 2 {
		return nil
	}
	f.focus = (f.focus + 1) % len(f.fields)
	return f.focusCmd()
}

// key: tab moves between fields, enter or ctrl+s submits valid JSON, and
// enter on invalid JSON is a newline.
func (f *editForm) key(msg tea.KeyPressMsg) (tea.Cmd, *submission) {
	switch {
	case key.Matches(msg, f.km.FormNext):
		return f.cycleFocus(), nil
	case key.Matches(msg, f.km.FormSubmit) && f.valid():
		req, err := f.request()
		if err != nil { // valid() parsed the same text: cannot happen
			f.planErr = err.Error()
			return nil, nil
		}
		return nil, planRequest(req)
	case key.Matches(msg, f.km.FormSubmit) && !f.enterTypes(msg):
		return nil, nil // ctrl+s on invalid JSON: the message under the field says why
	}
	return f.update(msg), nil
}

// enterTypes reports whether the key is the focused textarea's newline.
func (f *editForm) enterTypes(msg tea.KeyPressMsg) bool {
	return key.Matches(msg, f.fields[f.focus].ta.KeyMap.InsertNewline)
}

// update gives a key, a paste or a cursor blink to the focused field and
// validates again.
func (f *editForm) update(msg tea.Msg) tea.Cmd {
	fl := f.fields[f.focus]
	var cmd tea.Cmd
	fl.ta, cmd = fl.ta.Update(msg)
	if _, ok := msg.(tea.KeyPressMsg); ok && f.planErr != "" {
		f.planErr, f.create = "", false
		f.setSize(f.width, f.height) // the fields' own heights again
	}
	f.validate()
	return cmd
}

// setSize fits the fields to a dialog of outer size w×h.
func (f *editForm) setSize(w, h int) {
	f.width, f.height = w, h
	inner := w - dialogFrameW
	lines := maxFieldLines
	if len(f.fields) > 1 {
		lines = 3
	}
	// What is not the fields: title, blank, context, blanks, labels,
	// messages, blank, keys, and the frame.
	fixed := 2 + dialogFrameH + len(f.fields)*3 + 2
	if !f.newPartition {
		fixed += 4
	}
	lines = min(lines, max((h-fixed)/len(f.fields), 1))
	for _, fl := range f.fields {
		fl.ta.SetWidth(inner)
		want := strings.Count(fl.ta.Value(), "\n") + 2
		fl.ta.SetHeight(min(max(want, 3), lines))
	}
	f.help.SetWidth(inner)
}

// view renders the form as a dialog box.
func (f *editForm) view(spinner string) string {
	inner := f.width - dialogFrameW
	st := f.st
	if f.planErr != "" {
		// The fields shrink to their text while a plan's refusal shows,
		// so its did-you-mean and what to do next are not cut.
		for _, fl := range f.fields {
			fl.ta.SetHeight(strings.Count(fl.ta.Value(), "\n") + 1)
		}
	}
	lines := []string{st.DialogTitle.Render(f.title), ""}
	if !f.newPartition {
		lines = append(lines, st.FieldLabel.Render("Source partition"))
		lines = append(lines, indentWrap(f.partitionJSON, inner, "  ", 3)...)
		label := "Current offset"
		if f.moved {
			label += " (moved while this form was open)"
		}
		lines = append(lines, st.FieldLabel.Render(label))
		cur := f.current
		if cur == "" {
			cur = "(none: deleted)"
		}
		lines = append(lines, indentWrap(cur, inner, "  ", 3)...)
	}
	for i, fl := range f.fields {
		if i > 0 || !f.newPartition {
			lines = append(lines, "")
		}
		label := st.FieldLabel.Render(fl.label)
		switch {
		case len(f.fields) > 1 && i == f.focus: // which field tab left you in, without colour too
			label = st.FieldFocus.Render("▶ " + fl.label)
		case len(f.fields) > 1:
			label = st.FieldLabel.Render("  " + fl.label)
		case i == f.focus:
			label = st.FieldFocus.Render(fl.label)
		}
		lines = append(lines, label)
		lines = append(lines, strings.Split(fl.ta.View(), "\n")...)
		switch {
		case fl.err == errEmpty:
			lines = append(lines, st.Muted.Render("  "+fl.empty))
		case fl.err != nil:
			lines = append(lines, indentWrap(st.Bad.Render("✗ "+fl.err.Error()), inner, "", 3)...)
		default:
			lines = append(lines, st.OK.Render("✓ ")+st.Muted.Render(fl.note))
		}
		for _, w := range fl.warns {
			lines = append(lines, indentWrap(st.Warn.Render("⚠ ")+w, inner, "  ", 3)...)
		}
	}
	lines = append(lines, "")
	lines = append(lines, planFooter(st, spinner, f.planning, "reading the current offsets", f.planErr, inner, f.keys(inner))...)
	return renderBox(st, f.width, f.height, lines)
}

// keys is the form's key line. Submit shows only when the JSON is valid;
// until then the line says what is missing.
func (f *editForm) keys(w int) []string {
	submit := f.km.FormSubmit
	submit.SetEnabled(f.valid())
	next := f.km.FormNext
	next.SetEnabled(len(f.fields) > 1)
	note := ""
	if !f.valid() {
		note = "fix the JSON to review the edit"
	}
	return dialogKeys(f.help, f.st, w, []key.Binding{submit, next, f.km.FormCancel}, note)
}

// planFooter ends a form: a spinner while its plan is being made, else the
// key line, under the plan's error if it failed.
func planFooter(st *Styles, spinner string, planning bool, doing, planErr string, inner int, keys []string) []string {
	switch {
	case planning:
		return []string{spinner + " planning: " + doing + "…"}
	case planErr != "":
		return append(indentWrap(st.Bad.Render("✗ "+planErr), inner, "", 4), keys...)
	}
	return keys
}
