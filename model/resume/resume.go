// Package resume judges whether a connector can resume from its offsets:
// for each partition, where its task resumes, whether that position still
// exists in the system the connector reads (a topic, a replication slot, a
// binary log, a file), and what the connector does when it does not.
//
// It decides from facts only; package probe gathers them (a topic's log
// start and end, a slot's row in pg_replication_slots, SHOW BINARY LOGS, a
// file's size). Like the rest of model/ it does no I/O.
package resume

import "time"

// State is a partition's resume state, in the words koff prints.
type State string

const (
	// Resumes: the position exists; the task reads on from it.
	Resumes State = "resumes"
	// Gap: data between the position and what still exists is gone; the
	// connector skips it (or fails, as Action says).
	Gap State = "gap"
	// Replay: the position lies beyond what exists; the connector's policy
	// restarts it from somewhere before, and reads some data again.
	Replay State = "replay"
	// Unknown: koff cannot check; Reason says why and what it would need.
	Unknown State = "unknown"
)

// rank orders states by how urgently an operator must look: a known loss
// or replay before a check that could not be made, both before a resume.
func (s State) rank() int {
	switch s {
	case Gap:
		return 3
	case Replay:
		return 2
	case Unknown:
		return 1
	}
	return 0
}

// Worse reports whether s needs an operator more than t.
func (s State) Worse(t State) bool { return s.rank() > t.rank() }

// Amount is how much a gap skips or a replay reads again, in what the
// probed system counts. A count koff could not make is -1; Since is the
// time of the oldest data lost, zero when unknown.
type Amount struct {
	Records int64
	Bytes   int64
	Since   time.Time
}

// None is an Amount with nothing counted.
var None = Amount{Records: -1, Bytes: -1}

// Partition is the resume check of one partition of a connector: a source
// partition (Partition is its map as compact JSON) or a sink's
// topic-partition (Partition is "topic/N").
type Partition struct {
	Partition string
	// Position is where the task resumes, as the system names it
	// ("offset 41", "lsn 0/16B3748", "mysql-bin.000003 pos 154",
	// "byte 2048").
	Position string
	State    State
	// Lost is what a gap skips; Replayed what a replay reads again.
	Lost, Replayed Amount
	// ResumesAt is where the connector really starts when that is not
	// Position ("" when it is).
	ResumesAt string
	// Action is what the connector does, in one line ("resets to earliest
	// (auto.offset.reset) and reads from offset 120").
	Action string
	// Reason says, for Unknown, why koff cannot check and what it would
	// need ("no credentials for db1:5432/inventory: add it to --db-pass-file").
	Reason string
}

// Connector is the resume check of one connector.
type Connector struct {
	Name  string
	Class string
	// Type is source or sink.
	Type       string
	Partitions []Partition
	// Reason is set when no partition could be checked at all (Unknown for
	// the whole connector: its class, or a system out of reach).
	Reason string
	// Note says what koff knows beyond the partitions, when it matters
	// ("no committed offsets: its tasks start from the log start").
	Note string
	// Checked is when the facts were gathered.
	Checked time.Time
}

// State is the connector's worst partition state; Unknown with no
// partitions and a Reason, Resumes with none and no Reason.
func (c Connector) State() State {
	if len(c.Partitions) == 0 {
		if c.Reason != "" {
			return Unknown
		}
		return Resumes
	}
	s := Resumes
	for _, p := range c.Partitions {
		if p.State.Worse(s) {
			s = p.State
		}
	}
	return s
}

// Counts counts the connector's partitions in each state.
func (c Connector) Counts() map[State]int {
	n := map[State]int{}
	for _, p := range c.Partitions {
		n[p.State]++
	}
	return n
}

// Totals adds up what the connector's partitions lose and read again, in
// what was counted: a count no partition made stays -1; Since is the
// oldest.
func (c Connector) Totals() (lost, replayed Amount) {
	lost, replayed = None, None
	add := func(sum *Amount, a Amount) {
		if a.Records >= 0 {
			sum.Records = max(sum.Records, 0) + a.Records
		}
		if a.Bytes >= 0 {
			sum.Bytes = max(sum.Bytes, 0) + a.Bytes
		}
		if !a.Since.IsZero() && (sum.Since.IsZero() || a.Since.Before(sum.Since)) {
			sum.Since = a.Since
		}
	}
	for _, p := range c.Partitions {
		add(&lost, p.Lost)
		add(&replayed, p.Replayed)
	}
	return lost, replayed
}
