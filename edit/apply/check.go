package apply

import (
	"context"
	"fmt"

	"koff/connect"
	"koff/edit/plan"
	"koff/model"
)

// Check runs the preconditions of an edit: read-only, the connector's state
// (when REST can tell), and the optimistic check that every stored offset
// the plan read is unchanged.
func (e *Applier) Check(ctx context.Context, p *plan.Plan) error {
	if e.ReadOnly {
		return e.readOnly()
	}
	return e.CheckPreview(ctx, p)
}

// readOnly is ErrReadOnly with its cause, when the caller gave one.
func (e *Applier) readOnly() error { return ReadOnlyError(e.ReadOnlyCause) }

// ReadOnlyError is ErrReadOnly with its cause, when there is one.
func ReadOnlyError(cause string) error {
	if cause == "" {
		return ErrReadOnly
	}
	return fmt.Errorf("%w (%s)", ErrReadOnly, cause)
}

// CheckPreview runs every precondition Check does but read-only: a dry
// run writes nothing, so a read-only koff may preview an edit.
func (e *Applier) CheckPreview(ctx context.Context, p *plan.Plan) error {
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
		e.PlanWatch(p) // the state may have changed since the plan
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

func (e *Applier) checkSinkOrSource(ctx context.Context, p *plan.Plan) error {
	if p.Group != "" {
		return e.checkSink(ctx, p)
	}
	return e.checkUnchanged(p)
}

// checkSink re-reads the group: it must have no members for a direct
// commit, and no partition's committed offset may have moved.
func (e *Applier) checkSink(ctx context.Context, p *plan.Plan) error {
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

func (e *Applier) checkUnchanged(p *plan.Plan) error {
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
