package cli

import (
	"koff/model"
	"koff/model/resume"
)

// resumeCell is a status row's RESUME cell: the connector's resume state,
// with what a gap loses or a replay reads again where koff counted it
// ("gap: 4 records"); "-" for a row with no check (a copy its tasks do
// not read, or none made yet).
func resumeCell(r *model.ConnectorResume) string {
	if r == nil {
		return "-"
	}
	s := string(r.State)
	switch a := r.Lost; {
	case r.State == resume.Gap && (a.Records >= 0 || a.Bytes >= 0):
		return s + ": " + shortAmount(a) + " lost"
	case r.State == resume.Replay && (r.Replayed.Records >= 0 || r.Replayed.Bytes >= 0):
		return s + ": " + shortAmount(r.Replayed) + " again"
	}
	return s
}

// shortAmount is "4 records", "1200 bytes": the records where counted,
// else the bytes.
func shortAmount(a resume.Amount) string {
	if a.Records >= 0 {
		return model.ResumeAmountText(resume.Amount{Records: a.Records, Bytes: -1})
	}
	return model.ResumeAmountText(resume.Amount{Records: -1, Bytes: a.Bytes})
}

// statusResumeJSON is a connector's resume check in koff status -o json:
// koff check's connector fields without its partitions.
type statusResumeJSON struct {
	State    resume.State         `json:"state"`
	Counts   map[resume.State]int `json:"counts"`
	Lost     *amountJSON          `json:"lost"`
	Replayed *amountJSON          `json:"replayed"`
	Reason   string               `json:"reason,omitempty"`
	Note     string               `json:"note,omitempty"`
	Checked  string               `json:"checked"`
}

func resumeJSONOf(r *model.ConnectorResume) *statusResumeJSON {
	if r == nil {
		return nil
	}
	return &statusResumeJSON{State: r.State, Counts: r.Counts, Lost: amountOf(r.Lost), Replayed: amountOf(r.Replayed),
		Reason: r.Reason, Note: r.Note, Checked: model.TimeArg(r.Checked)}
}

// partitionResumeCell is a sink partition line's RESUME cell: its state,
// and where it resumes when that is not its committed offset.
func partitionResumeCell(p *model.PartitionResume) string {
	if p == nil {
		return ""
	}
	if p.State != resume.Resumes && p.ResumesAt != "" {
		return string(p.State) + ", resumes at " + p.ResumesAt
	}
	return string(p.State)
}
