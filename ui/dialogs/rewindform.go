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

	"koff/edit"
	"koff/keymap"
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
	now       time.Time
	Input     textinput.Model
	ifNewer   int // index into ifNewerChoices
	At        time.Time
	Err       error
	formState
	help          help.Model
	width, height int
}

// ifNewerChoices are --if-newer's answers: a partition first committed
// after the time, or whose retained history begins after it.
var ifNewerChoices = []struct {
	v           edit.IfNewer
	label, hint string
}{
	{edit.IfNewerLeave, "leave alone", "list them, change nothing"},
	{edit.IfNewerReset, "reset", "delete their offsets (--if-newer reset)"},
	{edit.IfNewerOldest, "oldest", "their oldest retained commit (--if-newer oldest)"},
}

// NewRewindForm opens the dialog with a time an hour before now.
func NewRewindForm(km *keymap.KeyMap, st *kit.Styles, connector string, now time.Time) *RewindForm {
	f := &RewindForm{km: km, st: st, connector: connector, now: now, help: help.New()}
	f.help.Styles = st.Help
	f.Input = textinput.New()
	f.Input.Prompt = "› "
	f.Input.Placeholder = "2026-11-29T02:00:00Z"
	f.Input.SetStyles(st.Input)
	f.Input.SetValue(now.Add(-time.Hour).Truncate(time.Minute).Format(time.RFC3339))
	f.Input.CursorEnd()
	f.Validate()
	return f
}

func (f *RewindForm) FocusCmd() tea.Cmd { return f.Input.Focus() }

// Validate reads the time as the CLI's --to-datetime does.
func (f *RewindForm) Validate() {
	v := strings.TrimSpace(f.Input.Value())
	f.At, f.Err = time.Time{}, nil
	if v == "" {
		f.Err = errEmpty
		return
	}
	f.At, f.Err = edit.ParseTime(v)
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
		return nil, RewindSubmission(f.connector, f.At, strings.TrimSpace(f.Input.Value()), ifNewerChoices[f.ifNewer].v)
	}
	cmd := f.typeInto(&f.Input, msg)
	f.Validate()
	return cmd, nil
}

// RewindSubmission plans the rewind through the same request the CLI
// builds; its plan's choices (which commit each partition takes) become
// the confirmation's Detail. given is the time as typed, for the audit log.
func RewindSubmission(connector string, at time.Time, given string, ifNewer edit.IfNewer) *Submission {
	sub := &Submission{Label: fmt.Sprintf("planning a rewind of %s: reading the offsets topic's history…", connector)}
	sub.Plan = func(ctx context.Context, ed kit.Editor) (*edit.Plan, error) {
		req, err := edit.NewRewindRequest(connector, at, "", ifNewer)
		if err != nil {
			return nil, err
		}
		req.Given = given
		rw, err := ed.PlanRewind(ctx, req)
		if errors.Is(err, edit.ErrNotSourceRewind) {
			return nil, fmt.Errorf("%s has no source offsets to rewind: a sink's group is set from its topics' record times (e on its partitions, to timestamp)", connector)
		}
		if err != nil {
			return nil, err
		}
		sub.Note, sub.Detail = RewindText(rw)
		if rw.Plan == nil {
			return nil, fmt.Errorf("nothing to change: %s", rw.NothingText())
		}
		return rw.Plan, nil
	}
	return sub
}

// RewindText is the rewind's plan as koff set --to-datetime prints it: the
// time, then each partition's commit, made safe to draw.
func RewindText(rw *edit.Rewind) (string, []string) {
	value := func(s string) string { return kit.CleanBlock(string(text.JSONSafe([]byte(s))), kit.DetailMax) }
	head := "rewind to " + rw.At.UTC().Format(time.RFC3339Nano)
	lines := []string{"each partition's newest commit at or before it:"}
	for _, c := range rw.Choices {
		lines = append(lines, kit.CleanJSON(c.Partition)+"  "+c.Describe(value, kit.Clean))
	}
	if left := rw.LeftText(); left != "" {
		lines = append(lines, left)
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
	lines := []string{st.DialogTitle.Render("Rewind to a time · " + kit.Clean(f.connector)), ""}
	lines = append(lines, kit.IndentWrap(st.Muted.Render("Each source partition back to its newest commit at or before the time, from the offsets topic's retained history."), inner, "", 3)...)
	lines = append(lines, "", st.FieldFocus.Render("Time (RFC 3339, or 2006-01-02 15:04:05 local)"), f.Input.View())
	switch {
	case f.Err == errEmpty:
		lines = append(lines, st.Muted.Render("  type the time"))
	case f.Err != nil:
		lines = append(lines, kit.IndentWrap(st.Bad.Render("✗ "+f.Err.Error()), inner, "", 2)...)
	default:
		read := fmt.Sprintf("%s · %s (%s)", f.At.UTC().Format(time.RFC3339Nano), f.At.In(f.now.Location()).Format("2006-01-02 15:04:05 MST"), kit.Age(f.now, f.At))
		lines = append(lines, kit.IndentWrap(st.OK.Render("✓ ")+st.Muted.Render("read as "+read), inner, "", 3)...)
	}
	lines = append(lines, "", st.FieldFocus.Render("Partitions first committed after it, or whose history begins after it"))
	for i, c := range ifNewerChoices {
		mark, label := "○ ", st.FieldLabel.Render(c.label)
		if i == f.ifNewer {
			mark, label = st.FieldFocus.Render("● "), st.FieldFocus.Render(c.label)
		}
		lines = append(lines, kit.IndentWrap(mark+label+st.Muted.Render("  "+c.hint), inner, "  ", 2)...)
	}
	lines = append(lines, "")
	lines = append(lines, planFooter(st, spinner, f.Planning, "reading the offsets topic's history", f.PlanErr, inner, f.keys(inner))...)
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
