package model

import (
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
	// Reason says why no partition could be checked; Note what koff knows
	// beyond the partitions (resume.Connector).
	Reason, Note string
	// Checked is when the facts were gathered.
	Checked time.Time
}

// SummariseResume is c's row summary.
func SummariseResume(c resume.Connector) ConnectorResume {
	lost, replayed := c.Totals()
	return ConnectorResume{State: c.State(), Counts: c.Counts(), Lost: lost, Replayed: replayed, Class: c.Class,
		Reason: c.Reason, Note: c.Note, Checked: c.Checked}
}

// PartitionResume is one partition's latest resume check: where its task
// resumes, whether that still exists, what the connector does and what is
// lost or read again; Checked is when.
type PartitionResume struct {
	resume.Partition
	Checked time.Time
}
