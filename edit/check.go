package edit

import (
	"context"
	"errors"
	"fmt"

	"koff/connect"
	"koff/edit/plan"
	"koff/model"
)

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

// Check runs the preconditions of an edit: read-only, the connector's state
// (when REST can tell), and the optimistic check that every stored offset
// the plan read is unchanged.
func (e *Editor) Check(ctx context.Context, p *plan.Plan) error {
	if e.ReadOnly {
		return e.readOnly()
	}
	return e.CheckPreview(ctx, p)
}

// readOnly is ErrReadOnly with its cause, when the caller gave one.
func (e *Editor) readOnly() error {
	if e.ReadOnlyCause == "" {
		return ErrReadOnly
	}
	return fmt.Errorf("%w (%s)", ErrReadOnly, e.ReadOnlyCause)
}

// CheckPreview runs every precondition Check does but read-only: a dry
// run writes nothing, so a read-only koff may preview an edit.
func (e *Editor) CheckPreview(ctx context.Context, p *plan.Plan) error {
	// A stray copy is a key the task never reads nor writes: deleting it
	// needs no stopped connector.
	if p.Kind == plan.KindDeleteStray {
		return e.checkSinkOrSource(ctx, p)
	}
	if e.REST != nil {
		st, err := e.REST.Status(ctx, p.Connector)
		if connect.IsNotFound(err) && p.Absent {
			return e.checkSinkOrSource(ctx, p)
		}
		if err != nil {
			return err
		}
		p.State, p.Tasks = string(st.Connector.State), len(st.Tasks)
		if c, topic, ok := e.configOf(p.Connector); ok && c.Config != nil {
			p.Target, p.ConfigTopic = c.TargetState, topic
		}
		e.planWatch(p) // the state may have changed since the plan
		if !stopped(p.State, p.Tasks, p.Target) {
			return &NotStoppedError{Connector: p.Connector, State: p.State, Tasks: p.Tasks, Target: p.Target, ConfigTopic: p.ConfigTopic}
		}
	} else if p.Target != "" && p.Target != model.TargetStopped && !p.Absent {
		return &NotStoppedError{Connector: p.Connector, Target: p.Target, ConfigTopic: p.ConfigTopic}
	}
	return e.checkSinkOrSource(ctx, p)
}

// stopped decides as Connect's PATCH and DELETE offsets do, by the target
// state: a STOPPED connector with no tasks, or one whose status reads
// UNASSIGNED (its worker left, no other took it up yet) while its target
// state is STOPPED.
func stopped(state string, tasks int, target string) bool {
	if tasks > 0 {
		return false
	}
	return state == "STOPPED" || state == "UNASSIGNED" && target == model.TargetStopped
}

func (e *Editor) checkSinkOrSource(ctx context.Context, p *plan.Plan) error {
	if p.Group != "" {
		return e.checkSink(ctx, p)
	}
	return e.checkUnchanged(p)
}

// checkSink re-reads the group: it must have no members for a direct
// commit, and no partition's committed offset may have moved.
func (e *Editor) checkSink(ctx context.Context, p *plan.Plan) error {
	poll, err := e.groupPoll(ctx, p.Group)
	if err != nil {
		return err
	}
	p.GroupMembers = poll.Members
	if p.Path == plan.PathGroup && poll.Members > 0 {
		return &GroupActiveError{Group: p.Group, Members: poll.Members}
	}
	now := map[string]int64{}
	for _, gp := range poll.Partitions {
		now[gp.TopicPartition.String()] = gp.Committed
	}
	for _, c := range p.Sink {
		cur, ok := now[c.TopicPartition.String()]
		if !ok {
			cur = -1
		}
		if cur != c.Before {
			var b []byte
			if cur >= 0 {
				b = plan.SinkOffsetJSON(cur)
			}
			return &ConflictError{Partition: plan.SinkPartitionJSON(c.TopicPartition), Now: b}
		}
	}
	return nil
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

func (e *Editor) checkUnchanged(p *plan.Plan) error {
	for _, ch := range p.Changes {
		for _, w := range ch.Writes {
			// By parsed value, number for number: another layout of the
			// same offset (whitespace, field order, 1.50 for 1.5) is no
			// change.
			now := e.current(w)
			if !model.SameOffset(now, w.Before) {
				return &ConflictError{Partition: ch.PartitionJSON, Now: now, By: e.whoWrote(w.Key, now)}
			}
		}
	}
	return nil
}
