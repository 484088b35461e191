package dialogs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"koff/edit/history"
	"koff/edit/plan"
	"koff/keymap"
	"koff/model"
	"koff/model/text"
	"koff/ui/kit"
)

// RewindForm is T on a source connector: "put it back to where it was at
// a time", koff set NAME --to-datetime T. It asks for the time, shows what
// it read, and what to do with partitions the time cannot place; the plan
// and its confirmation are those of every edit, with the commit each
// partition takes.
type RewindForm struct {
	km        *keymap.KeyMap
	st        *kit.Styles
	connector string
	clock     func() time.Time // the dashboard's: relative times count back from it
	Input     textinput.Model
	ifNewer   int // index into ifNewerChoices
	At        time.Time
	Err       error
	formState
	help          help.Model
	width, height int
}

// TimeLabel names a time field and the rule it reads by: the one rule of
// every time koff reads (model.ParseTime).
const TimeLabel = "Time (UTC unless a zone is given; or now-2h, -30m, PT1H)"

// ifNewerChoices are --if-newer's answers: a partition first committed
// after the time, or whose retained history begins after it.
var ifNewerChoices = []struct {
	v           plan.IfNewer
	label, hint string
}{
	{plan.IfNewerLeave, "leave alone", "list them, change nothing"},
	{plan.IfNewerReset, "reset", "delete their offsets (--if-newer reset)"},
	{plan.IfNewerOldest, "oldest", "their oldest retained commit (--if-newer oldest)"},
}

// NewRewindForm opens the dialog with a time an hour before now, in the
// form koff shows times (UTC).
func NewRewindForm(km *keymap.KeyMap, st *kit.Styles, connector string, clock func() time.Time) *RewindForm {
	f := &RewindForm{km: km, st: st, connector: connector, clock: clock, help: help.New()}
	f.help.Styles = st.Help
	f.Input = textinput.New()
	f.Input.Prompt = "› "
	f.Input.Placeholder = "2026-11-29 02:00:00 UTC, or -30m"
	f.Input.SetStyles(st.Input)
	f.Input.SetValue(clock().Add(-time.Hour).Truncate(time.Minute).UTC().Format("2006-01-02 15:04 MST"))
	f.Input.CursorEnd()
	f.Validate()
	return f
}

func (f *RewindForm) FocusCmd() tea.Cmd { return f.Input.Focus() }

// Validate reads the time as the CLI's --to-datetime does (model.ParseTime:
// no zone is UTC, as koff shows times), in the dashboard's zone.
func (f *RewindForm) Validate() {
	v := strings.TrimSpace(f.Input.Value())
	f.At, f.Err = time.Time{}, nil
	if v == "" {
		f.Err = errEmpty
		return
	}
	now := f.clock()
	f.At, f.Err = model.ParseTime(v, now, now.Location())
}

func (f *RewindForm) Key(msg tea.KeyPressMsg) (tea.Cmd, *Submission) {
	switch {
	case key.Matches(msg, f.km.IfNewer):
		step := 1
		if msg.String() == "shift+tab" {
			step = len(ifNewerChoices) - 1
		}
		f.ifNewer = (f.ifNewer + step) % len(ifNewerChoices)
		return nil, nil
	case key.Matches(msg, f.km.FormSubmit):
		if f.Validate(); f.Err != nil {
			return nil, nil // the line under the input says why
		}
		return nil, RewindSubmission(f.connector, f.At, strings.TrimSpace(f.Input.Value()), ifNewerChoices[f.ifNewer].v, f.clock)
	}
	cmd := f.typeInto(&f.Input, msg)
	f.Validate()
	return cmd, nil
}

// RewindSubmission plans the rewind through the same request the CLI
// builds; its plan's choices (which commit each partition takes) become
// the confirmation's Detail. given is the time as typed, for the audit log.
func RewindSubmission(connector string, at time.Time, given string, ifNewer plan.IfNewer, clock func() time.Time) *Submission {
	sub := &Submission{Label: fmt.Sprintf("planning a rewind of %s: reading the offsets topic's history…", connector)}
	sub.Plan = func(ctx context.Context, ed kit.Editor) (*plan.Plan, error) {
		req, err := plan.NewRewindRequest(connector, at, "", ifNewer)
		if err != nil {
			return nil, err
		}
		req.Given = given
		rw, err := ed.PlanRewind(ctx, req)
		if errors.Is(err, history.ErrNotSourceRewind) {
			return nil, fmt.Errorf("%s has no source offsets to rewind: a sink's group is set from its topics' record times (e on its partitions, to timestamp)", connector)
		}
		if err != nil {
			return nil, err
		}
		sub.Note, sub.Detail = RewindText(rw, clock())
		if rw.Plan == nil {
			// Names every partition left alone (NothingText): a small
			// dialog still shows which.
			return nil, fmt.Errorf("nothing to change: %s", rw.NothingText())
		}
		return rw.Plan, nil
	}
	return sub
}

// RewindText is the rewind's plan as koff set --to-datetime prints it: the
// time (in UTC and now's zone), then each partition's commit, made safe to
// draw.
func RewindText(rw *history.Rewind, now time.Time) (string, []string) {
	value := func(s string) string { return kit.CleanBlock(string(text.JSONSafe([]byte(s))), kit.DetailMax) }
	head := "rewind to " + model.TimeEcho(rw.At, now, now.Location())
	lines := []string{"each partition's newest commit at or before it:"}
	for _, c := range rw.Choices {
		lines = append(lines, kit.CleanJSON(c.Partition)+"  "+c.Describe(value, kit.Clean))
	}
	if left := rw.LeftText(); left != "" {
		lines = append(lines, kit.Clean(left))
	}
	return head, lines
}

func (f *RewindForm) Update(msg tea.Msg) tea.Cmd {
	cmd := f.typeInto(&f.Input, msg)
	f.Validate()
	return cmd
}

func (f *RewindForm) SetSize(w, h int) {
	f.width, f.height = w, h
	sizeDialogInput(&f.Input, &f.help, w)
}

func (f *RewindForm) View(spinner string) string {
	inner := f.width - kit.DialogFrameW
	st := f.st
	title := []string{st.DialogTitle.Render("Rewind to a time · " + kit.Clean(f.connector))}
	intro := kit.IndentWrap(st.Muted.Render("Each source partition back to its newest commit at or before the time, from the offsets topic's retained history."), inner, "", 3)
	at := []string{st.FieldFocus.Render(TimeLabel), f.Input.View()}
	switch {
	case f.Err == errEmpty:
		at = append(at, st.Muted.Render("  type the time"))
	case f.Err != nil:
		at = append(at, kit.IndentWrap(st.Bad.Render("✗ "+f.Err.Error()), inner, "", 0)...)
	default:
		now := f.clock()
		at = append(at, kit.IndentWrap(st.OK.Render("✓ ")+st.Muted.Render("read as "+model.TimeEcho(f.At, now, now.Location())), inner, "", 3)...)
	}
	// The choices are whole at every width: each wraps under its label.
	choices := kit.IndentWrap(st.FieldFocus.Render("Partitions first committed after it, or whose history begins after it"), inner, "", 0)
	for i, c := range ifNewerChoices {
		mark, label := "○ ", st.FieldLabel.Render(c.label)
		if i == f.ifNewer {
			mark, label = st.FieldFocus.Render("● "), st.FieldFocus.Render(c.label)
		}
		lines := kit.IndentWrap(mark+label+st.Muted.Render("  "+c.hint), inner, "    ", 0)
		lines[0] = "  " + strings.TrimPrefix(lines[0], "    ")
		choices = append(choices, lines...)
	}
	foot := planFooter(st, spinner, f.Planning, "reading the offsets topic's history", f.PlanErr, inner, f.keys(inner))
	// On a short screen the introduction goes first, then the blank lines
	// between the parts: the time, every choice and the keys stay whole.
	room := f.height - kit.DialogFrameH
	parts := [][]string{title, intro, at, choices, foot}
	size := func(gaps bool) int {
		n := 0
		for _, p := range parts {
			n += len(p)
		}
		if gaps {
			n += len(parts) - 1
		}
		return n
	}
	if size(true) > room {
		parts = [][]string{title, at, choices, foot}
	}
	gaps := size(true) <= room
	var lines []string
	for i, p := range parts {
		if i > 0 && gaps {
			lines = append(lines, "")
		}
		lines = append(lines, p...)
	}
	return kit.RenderBox(st, f.width, f.height, lines)
}

func (f *RewindForm) keys(w int) []string {
	submit := f.km.FormSubmit
	submit.SetEnabled(f.Err == nil)
	note := ""
	if f.Err != nil {
		note = "fix the time to review the rewind"
	}
	return kit.DialogKeys(f.help, f.st, w, []key.Binding{submit, kit.Short(f.km.IfNewer, "newer partitions"), f.km.FormCancel}, note)
}
