package screens

import (
	"time"

	"koff/model"
	"koff/model/resume"
	"koff/ui/kit"
)

// The resume check on the partitions and sink screens and in the
// partition detail: a partition's state, in a cell and in words.

// partitionResumeRank orders partitions as the resume sort shows them:
// gap, replay, unknown, resumes, then those not checked.
func partitionResumeRank(r *model.PartitionResume) int {
	if r == nil {
		return -1
	}
	switch r.State {
	case resume.Gap:
		return 3
	case resume.Replay:
		return 2
	case resume.Unknown:
		return 1
	}
	return 0
}

// partitionResumeCell is a RESUME cell of w cells, styled by its state.
func partitionResumeCell(st *kit.Styles, r *model.PartitionResume, w int) string {
	style := st.Muted
	if r != nil {
		style = st.ResumeStyle(r.State)
	}
	return style.Render(kit.Truncate(kit.PartitionResumeCell(r, w), w))
}

// resumeWords is a partition's resume check in one line, its state first
// so that a line cut at the right keeps it: "gap 4 records: offset 2 is
// below the log start 6 (…) · checked 3s ago".
func resumeWords(st *kit.Styles, r *model.PartitionResume, now time.Time) string {
	if r == nil {
		return st.Muted.Render("resume " + kit.NotChecked + " not checked yet")
	}
	head := resumeHead(r)
	why := r.Action
	if r.Reason != "" {
		why = r.Reason
	}
	if why == "" && r.State == resume.Resumes {
		why = kit.Clean(r.Position) + " still exists: the task reads on from it"
	}
	out := st.ResumeStyle(r.State).Render(head)
	if why != "" {
		out += ": " + kit.Clean(kit.OneLine(why))
	}
	return out + st.Muted.Render(" · checked "+kit.Age(now, r.Checked()))
}

// resumeHead is the state with what it loses or reads again: "gap 4
// records", "replay 120 bytes", "unknown".
func resumeHead(r *model.PartitionResume) string {
	head := string(r.State)
	switch r.State {
	case resume.Gap:
		if a := model.ResumeAmountText(r.Lost); a != "" {
			head += " " + a
		}
	case resume.Replay:
		if a := model.ResumeAmountText(r.Replayed); a != "" {
			head += " " + a
		}
	}
	return head
}

// resumeInfo is the detail section's heading info: when checked.
func resumeInfo(r *model.PartitionResume, now time.Time) []string {
	if r == nil {
		return nil
	}
	return []string{"checked " + kit.Age(now, r.Checked())}
}
