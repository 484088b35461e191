package dialogs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"koff/edit/plan"
	"koff/keymap"
	"koff/model"
	"koff/ui/kit"
)

// sinkStrategy is one way the sink offsets form chooses new committed
// offsets; input names the value it needs ("" for none).
type sinkStrategy struct {
	kind        plan.SinkKind
	label, hint string
	input       string
	placeholder string
}

var sinkStrategies = []sinkStrategy{
	{kind: plan.SinkToOffset, label: "to offset", hint: "the next offset the sink reads", input: "Offset", placeholder: "12345"},
	{kind: plan.SinkToEarliest, label: "to earliest", hint: "the log start: read everything kept again"},
	{kind: plan.SinkToLatest, label: "to latest", hint: "the log end: skip everything not read yet"},
	{kind: plan.SinkToTimestamp, label: "to timestamp", hint: "the first record at or after a time",
		input: TimeLabel, placeholder: "2025-11-29 18:00:00 UTC, or -30m"},
	{kind: plan.SinkShiftBy, label: "shift by", hint: "± records from the committed offset", input: "Shift (±N)", placeholder: "-1000"},
}

// sinkForm is e on the sink screen: a strategy, the value it needs (an
// offset, a time, a shift), and whether it applies to the selected
// topic-partition or all of them. The value is checked as it is typed.
type SinkForm struct {
	km        *keymap.KeyMap
	st        *kit.Styles
	connector string
	group     string
	sel       model.SinkPartitionRow
	hasSel    bool
	rows      int              // topic-partitions the group has
	clock     func() time.Time // the dashboard's: relative times count back from it
	at        time.Time        // the time read, for to timestamp
	choice    int
	all       bool
	Input     textinput.Model
	values    []string // what was typed for each strategy
	note      string
	warn      bool // the note is a warning: the offset is outside the log
	Err       error
	formState
	help          help.Model
	width, height int
}

func NewSinkForm(km *keymap.KeyMap, st *kit.Styles, connector, group string, sel model.SinkPartitionRow, hasSel bool, rows int, clock func() time.Time) *SinkForm {
	f := &SinkForm{km: km, st: st, connector: connector, group: group, sel: sel, hasSel: hasSel, rows: rows,
		clock: clock, all: !hasSel, values: make([]string, len(sinkStrategies)), help: help.New()}
	f.help.Styles = st.Help
	f.Input = textinput.New()
	f.Input.Prompt = "› "
	f.Input.SetStyles(st.Input)
	if hasSel && sel.Committed >= 0 {
		f.values[0] = strconv.FormatInt(sel.Committed, 10)
	}
	f.load()
	return f
}

func (f *SinkForm) strategy() sinkStrategy { return sinkStrategies[f.choice] }

// load puts the chosen strategy's value in the input.
func (f *SinkForm) load() {
	s := f.strategy()
	f.Input.Placeholder = s.placeholder
	f.Input.SetValue(f.values[f.choice])
	f.Input.CursorEnd()
	f.Validate()
}

func (f *SinkForm) FocusCmd() tea.Cmd { return f.Input.Focus() }

// validate checks the value for the strategy and says what it does to the
// selected topic-partition.
func (f *SinkForm) Validate() {
	f.note, f.warn, f.Err = "", false, nil
	s := f.strategy()
	v := strings.TrimSpace(f.Input.Value())
	if s.input != "" && v == "" {
		f.Err = errEmpty
		return
	}
	after := int64(-2) // the selected partition's new offset, when known here
	switch s.kind {
	case plan.SinkToOffset:
		n, err := parseCount(v)
		if err != nil || n < 0 {
			f.Err = fmt.Errorf("%q is not an offset: a whole number ≥ 0", v)
			return
		}
		after = n
	case plan.SinkToEarliest:
		after = f.sel.Start
	case plan.SinkToLatest:
		after = f.sel.End
	case plan.SinkToTimestamp:
		now := f.clock()
		t, err := model.ParseTime(v, now, now.Location())
		if err != nil {
			f.Err = err
			return
		}
		f.at = t
		f.note = "read as " + model.TimeEcho(t, now, now.Location()) + ": each partition's first record at or after it"
		return
	case plan.SinkShiftBy:
		n, err := parseCount(v)
		if err != nil {
			f.Err = fmt.Errorf("%q is not a shift: a whole number like -1000 or +500", v)
			return
		}
		if n == 0 {
			f.Err = errors.New("a shift by 0 changes nothing")
			return
		}
		if f.sel.Committed >= 0 {
			after = f.sel.Committed + n
		}
	}
	if !f.hasSel || after < -1 {
		return
	}
	f.note, f.warn = f.outcome(after)
}

// outcome is what the strategy does to the selected topic-partition:
// committed old → new and the lag after, and whether the new offset is
// outside the log.
func (f *SinkForm) outcome(after int64) (string, bool) {
	p := f.sel
	c := plan.SinkChange{TopicPartition: p.TopicPartition, Before: p.Committed, After: after, Start: p.Start, End: p.End}
	c.ClampToLog() // as kafka-consumer-groups and the plan do
	s := fmt.Sprintf("%s: %s → %s · lag after %s", p.TopicPartition, kit.CommittedCell(p.Committed), kit.Count(c.After), kit.Count(c.Lag()))
	warn := true
	switch {
	case after < p.Start:
		s += " · " + kit.Count(after) + " is below the log start: clamped"
	case after > p.End:
		s += " · " + kit.Count(after) + " is above the log end: clamped"
	default:
		warn = false
	}
	if f.all {
		s += " (each partition alike)"
	}
	return s, warn
}

// parseCount reads a whole number, with an optional sign and thousands
// separators as the tables show them.
func parseCount(s string) (int64, error) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, ",", ""), "_", "")
	return strconv.ParseInt(strings.TrimPrefix(s, "+"), 10, 64)
}

func (f *SinkForm) Valid() bool {
	f.Validate()
	return f.Err == nil
}

// request is the edit the form describes, and how the confirmation should
// name the strategy; call it only when valid.
func (f *SinkForm) request() (plan.SinkRequest, string) {
	s := f.strategy()
	v := strings.TrimSpace(f.Input.Value())
	req := plan.SinkRequest{Connector: f.connector, Kind: plan.KindSet, Strategy: plan.SinkStrategy{Kind: s.kind}}
	note := s.label
	switch s.kind {
	case plan.SinkToOffset:
		req.Strategy.Offset, _ = parseCount(v)
		note += " " + kit.Count(req.Strategy.Offset)
	case plan.SinkToTimestamp:
		now := f.clock()
		req.Strategy.Time = f.at
		note += " " + model.TimeEcho(f.at, now, now.Location())
	case plan.SinkShiftBy:
		req.Strategy.Shift, _ = parseCount(v)
		note += fmt.Sprintf(" %+d", req.Strategy.Shift)
	}
	if f.all {
		note += " · all " + kit.Plural(f.rows, "partition", "partitions")
	} else {
		req.Partitions = []model.TopicPartition{f.sel.TopicPartition}
		note += " · " + f.sel.TopicPartition.String()
	}
	return req, note
}

// key: ↑/↓ choose the strategy, tab the scope, enter submits a valid form;
// other keys type.
func (f *SinkForm) Key(msg tea.KeyPressMsg) (tea.Cmd, *Submission) {
	switch {
	case key.Matches(msg, f.km.StrategyUp, f.km.StrategyDown):
		f.values[f.choice] = f.Input.Value()
		step := 1
		if key.Matches(msg, f.km.StrategyUp) {
			step = len(sinkStrategies) - 1
		}
		f.choice = (f.choice + step) % len(sinkStrategies)
		f.load()
		return nil, nil
	case key.Matches(msg, f.km.Scope):
		if f.hasSel {
			f.all = !f.all
			f.Validate()
		}
		return nil, nil
	case key.Matches(msg, f.km.FormSubmit):
		if !f.Valid() {
			return nil, nil // the line under the input says why
		}
		req, note := f.request()
		return nil, PlanSinkRequest(req, note)
	}
	return f.Update(msg), nil
}

func (f *SinkForm) Update(msg tea.Msg) tea.Cmd {
	if f.strategy().input == "" {
		return nil // nothing to type for earliest or latest
	}
	cmd := f.typeInto(&f.Input, msg)
	f.Validate()
	return cmd
}

func (f *SinkForm) SetSize(w, h int) {
	f.width, f.height = w, h
	sizeDialogInput(&f.Input, &f.help, w)
}

func (f *SinkForm) View(spinner string) string {
	inner := f.width - kit.DialogFrameW
	st := f.st
	lines := []string{st.DialogTitle.Render("Set committed offsets · " + f.connector), ""}
	ctx := st.Label.Render("Group ") + f.group
	if f.hasSel {
		p := f.sel
		ctx += st.Muted.Render(fmt.Sprintf(" · %s: committed %s · log %s–%s · lag %s",
			p.TopicPartition, kit.CommittedCell(p.Committed), kit.Count(p.Start), kit.Count(p.End), kit.Count(p.Lag)))
	}
	lines = append(lines, kit.IndentWrap(ctx, inner, "", 2)...)
	lines = append(lines, "", st.FieldFocus.Render("Strategy"))
	labelW := 0
	for _, s := range sinkStrategies {
		labelW = max(labelW, len(s.label))
	}
	for i, s := range sinkStrategies {
		mark, label := "  ", st.FieldLabel.Render(fmt.Sprintf("%-*s", labelW, s.label))
		if i == f.choice {
			mark, label = st.FieldFocus.Render("▶ "), st.FieldFocus.Render(fmt.Sprintf("%-*s", labelW, s.label))
		}
		lines = append(lines, "  "+mark+label+st.Muted.Render("  "+s.hint))
	}
	lines = append(lines, "")
	s := f.strategy()
	if s.input != "" {
		lines = append(lines, st.FieldFocus.Render(s.input), f.Input.View())
	}
	switch {
	case f.Err == errEmpty:
		lines = append(lines, st.Muted.Render("  type the "+strings.ToLower(strings.Fields(s.input)[0])))
	case f.Err != nil:
		lines = append(lines, kit.IndentWrap(st.Bad.Render("✗ "+f.Err.Error()), inner, "", 2)...)
	case f.warn:
		lines = append(lines, kit.IndentWrap(st.Warn.Render("⚠ "+f.note), inner, "", 2)...)
	case f.note != "":
		lines = append(lines, kit.IndentWrap(st.OK.Render("✓ ")+st.Muted.Render(f.note), inner, "", 2)...)
	default:
		lines = append(lines, st.OK.Render("✓ ")+st.Muted.Render(s.hint))
	}
	lines = append(lines, "", f.scopeLine())
	lines = append(lines, "")
	lines = append(lines, planFooter(st, spinner, f.Planning, "reading the group's offsets", f.PlanErr, inner, f.keys(inner))...)
	return kit.RenderBox(st, f.width, f.height, lines)
}

// scopeLine says which topic-partitions the edit applies to, as a pair of
// radio buttons with a word, so it reads without colour.
func (f *SinkForm) scopeLine() string {
	st := f.st
	radio := func(on bool, text string) string {
		if on {
			return st.FieldFocus.Render("● " + text)
		}
		return st.FieldLabel.Render("○ " + text)
	}
	all := "all " + kit.Plural(f.rows, "partition", "partitions")
	if !f.hasSel {
		return st.FieldFocus.Render("Apply to ") + radio(true, all)
	}
	return st.FieldFocus.Render("Apply to ") + radio(!f.all, f.sel.TopicPartition.String()+" (selected)") + "   " + radio(f.all, all)
}

// keys is the form's key line; review shows only when the value is valid.
func (f *SinkForm) keys(w int) []string {
	submit := f.km.FormSubmit
	submit.SetEnabled(f.Valid())
	scope := kit.Short(f.km.Scope, "selected/all")
	scope.SetEnabled(f.hasSel)
	updown := f.km.StrategyDown
	updown.SetHelp("↑/↓", "strategy")
	note := ""
	if !f.Valid() {
		note = "fix the value to review the edit"
	}
	return kit.DialogKeys(f.help, f.st, w, []key.Binding{submit, updown, scope, f.km.FormCancel}, note)
}
