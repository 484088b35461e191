package apply

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"koff/edit/plan"
	"koff/model"
)

// Result is what became of an applied plan.
type Result struct {
	Plan *plan.Plan
	// Verified: every write was read back, its record was the first of its
	// key after the plan, and it is still the one in force.
	Verified bool
	// Message is Connect's answer for REST edits.
	Message string
	// Written, NotWritten and Unknown are the topic-partitions by outcome
	// (direct writes: one produce request each, in a fixed order). Unknown
	// ones may have been written: their request was sent and its answer
	// lost, and no read has shown the records yet (settle.go).
	Written, NotWritten, Unknown []model.TopicPartition
	// Lost are partitions a concurrent edit won: its record landed first,
	// and this edit put that value back over its own.
	Lost []Contest
	// Overwritten are partitions this edit wrote that another writer's
	// record replaced afterwards.
	Overwritten []Contest
	// Interrupted: a signal stopped the edit between produce requests.
	Interrupted bool
	// Unwatched: the edit was read back, but a signal (or a cancelled
	// context) ended the watch for a task's commit over it this long after
	// it began (Plan.Watch): whether the value stays is unknown.
	Unwatched time.Duration
	// EditID is the edit's id in the audit log ("" when none was logged).
	EditID string
}

// UndoCommand is the command that undoes this edit and no other, "" when
// it was not logged.
func (r Result) UndoCommand() string {
	if r.EditID == "" || r.Plan == nil {
		return ""
	}
	return plan.UndoCommand(r.Plan.Connector, r.EditID)
}

// Contest is a partition another writer also wrote during an edit.
type Contest struct {
	Partition string // as in Change.PartitionJSON
	Value     []byte // the value in force (nil: deleted)
	By        string // who wrote it, as the audit log knows ("" unknown)
}

func (c Contest) String() string {
	v := "deleted"
	if c.Value != nil {
		v = string(c.Value)
	}
	by := "another writer"
	if c.By != "" {
		by = c.By
	}
	return fmt.Sprintf("%s holds %s, written by %s", c.Partition, v, by)
}

// Summary is one line for the CLI.
func (r Result) Summary() string { return r.summary(false) }

// Brief is Summary for a status bar: a read-back edit koff cannot verify
// for the worker leaves out why (the confirmation said it: "no
// --connect-url, no config topic") so the line reads whole at 80 columns.
func (r Result) Brief() string { return r.summary(true) }

// ReadBackOnly: the edit was read back, but koff cannot tell the worker
// reads that topic (Plan.Unsure). Not a success to mark with a check.
func (r Result) ReadBackOnly() bool { return r.Verified && r.Plan.Unsure != "" }

func (r Result) summary(short bool) string {
	n := len(r.Plan.Changes)
	what := fmt.Sprintf("%d partition", n)
	if n != 1 {
		what += "s"
	}
	verb := map[plan.Kind]string{plan.KindReset: "reset", plan.KindResetAll: "reset", plan.KindImport: "imported", plan.KindRewind: "rewound", plan.KindUndo: "undid the last edit:", plan.KindCopy: "copied", plan.KindRekey: "rekeyed", plan.KindDeleteStray: "deleted a stray copy:"}[r.Plan.Kind]
	if verb == "" {
		verb = "set"
	}
	if r.Plan.Kind == plan.KindUndo && r.Plan.Request.UndoesWhat != "" {
		verb = "undid the " + r.Plan.Request.UndoesWhat + ":"
	}
	// did is what the edit did: "imported 3 partitions of NAME", and for a
	// rewind "rewind of NAME to T, 3 partitions", as its audit line names it.
	did := fmt.Sprintf("%s %s of %s", verb, what, r.Plan.Connector)
	if r.Plan.Request.Rewind != nil {
		did = fmt.Sprintf("%s, %s", r.Plan.What(), what)
	}
	via := "offsets topic"
	switch r.Plan.Path {
	case plan.PathREST:
		via = "Connect REST"
	case plan.PathGroup:
		via = "group " + r.Plan.Group
	}
	switch {
	case len(r.Lost) > 0:
		return fmt.Sprintf("NOT applied: lost a race with a concurrent edit of %s: %s first; koff put that value back over its own write%s", r.Plan.Connector, r.Lost[0], more(len(r.Lost)))
	case len(r.Overwritten) > 0:
		return fmt.Sprintf("written, then overwritten: %s via %s, but %s%s", did, via, r.Overwritten[0], more(len(r.Overwritten)))
	case r.Unwatched > 0:
		return fmt.Sprintf("written and read back, NOT verified: %s via %s; the watch for a task's commit over it was stopped after %s of %s, so whether it stays is unknown", did, via, plan.ShortDuration(r.Unwatched), plan.ShortDuration(r.Plan.Watch))
	case r.ReadBackOnly():
		// Read back, but koff cannot tell the worker reads that topic.
		if short {
			return fmt.Sprintf("%s: read back, NOT verified for the worker", did)
		}
		return fmt.Sprintf("written and read back, NOT verified for the worker: %s via %s; %s", did, via, r.Plan.Unsure)
	case r.Verified:
		return fmt.Sprintf("verified: %s via %s", did, via)
	}
	return fmt.Sprintf("written but NOT verified: %s via %s; the tailer has not read it back", did, via)
}

func more(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(" (and %d more partitions)", n-1)
}

// WriteError is a write that stopped part way: what reached the log, what
// may have (its answer was lost), and what did not.
type WriteError struct {
	Written, Unknown, NotWritten []model.TopicPartition
	// Group names the consumer group of a sink commit whose outcome is
	// unknown (its partitions are in Unknown).
	Group string
	Err   error
	// Connector and EditID name the edit, for the undo command.
	Connector, EditID string
}

func (e *WriteError) Error() string {
	if e.Group != "" {
		return fmt.Sprintf("may have been written: the commit to group %s (its answer was lost and the group does not show it yet: %v): %s (%s puts back the offsets it held before)", e.Group, e.Err, tpList(e.Unknown), e.undoCommand())
	}
	if len(e.Unknown) > 0 {
		// The outcome first: a status bar may cut the rest.
		s := fmt.Sprintf("may have been written: %s (its answer was lost and no read shows it yet: %v)", tpList(e.Unknown), e.Err)
		if len(e.Written) > 0 {
			s += "; written: " + tpList(e.Written)
		}
		if len(e.NotWritten) > 0 {
			s += "; not written: " + tpList(e.NotWritten)
		}
		return s + e.undoHint(len(e.Written)+len(e.Unknown))
	}
	if len(e.Written) == 0 && errors.Is(e.Err, ErrInterrupted) {
		return "interrupted before writing: nothing was written"
	}
	return fmt.Sprintf("%v; written: %s; not written: %s%s", e.Err, tpList(e.Written), tpList(e.NotWritten), e.undoHint(len(e.Written)))
}

func (e *WriteError) Unwrap() error { return e.Err }

// ErrInterrupted: a signal asked koff to stop while it was writing.
var ErrInterrupted = errors.New("interrupted by a signal: stopped after the produce request in flight")

func (e *WriteError) undoHint(n int) string {
	if n == 0 {
		return ""
	}
	return " (" + e.undoCommand() + " puts back the values before)"
}

// undoCommand is the undo of this edit, pinned by its id once Apply has
// named it.
func (e *WriteError) undoCommand() string {
	if e.EditID == "" {
		return "koff undo"
	}
	return plan.UndoCommand(e.Connector, e.EditID)
}

func tpList(tps []model.TopicPartition) string {
	if len(tps) == 0 {
		return "none"
	}
	s := make([]string, len(tps))
	for i, tp := range tps {
		s[i] = tp.String()
	}
	if len(s) > 8 {
		return strings.Join(s[:8], ", ") + fmt.Sprintf(" and %d more", len(s)-8)
	}
	return strings.Join(s, ", ")
}

func joinContests(cs []Contest) string {
	s := ""
	for i, c := range cs {
		if i > 0 {
			s += "; "
		}
		s += c.String()
	}
	return s
}

// IsRefusal: err is a refusal before anything was written (read-only, not
// STOPPED, a conflict, an active group), which the audit log names so.
func IsRefusal(err error) bool {
	var ns *NotStoppedError
	var c *ConflictError
	var ga *GroupActiveError
	var cc *ConnectorChangedError
	return errors.Is(err, ErrReadOnly) || errors.As(err, &ns) || errors.As(err, &c) || errors.As(err, &ga) || errors.As(err, &cc)
}

// ConnectorChangedError refuses an operation whose connectors are not as
// it needs them: one it creates exists, one it stops or deletes is gone.
type ConnectorChangedError struct{ Connector, Now string }

func (e *ConnectorChangedError) Error() string {
	return fmt.Sprintf("connector %s %s; review and try again", e.Connector, e.Now)
}

// ErrReadOnly refuses every write when koff runs read-only (--read-only, or
// a viewer under koff serve). It is enforced here, whatever a caller shows.
var ErrReadOnly = errors.New("read-only: this koff does not write offsets")

// NotStoppedError refuses an edit of a connector that is not STOPPED: a
// running (or paused) task overwrites the edit at its next flush. State is
// REST's status ("" without REST: then Target, from the config topic, is
// what koff decided by).
type NotStoppedError struct {
	Connector, State string
	Tasks            int
	// Target is the connector's target state from the config topic
	// ConfigTopic ("" when koff reads none).
	Target, ConfigTopic string
}

// Error says what koff saw, in its own words: Connect's words are quoted
// only where Connect said them (a REST answer).
func (e *NotStoppedError) Error() string {
	if e.State == "" { // no REST: the config topic's target state
		return fmt.Sprintf("%s's target state is %s (config topic %s): koff changes offsets only of a connector whose target state is STOPPED, as Connect does; stop it first (koff stop %s with --connect-url, or PUT /connectors/%s/stop)", e.Connector, e.Target, e.ConfigTopic, e.Connector, e.Connector)
	}
	s := fmt.Sprintf("%s is %s (Connect REST status", e.Connector, e.State)
	if e.Tasks > 0 {
		s += fmt.Sprintf(", %d tasks", e.Tasks)
	}
	s += ")"
	switch {
	case e.Target != "":
		s += fmt.Sprintf(", target state %s (config topic %s)", e.Target, e.ConfigTopic)
	case e.State == "UNASSIGNED":
		s += " and koff reads no config topic to tell whether it is meant to be stopped"
	}
	return s + fmt.Sprintf(": koff changes offsets only of a STOPPED connector, as Connect does; stop it first (koff stop %s)", e.Connector)
}

// ConflictError refuses an edit whose offsets moved after it was planned.
type ConflictError struct {
	Partition string
	Now       []byte // nil: deleted or absent
	// By is who wrote it, when the audit log knows.
	By string
}

func (e *ConflictError) Error() string {
	now := "deleted"
	if e.Now != nil {
		now = string(e.Now)
	}
	by := ""
	if e.By != "" {
		by = ", written by " + e.By
	}
	return fmt.Sprintf("offset of %s changed since the edit was planned: it is now %s%s; review and try again", e.Partition, now, by)
}

// GroupActiveError refuses a direct commit while the sink's group has
// members: Kafka would refuse it too.
type GroupActiveError struct {
	Group   string
	Members int
}

func (e *GroupActiveError) Error() string {
	return fmt.Sprintf("group %s has %d active members: Kafka changes a group's offsets from outside only when it has none; stop the connector first", e.Group, e.Members)
}

// OperationResult is what became of an operation: the steps carried out,
// in order, and each offsets step's own result.
type OperationResult struct {
	Operation *plan.Operation
	ID        string
	Done      []int
	Offsets   []Result
}

// UndoCommand is the command that undoes the operation, "" when it was
// not logged or did nothing.
func (r OperationResult) UndoCommand() string {
	if r.ID == "" || len(r.Done) == 0 {
		return ""
	}
	return plan.UndoCommand(r.Operation.Connector, r.ID)
}

// OperationError is a step that failed: the steps before it happened, it
// and those after did not (or, for the failed step, may have in part, as
// its own error says).
type OperationError struct {
	What   string
	Steps  []plan.Step
	Done   []int
	Failed int
	Err    error
	// Undo is the command that brings back the start ("" when no step
	// happened: there is nothing to bring back).
	Undo string
}

func (e *OperationError) Error() string {
	var did, not []string
	done := map[int]bool{}
	for _, i := range e.Done {
		done[i] = true
		did = append(did, fmt.Sprintf("%d %s", i+1, e.Steps[i].Text()))
	}
	for i, s := range e.Steps {
		if !done[i] && i != e.Failed {
			not = append(not, fmt.Sprintf("%d %s", i+1, s.Kind))
		}
	}
	msg := fmt.Sprintf("%s: step %d (%s) failed: %v", e.What, e.Failed+1, e.Steps[e.Failed].Text(), e.Err)
	if len(did) == 0 {
		return msg + "; no step happened, nothing changed"
	}
	msg += "; steps done: " + strings.Join(did, "; ")
	if len(not) > 0 {
		msg += "; not done: " + strings.Join(not, ", ")
	}
	return msg + "; `" + e.Undo + "` brings back the start"
}

func (e *OperationError) Unwrap() error { return e.Err }
