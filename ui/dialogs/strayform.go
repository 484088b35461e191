package dialogs

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"koff/edit/plan"
	"koff/edit/planner"
	"koff/keymap"
	"koff/model"
	"koff/model/java"
	"koff/ui/kit"
)

// strayForm opens when e or x is pressed on a stray copy of a source
// partition: a key the connector's task does not read (another copy has
// the bytes it looks up, or a later record of them). It says which copy is
// live and what the task reads, and offers two different actions: delete
// this stray copy only (a tombstone of that key in that topic-partition,
// planned and confirmed like any edit), or go on to the partition itself,
// whose edit starts from the live value.
type StrayForm struct {
	km        *keymap.KeyMap
	st        *kit.Styles
	connector string
	row       model.PartitionRow
	partition java.Object
	// reset: opened by x (the partition action resets it), else by e.
	reset bool
	// next is the form to open instead of this one (e on the partition).
	next FormDialog
	formState
	help          help.Model
	width, height int
}

func NewStrayForm(km *keymap.KeyMap, st *kit.Styles, connector string, row model.PartitionRow, partition java.Object, reset bool) *StrayForm {
	f := &StrayForm{km: km, st: st, connector: connector, row: row, partition: partition, reset: reset, help: help.New()}
	f.help.Styles = st.Help
	return f
}

func (f *StrayForm) FocusCmd() tea.Cmd { return nil }

func (f *StrayForm) Update(tea.Msg) tea.Cmd { return nil }

func (f *StrayForm) SetSize(w, h int) { f.width, f.height = w, h }

// switchTo is the form that replaces this one, once chosen.
func (f *StrayForm) NextForm() FormDialog {
	n := f.next
	f.next = nil
	return n
}

func (f *StrayForm) Key(msg tea.KeyPressMsg) (tea.Cmd, *Submission) {
	switch {
	case key.Matches(msg, f.km.StrayDelete) && f.sameBytes():
		f.PlanErr = planner.SameBytesStray
		return nil, nil
	case key.Matches(msg, f.km.StrayDelete):
		id := f.row.ID
		return nil, PlanRequest(plan.Request{Connector: f.connector, Kind: plan.KindDeleteStray,
			Items: []plan.Item{{Partition: f.partition, Stray: &id}}})
	case key.Matches(msg, f.km.StrayPartition) && f.reset:
		if f.row.TaskReads == "" {
			f.PlanErr = "the task reads no offset for this partition: there is nothing to reset; delete the stray copy instead"
			return nil, nil
		}
		return nil, PlanRequest(plan.Request{Connector: f.connector, Kind: plan.KindReset, Items: []plan.Item{{Partition: f.partition}}})
	case key.Matches(msg, f.km.StrayPartition):
		f.next = NewOffsetForm(f.km, f.st, f.connector, liveView(f.row), f.partition, nil)
	}
	return nil, nil
}

// sameBytes: the stray is an older record of the live key's very bytes,
// which only compaction can remove (see planner.SameBytesStray).
func (f *StrayForm) sameBytes() bool {
	return f.row.LiveCopy != nil && f.row.LiveCopy.Key == f.row.ID.Key
}

// liveView is a stray row seen as its partition: the offset the task
// reads, which an edit of the partition starts from.
func liveView(r model.PartitionRow) model.PartitionRow {
	r.Offset = r.TaskReads
	r.Deleted = r.TaskReads == ""
	return r
}

func (f *StrayForm) View(spinner string) string {
	inner := f.width - kit.DialogFrameW
	st := f.st
	r := f.row
	lines := []string{st.DialogTitle.Render("A stray copy · " + kit.Clean(f.connector)), ""}
	lines = append(lines, st.FieldLabel.Render("Source partition"))
	lines = append(lines, kit.IndentWrap(kit.CleanBlock(r.Partition, kit.DetailMax), inner, "  ", 3)...)
	lines = append(lines, st.FieldLabel.Render("This copy"))
	held := r.Offset
	switch {
	case r.Deleted:
		held = "(deleted)"
	case held == "":
		held = "(" + r.Unreadable + ")"
	}
	lines = append(lines, kit.IndentWrap(kit.Clean(r.ID.TopicPartition.String())+"  "+kit.CleanBlock(r.ID.Key, kit.DetailMax), inner, "  ", 3)...)
	lines = append(lines, kit.IndentWrap("holds "+kit.CleanBlock(held, kit.DetailMax), inner, "  ", 3)...)
	lines = append(lines, kit.IndentWrap(st.Warn.Render("⚠ the task does not read it: ")+kit.Clean(r.Stray), inner, "  ", 4)...)
	lines = append(lines, st.FieldLabel.Render("What the task reads"))
	switch {
	case r.TaskReads != "" && r.LiveCopy != nil:
		lines = append(lines, kit.IndentWrap(kit.CleanBlock(r.TaskReads, kit.DetailMax), inner, "  ", 3)...)
		lines = append(lines, kit.IndentWrap(st.Muted.Render("from the live copy in "+kit.Clean(r.LiveCopy.TopicPartition.String())+"  "+kit.CleanBlock(r.LiveCopy.Key, kit.DetailMax)), inner, "  ", 3)...)
	default:
		lines = append(lines, kit.IndentWrap("no offset: "+kit.Clean(r.NoOffset), inner, "  ", 4)...)
	}
	if r.TaskNote != "" {
		lines = append(lines, kit.IndentWrap(st.Muted.Render(kit.Clean(r.TaskNote)), inner, "  ", 3)...)
	}
	lines = append(lines, "")
	partition := f.km.StrayPartition
	if f.reset {
		partition.SetHelp(partition.Help().Key, "reset the partition (what the task reads)")
		partition.SetEnabled(r.TaskReads != "")
	}
	del := f.km.StrayDelete
	del.SetEnabled(!f.sameBytes() && !r.Deleted)
	keys := kit.DialogKeys(f.help, st, inner, []key.Binding{del, partition, f.km.FormCancel}, "")
	if f.sameBytes() {
		lines = append(lines, kit.IndentWrap(st.Muted.Render("The same key bytes as the live copy: deleting this copy alone would delete the task's offset whenever a restarted worker reads this partition last. Editing the partition writes every copy of those bytes."), inner, "", 4)...)
	}
	lines = append(lines, planFooter(st, spinner, f.Planning, "planning", f.PlanErr, inner, keys)...)
	return kit.RenderBox(st, f.width, f.height, lines)
}
