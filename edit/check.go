package edit

import (
	"context"
	"errors"
	"fmt"

	"koff/connect"
	"koff/model"
)

// ErrReadOnly refuses every write when koff runs read-only (--read-only, or
// a viewer under koff serve). It is enforced here, whatever a caller shows.
var ErrReadOnly = errors.New("read-only: this koff does not write offsets")

// NotStoppedError refuses an edit of a connector that is not STOPPED: a
// running (or paused) task overwrites the edit at its next flush.
type NotStoppedError struct {
	Connector, State string
	Tasks            int
}

// Error carries Connect's own words for the rule (KIP-875), which operators
// know from the REST API, after the state koff saw.
func (e *NotStoppedError) Error() string {
	return fmt.Sprintf("%s is %s. Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/%s/stop' endpoint", e.Connector, e.State, e.Connector)
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
func (e *Editor) Check(ctx context.Context, p *Plan) error {
	if e.ReadOnly {
		return ErrReadOnly
	}
	return e.CheckPreview(ctx, p)
}

// CheckPreview runs every precondition Check does but read-only: a dry
// run writes nothing, so a read-only koff may preview an edit.
func (e *Editor) CheckPreview(ctx context.Context, p *Plan) error {
	// A stray copy is a key the task never reads nor writes: deleting it
	// needs no stopped connector.
	if e.REST != nil && p.Kind != KindDeleteStray {
		st, err := e.REST.Status(ctx, p.Connector)
		if connect.IsNotFound(err) && p.Absent {
			return e.checkSinkOrSource(ctx, p)
		}
		if err != nil {
			return err
		}
		p.State, p.Tasks = string(st.Connector.State), len(st.Tasks)
		if p.State != "STOPPED" || p.Tasks > 0 {
			return &NotStoppedError{Connector: p.Connector, State: p.State, Tasks: p.Tasks}
		}
	}
	return e.checkSinkOrSource(ctx, p)
}

func (e *Editor) checkSinkOrSource(ctx context.Context, p *Plan) error {
	if p.Group != "" {
		return e.checkSink(ctx, p)
	}
	return e.checkUnchanged(p)
}

// checkSink re-reads the group: it must have no members for a direct
// commit, and no partition's committed offset may have moved.
func (e *Editor) checkSink(ctx context.Context, p *Plan) error {
	poll, err := e.groupPoll(ctx, p.Group)
	if err != nil {
		return err
	}
	p.GroupMembers = poll.Members
	if p.Path == PathGroup && poll.Members > 0 {
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
				b = sinkOffsetJSON(cur)
			}
			return &ConflictError{Partition: sinkPartitionJSON(c.TopicPartition), Now: b}
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

func (e *Editor) checkUnchanged(p *Plan) error {
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
