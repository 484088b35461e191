package dialogs

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"koff/edit/apply"
	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/undo"
	"koff/keymap"
	"koff/model"
	"koff/ui/kit"
)

// confirmDialog shows a planned edit before anything is written: what
// changes (old → new for every source partition), where (Connect REST or
// the offsets topic and partition), the connector's state, and the
// equivalent command line. enter applies it, esc cancels.
//
// A connector that REST says is running cannot be edited (Check refuses),
// so then the dialog offers stop → apply → resume instead of enter, and a
// reset of a whole connector waits until its name is typed.
type ConfirmDialog struct {
	km    *keymap.KeyMap
	st    *kit.Styles
	Plan  *plan.Plan
	shown *plan.Plan // plan as drawn: every outside string cleaned
	undo  *undo.Undo // an undo: the edit it undoes, and what is in its way
	made  time.Time  // when the dialog opened, for the undo's age
	Note  string     // how the offsets were chosen (a sink strategy)
	// Detail is what the note found, a line each: a rewind's commits.
	Detail []string

	name     textinput.Model // reset-all: the connector's name, typed
	needName bool

	vp            viewport.Model
	warnAt        []int // the body's lines that start a warning
	help          help.Model
	Width, height int // the box's outer width and its most rows

	// Once applying, keys wait (but ctrl+c) and steps report progress.
	Running bool
	Flow    bool // stop → apply → resume
	steps   []flowStep
	Result  *apply.Result // the apply's, while resuming
}

type stepState int

const (
	stepPending stepState = iota
	stepDoing
	stepDone
	stepFailed
)

type flowStep struct {
	what  string
	state stepState
}

// Step indexes of the stop → apply → resume flow.
const (
	StepStop = iota
	StepApply
	stepResume
)

func NewConfirmDialog(km *keymap.KeyMap, st *kit.Styles, p *plan.Plan, undo *undo.Undo, now time.Time) *ConfirmDialog {
	d := &ConfirmDialog{km: km, st: st, Plan: p, shown: shownPlan(p), undo: undo, made: now, vp: viewport.New(), help: help.New()}
	d.help.Styles = st.Help
	d.vp.KeyMap = viewport.KeyMap{} // scrolled through the dialog's own bindings
	if p.Kind == plan.KindResetAll {
		d.needName = true
		d.name = textinput.New()
		d.name.Prompt = "› "
		// No placeholder: without colour the name would look typed, and
		// the line above says what to type.
		d.name.SetStyles(st.Input)
		d.name.Focus()
	}
	return d
}

// needsStop: REST says the connector is not STOPPED (or its tasks have not
// gone yet), so Connect and Check refuse a plain apply.
func (d *ConfirmDialog) needsStop() bool {
	if d.shown.Kind == plan.KindDeleteStray {
		return false // the task never reads nor writes that key (Check agrees)
	}
	return d.shown.State != "" && (d.shown.State != "STOPPED" || d.shown.Tasks > 0)
}

func (d *ConfirmDialog) nameOK() bool {
	return !d.needName || d.name.Value() == d.Plan.Connector
}

func (d *ConfirmDialog) CanApply() bool { return !d.Running && !d.needsStop() && d.nameOK() }
func (d *ConfirmDialog) CanFlow() bool  { return !d.Running && d.needsStop() && d.nameOK() }

// start marks the dialog busy with a plain apply or the stop → apply →
// resume flow.
func (d *ConfirmDialog) Start(flow bool) {
	d.Running, d.Flow = true, flow
	name := d.shown.Connector
	if flow {
		d.steps = []flowStep{
			{what: "stop " + name + " and wait for its tasks to go", state: stepDoing},
			{what: "apply the edit and read it back"},
			{what: "resume " + name},
		}
	} else {
		d.steps = []flowStep{{what: "apply the edit and read it back", state: stepDoing}}
	}
	if d.needName {
		d.name.Blur()
	}
}

func (d *ConfirmDialog) Done(i int) {
	d.steps[i].state = stepDone
	if i+1 < len(d.steps) {
		d.steps[i+1].state = stepDoing
	}
}

func (d *ConfirmDialog) Fail(i int) { d.steps[i].state = stepFailed }

// update scrolls the body, or types into the name prompt.
func (d *ConfirmDialog) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok && scrollBody(d.km, &d.vp, k) {
		return nil
	}
	if !d.needName || d.Running {
		return nil
	}
	var cmd tea.Cmd
	d.name, cmd = d.name.Update(msg)
	return cmd
}

// setSize fits the dialog to outer width w and at most h rows.
func (d *ConfirmDialog) SetSize(w, h int) {
	d.Width, d.height = w, h
	inner := w - kit.DialogFrameW
	d.help.SetWidth(inner)
	d.name.SetWidth(max(inner-4, 4))
	d.vp.SetWidth(inner)
	content := d.Content(inner)
	d.warnAt = d.warnAt[:0]
	for i, l := range content {
		if strings.HasPrefix(strings.TrimLeft(ansi.Strip(l), " "), "⚠") {
			d.warnAt = append(d.warnAt, i)
		}
	}
	d.vp.SetContentLines(content)
}

// warningsOutOfView counts the body's warnings scrolled out of sight.
func (d *ConfirmDialog) warningsOutOfView() int {
	n := 0
	for _, i := range d.warnAt {
		if i < d.vp.YOffset() || i >= d.vp.YOffset()+d.vp.Height() {
			n++
		}
	}
	return n
}

// view renders the box; spinner is the root's spinner frame.
func (d *ConfirmDialog) View(spinner string) string {
	inner := d.Width - kit.DialogFrameW
	// Title, a blank line, the body, a blank line, the footer: the body
	// gets what the rest leaves.
	// The footer depends on the body's height (does it scroll, is a
	// warning out of view) and the other way round: a few rounds settle.
	foot := d.footer(inner, spinner)
	for range 3 {
		h := max(min(d.vp.TotalLineCount(), d.height-kit.DialogFrameH-3-len(foot)), 1)
		if h == d.vp.Height() {
			break
		}
		d.vp.SetHeight(h)
		foot = d.footer(inner, spinner)
	}
	lines := []string{d.titleLine(inner), ""}
	lines = append(lines, strings.Split(d.vp.View(), "\n")...)
	lines = append(lines, "")
	lines = append(lines, foot...)
	return kit.RenderBox(d.st, d.Width, d.height, lines)
}

func (d *ConfirmDialog) titleLine(w int) string {
	title := d.st.DialogTitle.Render(kindTitle(d.shown) + " · " + d.shown.Connector)
	if rw := d.shown.Request.Rewind; rw != nil {
		// The rewind's time is what the operator checks first.
		title = d.st.DialogTitle.Render(fmt.Sprintf("Rewind of %s to %s", kit.Clean(d.shown.Connector), rw.AtText()))
	}
	total := d.vp.TotalLineCount()
	if total <= d.vp.Height() {
		return title
	}
	first := d.vp.YOffset() + 1
	last := min(d.vp.YOffset()+d.vp.Height(), total)
	where := fmt.Sprintf("lines %d–%d of %d", first, last, total)
	if d.shown.Request.Rewind != nil {
		// A rewind's time is cut last: the place in the text gives way.
		for _, w2 := range []string{where, fmt.Sprintf("%d–%d/%d", first, last, total), ""} {
			where = w2
			if ansi.StringWidth(title)+2+ansi.StringWidth(where) <= w {
				break
			}
		}
		if where == "" {
			return kit.Spread(title, "", w)
		}
	}
	return kit.Spread(title, d.st.Muted.Render(where), w)
}

// kindTitle names what the edit does, in the words of its kind.
func kindTitle(p *plan.Plan) string {
	n := len(p.Changes)
	offsets := "offset"
	if n != 1 {
		offsets = fmt.Sprintf("%d offsets", n)
	}
	switch p.Kind {
	case plan.KindSet:
		return "Set " + offsets
	case plan.KindReset:
		return "Reset " + offsets
	case plan.KindResetAll:
		return fmt.Sprintf("Reset ALL offsets (%d)", n)
	case plan.KindUndo:
		return "Undo the last edit"
	case plan.KindImport:
		return "Import " + offsets
	case plan.KindRewind:
		return "Rewind " + offsets
	case plan.KindCopy:
		return fmt.Sprintf("Copy %s from %s", offsets, p.From)
	case plan.KindDeleteStray:
		return "Delete a stray copy"
	}
	return string(p.Kind)
}

// content is the scrolling body: facts, then every change, then the
// command line.
func (d *ConfirmDialog) Content(w int) []string {
	p, st := d.shown, d.st
	var out []string
	pad := strings.Repeat(" ", kit.LabelW)
	fact := func(label, value string) {
		out = append(out, st.Label.Render(fmt.Sprintf("%-*s", kit.LabelW, label))+value)
	}
	more := func(text string, maxLines int) {
		out = append(out, kit.IndentWrap(text, w, pad, maxLines)...)
	}

	sink := isSinkPlan(p)
	what := kit.Plural(len(p.Changes), "source partition", "source partitions")
	if sink {
		what = kit.Plural(len(p.Changes), "topic-partition", "topic-partitions")
	}
	kind := fmt.Sprintf("%s · %s", p.Kind, what)
	if p.Kind == plan.KindCopy {
		kind += " from " + p.From
	}
	fact("Kind", kind)
	if d.Note != "" {
		fact("Strategy", d.Note)
	}
	for _, l := range d.Detail { // times and values whole: wrapped at spaces only
		out = append(out, kit.WrapAtSpaces(l, w, pad)...)
	}
	if p.State == "" {
		// What the config topic says, or that koff cannot know.
		mark := st.Warn.Render("? ")
		if p.Target == model.TargetStopped {
			mark = ""
		}
		fact("State", mark+kit.Clean(p.StateText()))
	} else {
		state := st.StateStyle(p.State).Render(kit.StateText(p.State))
		fact("State", state+st.Muted.Render(" · "+kit.Plural(p.Tasks, "task", "tasks")))
	}
	if p.Watch > 0 {
		// Not STOPPED by Connect's word (the State above says what koff
		// knows): a task may still commit over the edit.
		ls := kit.IndentWrap(st.Warn.Render("watch "+p.WatchFor())+" after the read-back (its flush interval: "+p.WatchIntervalText()+")", w, pad, 0)
		ls[0] = st.Label.Render(fmt.Sprintf("%-*s", kit.LabelW, "Verify")) + strings.TrimPrefix(ls[0], pad)
		out = append(out, ls...)
	}
	if sink {
		members := st.Muted.Render(" · no active members")
		switch {
		case p.GroupMembers > 0 && p.Path == plan.PathGroup: // Kafka refuses the commit: the warning says so
			members = st.Warn.Render(" · " + kit.Plural(p.GroupMembers, "active member", "active members"))
		case p.GroupMembers > 0:
			members = st.Muted.Render(" · " + kit.Plural(p.GroupMembers, "active member", "active members"))
		}
		fact("Group", p.Group+members)
	}
	for _, w := range generalWarnings(p) {
		more(st.Warn.Render("⚠ ")+w, 0)
	}
	switch p.Path {
	case plan.PathREST:
		fact("Path", "Connect REST")
	case plan.PathGroup:
		fact("Path", "group "+p.Group+st.Muted.Render(" · a direct offset commit"))
	default:
		fact("Path", "offsets topic "+p.Topic)
	}
	if p.PathReason != "" {
		more(st.Muted.Render(p.PathReason), 0)
	}
	if d.undo != nil {
		u := d.undo.Edit
		// The audit log is a file: its words are cleaned like any other.
		by := "by " + kit.Clean(orUnknown(u.User))
		if u.Kind == plan.KindRewind && u.Rewind != nil {
			// A rewind's time on a line of its own: never cut.
			fact("Undoes", fmt.Sprintf("%s of %s", kit.Clean(string(u.Kind)), kit.Clean(u.Connector)))
			more(fmt.Sprintf("to %s %s", kit.Clean(u.Rewind.AtText()), by), 0)
		} else {
			fact("Undoes", fmt.Sprintf("%s %s", kit.Clean(u.What()), by))
		}
		more(fmt.Sprintf("at %s (%s) · %s", model.TimeText(u.Time), kit.Age(d.made, u.Time), kit.Clean(u.Result)), 0)
		more(st.Muted.Render(fmt.Sprintf("edit %s · cluster %s", kit.Clean(audit.Edit{Start: u}.ID()), kit.Clean(orUnknown(u.Cluster)))), 0)
		d.undoWarnings(more)
	}

	if sink {
		out = append(out, "", st.Section.Render("Changes")+st.Muted.Render("  committed offset old → new, and the lag after"))
		out = append(out, d.sinkChanges(w)...)
	} else {
		out = append(out, "", st.Section.Render("Changes")+st.Muted.Render("  old → new, and the record each writes"))
		out = append(out, d.sourceChanges(w)...)
	}

	out = append(out, "", st.Section.Render("Command")+st.Muted.Render("  the same edit from a shell"))
	if p.Command == "" {
		return append(out, kit.IndentWrap(st.Muted.Render("none: only the dashboard deletes one stray copy"), w, "  ", 0)...)
	}
	out = append(out, commandLines(p.Command, w, "  ")...)
	return out
}

// commandLines lays a shell command out in width w: it breaks only
// between words, ending each broken line in " \\" so what is copied still
// runs, and keeps a flag with its value. A word wider than a line stands
// alone and wraps where it must.
func commandLines(cmd string, w int, indent string) []string {
	room := max(w-ansi.StringWidth(indent)-2, 8) // " \\"
	// A flag stays on the line of its value.
	var units []string
	words := shellWords(cmd)
	for i := 0; i < len(words); i++ {
		if strings.HasPrefix(words[i], "-") && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") &&
			ansi.StringWidth(words[i])+1+ansi.StringWidth(words[i+1]) <= room {
			units = append(units, words[i]+" "+words[i+1])
			i++
			continue
		}
		units = append(units, words[i])
	}
	var out []string
	line := ""
	for _, word := range units {
		switch {
		case line == "":
			line = word
		case ansi.StringWidth(line)+1+ansi.StringWidth(word) <= room:
			line += " " + word
		default:
			out = append(out, line)
			line = word
		}
	}
	if line != "" || len(out) == 0 {
		out = append(out, line)
	}
	var lines []string
	for i, l := range out {
		if i < len(out)-1 {
			l += " \\"
		}
		switch n := ansi.StringWidth(l); {
		case n+ansi.StringWidth(indent) <= w:
		case n <= w: // a long word: without the indent it still fits
			lines = append(lines, l)
			continue
		default:
			lines = append(lines, kit.IndentWrap(l, w, indent, 0)...)
			continue
		}
		lines = append(lines, indent+l)
	}
	return lines
}

// shellWords splits a command at the spaces outside single quotes and
// process substitutions: the words a shell would see.
func shellWords(cmd string) []string {
	var words []string
	var cur strings.Builder
	quoted, depth := false, 0
	for _, r := range cmd {
		switch {
		case r == '\'':
			quoted = !quoted
		case !quoted && r == '(':
			depth++
		case !quoted && r == ')':
			depth--
		case r == ' ' && !quoted && depth == 0:
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	return words
}

// sourceChanges lists every source partition: its map, old → new offset,
// and the records the edit writes.
func (d *ConfirmDialog) sourceChanges(w int) []string {
	var out []string
	for _, ch := range d.shown.Changes {
		if d.shown.Kind == plan.KindDeleteStray {
			out = append(out, kit.IndentWrap(ch.PartitionJSON, w, "  ", 0)...)
			out = append(out, d.strayChange(ch, w)...)
			continue
		}
		out = append(out, changeLines(d.st, ch, w, "  ")...)
	}
	return out
}

// changeLines is one change of a plan as a confirmation shows it, from
// indent: the source partition, then, further in, its offset old → new
// and the record each write makes. Outside strings are made safe here.
func changeLines(st *kit.Styles, ch plan.Change, w int, indent string) []string {
	in := indent + "  "
	out := kit.IndentWrap(kit.Clean(ch.PartitionJSON), w, indent, 0)
	before, after := "(none)", "(deleted)"
	if ch.Before != nil {
		before = kit.Clean(string(ch.Before))
	}
	if ch.After != nil {
		after = kit.Clean(string(ch.After))
	}
	if line := in + before + " → " + after; ansi.StringWidth(line) <= w {
		out = append(out, line)
	} else {
		out = append(out, kit.IndentWrap(before, w, in, 0)...)
		out = append(out, kit.IndentWrap("→ "+after, w, in, 0)...)
	}
	for _, wr := range ch.Writes {
		out = append(out, kit.IndentWrap(st.Muted.Render(kit.Clean(wr.TopicPartition.String())+": "+writeText(wr)), w, in, 0)...)
	}
	return out
}

// strayChange is what a stray delete changes: that copy's value →
// (deleted), and what the task reads, which it leaves as it is.
func (d *ConfirmDialog) strayChange(ch plan.Change, w int) []string {
	var out []string
	for _, wr := range ch.Writes {
		held := "(deleted)"
		if wr.Before != nil {
			held = string(wr.Before)
		}
		out = append(out, kit.IndentWrap("stray copy in "+wr.TopicPartition.String()+": "+held+" → (deleted)", w, "    ", 0)...)
		out = append(out, kit.IndentWrap(d.st.Muted.Render(wr.TopicPartition.String()+": "+writeText(wr)), w, "    ", 0)...)
	}
	reads := "no offset"
	if ch.Before != nil {
		reads = string(ch.Before)
	}
	return append(out, kit.IndentWrap(d.st.Muted.Render("the task reads "+reads+" before and after"), w, "    ", 0)...)
}

// isSinkPlan: the plan changes a sink's consumer group offsets.
func isSinkPlan(p *plan.Plan) bool { return len(p.Sink) > 0 || p.Path == plan.PathGroup }

// generalWarnings are the plan's warnings but those about one sink
// partition, which show under that partition.
func generalWarnings(p *plan.Plan) []string {
	var out []string
	for _, w := range p.Warnings {
		own := false
		for _, c := range p.Sink {
			if c.Warning != "" && w == c.TopicPartition.String()+": "+c.Warning {
				own = true
				break
			}
		}
		if !own {
			out = append(out, w)
		}
	}
	return out
}

// sinkChanges lists every topic-partition of a sink edit in aligned
// columns: committed old → new and the lag after, with its warning (below
// the log start, above the end) highlighted beneath it.
func (d *ConfirmDialog) sinkChanges(w int) []string {
	st := d.st
	tpW, beforeW, afterW := 0, 0, 0
	for _, c := range d.shown.Sink {
		tpW = max(tpW, len(c.TopicPartition.String()))
		beforeW = max(beforeW, len(sinkOffsetText(c.Before)))
		afterW = max(afterW, len(sinkAfterText(c.After)))
	}
	var out []string
	for _, c := range d.shown.Sink {
		line := fmt.Sprintf("  %-*s  %*s → %-*s", tpW, c.TopicPartition.String(), beforeW, sinkOffsetText(c.Before), afterW, sinkAfterText(c.After))
		line += st.Muted.Render("  lag after ") + kit.Count(c.Lag())
		if c.Warning != "" {
			line += " " + st.Warn.Render("⚠")
		}
		out = append(out, kit.Truncate(line, w))
		if c.Warning != "" {
			out = append(out, kit.IndentWrap(st.Warn.Render("⚠ "+c.Warning), w, "    ", 0)...)
		}
	}
	return out
}

// sinkOffsetText is a committed offset in a sink change: "(none)" for -1.
func sinkOffsetText(n int64) string {
	if n < 0 {
		return "(none)"
	}
	return kit.Count(n)
}

// sinkAfterText is a sink change's new offset: "(deleted)" for -1.
func sinkAfterText(n int64) string {
	if n < 0 {
		return "(deleted)"
	}
	return kit.Count(n)
}

// writeText says what one record does to the key it is written under.
func writeText(w plan.Write) string {
	switch {
	case w.Existing && w.Value == nil:
		return "tombstone under the existing key's exact bytes"
	case w.Existing && w.Before == nil: // the key's latest record is a tombstone
		return "writes under the deleted key's exact bytes"
	case w.Existing:
		return "rewrites the existing key's exact bytes"
	case w.Value == nil:
		return "tombstone under a new key"
	}
	return "writes a new key"
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown user)"
	}
	return s
}

// footer is what stays under the body: progress while applying, otherwise
// what stands between the operator and enter, then the keys.
func (d *ConfirmDialog) footer(w int, spinner string) []string {
	st := d.st
	name := d.shown.Connector
	if d.Running {
		var out []string
		for _, s := range d.steps {
			glyph := st.Muted.Render("·")
			switch s.state {
			case stepDoing:
				glyph = spinner
			case stepDone:
				glyph = st.OK.Render("✓")
			case stepFailed:
				glyph = st.Bad.Render("✗")
			}
			out = append(out, glyph+" "+s.what)
		}
		return append(out, st.Muted.Render("Working: keys wait until it is done (ctrl+c quits koff)."))
	}
	var out []string
	if d.needsStop() {
		msg := fmt.Sprintf("%s is %s: offsets can change only while it is STOPPED. %s stops it, applies the edit, then resumes it.",
			name, d.shown.State, d.km.StopApplyResume.Help().Key)
		if d.shown.State == "PAUSED" {
			msg += " Resuming leaves it RUNNING, not PAUSED."
		}
		out = append(out, kit.IndentWrap(st.Warn.Render("⚠ ")+msg, w, "", 0)...)
	}
	if n := d.warningsOutOfView(); n > 0 && d.vp.TotalLineCount() > d.vp.Height() {
		// A warning must not pass unseen below (or above) the fold.
		out = append(out, kit.Truncate(st.Warn.Render("⚠ ")+kit.Plural(n, "warning", "warnings")+" out of view: ↑↓ to read", w))
	}
	if d.needName {
		out = append(out, "Type "+st.Title.Render(name)+" to reset every offset it has:")
		out = append(out, d.name.View())
	}
	apply, flow := d.km.Confirm, d.km.StopApplyResume
	apply.SetEnabled(d.CanApply())
	flow.SetEnabled(d.CanFlow())
	note := ""
	if !d.nameOK() {
		note = "type the name to continue"
	}
	keys := func(scrollKey string) []string {
		bindings := []key.Binding{apply, flow}
		if d.vp.TotalLineCount() > d.vp.Height() {
			scroll := d.km.DialogDown
			scroll.SetHelp(scrollKey, "scroll")
			bindings = append(bindings, scroll)
		}
		return kit.DialogKeys(d.help, st, w, append(bindings, d.km.Cancel), note)
	}
	lines := keys("↑↓ pgup pgdn")
	if len(lines) > 1 { // narrow: the keys on one line leave the body a line more
		lines = keys("↑↓")
	}
	return append(out, lines...)
}

// undoWarnings say, before enter, what the CLI refuses without --force or
// --yes: partitions that hold a newer value than the edit wrote (undo
// overwrites it), and newer edits that wrote nothing (this undoes an older
// one).
func (d *ConfirmDialog) undoWarnings(more func(string, int)) {
	st, u := d.st, d.undo
	for _, n := range u.Notes {
		more(st.Muted.Render(kit.Clean(n)), 0)
	}
	for _, sk := range u.Skipped {
		more(st.Warn.Render("⚠ NEWER EDIT WROTE NOTHING: ")+kit.Clean(fmt.Sprintf("the %s (%s): this undoes the older edit above", audit.EditName(sk), sk.Result)), 0)
	}
	for _, n := range u.Newer {
		more(st.Warn.Render("⚠ NEWER VALUE: ")+kit.Clean(n.String())+st.Warn.Render(" · undo overwrites it"), 0)
	}
}

// scrollBody moves a dialog's body by a line or a page for the dialog's
// scroll keys, and says whether k was one of them.
func scrollBody(km *keymap.KeyMap, vp *viewport.Model, k tea.KeyPressMsg) bool {
	switch {
	case key.Matches(k, km.DialogUp):
		vp.ScrollUp(1)
	case key.Matches(k, km.DialogDown):
		vp.ScrollDown(1)
	case key.Matches(k, km.DialogPageUp):
		vp.PageUp()
	case key.Matches(k, km.DialogPageDown):
		vp.PageDown()
	default:
		return false
	}
	return true
}
