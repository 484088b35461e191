package model

import (
	"testing"
	"time"

	"koff/model/resume"
)

// A connector's row summary adds up its partitions: the worst state, the
// counts, what is lost and read again in all (the oldest since), and the
// one reason its unknown partitions share (a source cluster out of
// reach), none when they give several.
func TestSummariseResume(t *testing.T) {
	at := time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)
	down := "source cluster primary at primary-kafka:9092: dial tcp: lookup primary-kafka: no such host"
	c := resume.Connector{Name: "mm2", Checked: at, Partitions: []resume.Partition{
		{Partition: "a", State: resume.Gap, Lost: resume.Amount{Records: 4, Bytes: -1, Since: at.Add(-time.Hour)}, Replayed: resume.None},
		{Partition: "b", State: resume.Gap, Lost: resume.Amount{Records: 6, Bytes: -1, Since: at.Add(-2 * time.Hour)}, Replayed: resume.None},
		{Partition: "c", State: resume.Unknown, Lost: resume.None, Replayed: resume.None, Reason: down},
		{Partition: "d", State: resume.Unknown, Lost: resume.None, Replayed: resume.None, Reason: down},
		{Partition: "e", State: resume.Resumes, Lost: resume.None, Replayed: resume.None},
	}}
	s := SummariseResume(c)
	if s.State != resume.Gap || s.Counts[resume.Gap] != 2 || s.Counts[resume.Unknown] != 2 || s.Counts[resume.Resumes] != 1 {
		t.Errorf("state and counts: %+v", s)
	}
	if s.Lost.Records != 10 || s.Lost.Bytes != -1 || !s.Lost.Since.Equal(at.Add(-2*time.Hour)) || s.Replayed.Records != -1 {
		t.Errorf("totals: lost %+v replayed %+v", s.Lost, s.Replayed)
	}
	if s.Reason != down || !s.Checked.Equal(at) {
		t.Errorf("reason %q, checked %v", s.Reason, s.Checked)
	}
	if ResumeAmountText(s.Lost) != "10 records since 2026-12-05 01:00:00.000 UTC" || ResumeAmountText(resume.None) != "" {
		t.Errorf("amount text: %q", ResumeAmountText(s.Lost))
	}
	c.Partitions[3].Reason = "another"
	if s := SummariseResume(c); s.Reason != "" {
		t.Errorf("two reasons summed up as %q", s.Reason)
	}
}
