package model

import (
	"strconv"
	"sync/atomic"
	"time"

	"koff/model/resume"
)

// ConnectorResume is a connector's latest resume check as its row carries
// it: the connector's worst state, its partitions in each state, what they
// lose and read again in all, and why it could not be checked.
type ConnectorResume struct {
	State  resume.State
	Counts map[resume.State]int
	// Lost and Replayed add up the partitions' amounts (resume.Connector
	// Totals): a count no partition made is -1.
	Lost, Replayed resume.Amount
	Class          string
	// Reason says why no partition could be checked, or the one reason
	// every partition koff could not check shares (a source cluster out
	// of reach); Note what koff knows beyond the partitions
	// (resume.Connector).
	Reason, Note string
	// Checked is when the facts were gathered.
	Checked time.Time
}

// SummariseResume is c's row summary.
func SummariseResume(c resume.Connector) ConnectorResume {
	lost, replayed := c.Totals()
	reason := c.Reason
	if reason == "" {
		reason = sharedUnknown(c.Partitions)
	}
	return ConnectorResume{State: c.State(), Counts: c.Counts(), Lost: lost, Replayed: replayed, Class: c.Class,
		Reason: reason, Note: c.Note, Checked: c.Checked}
}

// sharedUnknown is the reason every unknown partition gives, when they
// give one and the same; "" otherwise.
func sharedUnknown(ps []resume.Partition) string {
	why := ""
	for _, p := range ps {
		if p.State != resume.Unknown {
			continue
		}
		if why != "" && p.Reason != why || p.Reason == "" {
			return ""
		}
		why = p.Reason
	}
	return why
}

// PartitionResume is one partition's latest resume check: where its task
// resumes, whether that still exists, what the connector does and what is
// lost or read again; Checked is when.
type PartitionResume struct {
	// *Partition is the check's own (resume.Connector's Partitions), not
	// a copy: a million partitions' checks are kept once.
	*resume.Partition
	// Clock is when it was checked, shared by the partitions of one
	// connector's check: a check that says the same again moves it on
	// rather than making every partition's anew (a million, every
	// --refresh).
	Clock *CheckClock
}

// Checked is when the partition was last checked (zero: never).
func (r *PartitionResume) Checked() time.Time { return r.Clock.Time() }

// CheckClock is when a check was made, read and moved on concurrently.
type CheckClock struct{ at atomic.Pointer[time.Time] }

// NewCheckClock is a clock at t.
func NewCheckClock(t time.Time) *CheckClock {
	c := &CheckClock{}
	c.Set(t)
	return c
}

// Set moves the clock to t.
func (c *CheckClock) Set(t time.Time) { c.at.Store(&t) }

// Time is the clock's time; zero for a nil clock.
func (c *CheckClock) Time() time.Time {
	if c == nil {
		return time.Time{}
	}
	if t := c.at.Load(); t != nil {
		return *t
	}
	return time.Time{}
}

// ResumeAmountText is an amount in words: "60 records", "100 bytes (3
// records) since 2026-12-05 03:41:07.123 UTC"; "" with nothing counted.
func ResumeAmountText(a resume.Amount) string {
	var parts []string
	if a.Bytes >= 0 {
		parts = append(parts, countText(a.Bytes, "byte"))
	}
	if a.Records >= 0 {
		parts = append(parts, countText(a.Records, "record"))
	}
	if len(parts) == 0 {
		return ""
	}
	s := parts[0]
	if len(parts) == 2 {
		s += " (" + parts[1] + ")"
	}
	if !a.Since.IsZero() {
		s += " since " + TimeText(a.Since)
	}
	return s
}

func countText(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.FormatInt(n, 10) + " " + unit + "s"
}
