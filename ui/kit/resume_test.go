package kit

import (
	"testing"

	"koff/model"
	"koff/model/resume"
)

// A resume cell keeps its word whole at any width and adds what a gap
// loses or a replay reads again only where it fits: records as a number,
// bytes with their unit.
func TestResumeCellKeepsTheWord(t *testing.T) {
	records := func(n int64) resume.Amount { return resume.Amount{Records: n, Bytes: -1} }
	bytes := func(n int64) resume.Amount { return resume.Amount{Records: -1, Bytes: n} }
	for _, c := range []struct {
		state          resume.State
		lost, replayed resume.Amount
		w              int
		want           string
	}{
		{resume.Gap, records(260), resume.None, 14, "gap 260"},
		{resume.Gap, records(260), resume.None, 7, "gap 260"},
		{resume.Gap, records(260), resume.None, 6, "gap"},
		{resume.Gap, records(260), resume.None, 1, "gap"},
		{resume.Gap, records(1_234_567), resume.None, 14, "gap 1.2M"},
		{resume.Gap, records(99_999), resume.None, 14, "gap 99,999"},
		{resume.Gap, records(123_456), resume.None, 14, "gap 123.5k"},
		{resume.Gap, resume.None, resume.None, 14, "gap"},
		{resume.Replay, resume.None, bytes(48_213), 14, "replay 48.2 kB"},
		{resume.Replay, resume.None, bytes(512), 14, "replay 512 B"},
		{resume.Replay, resume.None, bytes(3_100_000_000), 14, "replay 3.1 GB"},
		{resume.Replay, resume.None, bytes(48_213), 10, "replay"},
		{resume.Unknown, resume.None, resume.None, 3, "unknown"},
		{resume.Resumes, records(5), records(5), 14, "resumes"},
		{"", resume.None, resume.None, 14, NotChecked},
	} {
		if got := ResumeCell(c.state, c.lost, c.replayed, c.w); got != c.want {
			t.Errorf("%s %+v %+v in %d: %q, want %q", c.state, c.lost, c.replayed, c.w, got, c.want)
		}
	}
	if got := ConnectorResumeCell(nil, 14); got != NotChecked {
		t.Errorf("a row not checked: %q", got)
	}
	if got := PartitionResumeCell(&model.PartitionResume{Partition: &resume.Partition{State: resume.Gap, Lost: records(4)}}, 14); got != "gap 4" {
		t.Errorf("a partition's gap: %q", got)
	}
}
