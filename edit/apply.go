package edit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"koff/model"
)

// Result is what became of an applied plan.
type Result struct {
	Plan *Plan
	// Verified: the tailer read every write back.
	Verified bool
	// Message is Connect's answer for REST edits.
	Message string
}

// Summary is one line for a status bar or the CLI.
func (r Result) Summary() string {
	n := len(r.Plan.Changes)
	what := fmt.Sprintf("%d partition", n)
	if n != 1 {
		what += "s"
	}
	verb := map[Kind]string{KindReset: "reset", KindResetAll: "reset", KindImport: "imported", KindUndo: "undid the last edit:", KindCopy: "copied"}[r.Plan.Kind]
	if verb == "" {
		verb = "set"
	}
	via := "offsets topic"
	switch r.Plan.Path {
	case PathREST:
		via = "Connect REST"
	case PathGroup:
		via = "group " + r.Plan.Group
	}
	if r.Verified {
		return fmt.Sprintf("verified: %s %s of %s via %s", verb, what, r.Plan.Connector, via)
	}
	return fmt.Sprintf("written but NOT verified: %s %s of %s via %s; the tailer has not read it back", verb, what, r.Plan.Connector, via)
}

// Apply checks the preconditions again, writes the plan, waits until the
// tailer has read every write back, and appends the attempt to the audit
// log. A refused or failed attempt is audited too.
func (e *Editor) Apply(ctx context.Context, p *Plan) (Result, error) {
	res := Result{Plan: p}
	if err := e.Check(ctx, p); err != nil {
		e.audit(p, res, err)
		return res, err
	}
	var err error
	switch {
	case p.Group != "" && p.Path == PathREST:
		res.Message, err = e.applySinkREST(ctx, p)
	case p.Group != "":
		err = e.applyGroup(ctx, p)
	case p.Path == PathREST:
		res.Message, err = e.applyREST(ctx, p)
	default:
		err = e.applyTopic(ctx, p)
	}
	if err != nil {
		e.audit(p, res, err)
		return res, err
	}
	if p.Group != "" {
		res.Verified = e.verifySink(ctx, p)
	} else {
		res.Verified = e.verify(ctx, p)
	}
	e.audit(p, res, nil)
	return res, nil
}

func (e *Editor) applyREST(ctx context.Context, p *Plan) (string, error) {
	if p.Kind == KindResetAll {
		return e.REST.ResetOffsets(ctx, p.Connector)
	}
	var b bytes.Buffer
	b.WriteString(`{"offsets":[`)
	for i, ch := range p.Changes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"partition":`)
		b.WriteString(ch.PartitionJSON)
		b.WriteString(`,"offset":`)
		if ch.After == nil {
			b.WriteString("null")
		} else {
			b.Write(ch.After)
		}
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	return e.REST.AlterOffsets(ctx, p.Connector, b.Bytes())
}

// applySinkREST sends Connect's sink offset shape; deleting every
// committed offset is DELETE, as Connect deletes the group.
func (e *Editor) applySinkREST(ctx context.Context, p *Plan) (string, error) {
	if strings.HasPrefix(p.PathReason, "DELETE") {
		return e.REST.ResetOffsets(ctx, p.Connector)
	}
	return e.applyREST(ctx, p)
}

// applyGroup commits (or deletes) the group's offsets directly.
func (e *Editor) applyGroup(ctx context.Context, p *Plan) error {
	commit := map[model.TopicPartition]int64{}
	var del []model.TopicPartition
	for _, c := range p.Sink {
		if c.After < 0 {
			del = append(del, c.TopicPartition)
		} else {
			commit[c.TopicPartition] = c.After
		}
	}
	if len(commit) == 0 && len(del) > 0 && p.Kind == KindResetAll {
		return e.Kafka.DeleteGroup(ctx, p.Group)
	}
	if len(commit) > 0 {
		if err := e.Kafka.CommitGroupOffsets(ctx, p.Group, commit); err != nil {
			return err
		}
	}
	if len(del) > 0 {
		return e.Kafka.DeleteGroupOffsets(ctx, p.Group, del)
	}
	return nil
}

// verifySink re-reads the group until every committed offset is the new one.
func (e *Editor) verifySink(ctx context.Context, p *Plan) bool {
	deadline := time.Now().Add(e.verifyTimeout())
	for {
		if poll, err := e.groupPoll(ctx, p.Group); err == nil {
			now := map[model.TopicPartition]int64{}
			for _, gp := range poll.Partitions {
				now[gp.TopicPartition] = gp.Committed
			}
			ok := true
			for _, c := range p.Sink {
				cur, has := now[c.TopicPartition]
				if !has {
					cur = -1
				}
				ok = ok && cur == c.After
			}
			if ok {
				return true
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (e *Editor) applyTopic(ctx context.Context, p *Plan) error {
	var recs []model.Record
	now := e.now()
	for _, ch := range p.Changes {
		for _, w := range ch.Writes {
			recs = append(recs, model.Record{Topic: w.Topic, Partition: w.Partition, Key: w.Key, Value: w.Value, Time: now})
		}
	}
	return e.Kafka.WriteRecords(ctx, recs)
}

// current is the value stored now under a write's key (nil: none or deleted).
func (e *Editor) current(w Write) []byte {
	d, ok := e.Store.Partition(model.PartitionID{TopicPartition: w.TopicPartition, Key: string(w.Key)})
	if !ok || d.Deleted {
		return nil
	}
	return d.Value
}

// verify waits until the tailer has read every write back.
func (e *Editor) verify(ctx context.Context, p *Plan) bool {
	deadline := time.Now().Add(e.verifyTimeout())
	for {
		if e.writesVisible(p) {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (e *Editor) writesVisible(p *Plan) bool {
	for _, ch := range p.Changes {
		for _, w := range ch.Writes {
			d, ok := e.Store.Partition(model.PartitionID{TopicPartition: w.TopicPartition, Key: string(w.Key)})
			if !ok {
				return false
			}
			if w.Value == nil {
				if !d.Deleted {
					return false
				}
				continue
			}
			if d.Deleted || !sameValue(d.Value, w.Value, p.Path) {
				return false
			}
		}
	}
	return true
}

// sameValue compares bytes for direct writes; REST edits are normalised by
// the worker, so they compare as JSON.
func sameValue(stored, want []byte, path Path) bool {
	if path == PathTopic {
		return bytes.Equal(stored, want)
	}
	a, err1 := model.ParseOffset(stored)
	b, err2 := model.ParseOffset(want)
	return err1 == nil && err2 == nil && model.SameJSON(a, b)
}

// StopConnector stops a connector through REST and waits until its tasks
// are gone, as PATCH and DELETE require.
func (e *Editor) StopConnector(ctx context.Context, name string) error {
	if e.ReadOnly {
		return ErrReadOnly
	}
	if e.REST == nil {
		return errNoREST
	}
	if err := e.REST.Stop(ctx, name); err != nil {
		return err
	}
	deadline := time.Now().Add(e.stopTimeout())
	for {
		st, err := e.REST.Status(ctx, name)
		if err != nil {
			return err
		}
		if st.Stopped() {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("connector %s did not stop within %s (state %s, %d tasks)", name, e.stopTimeout(), st.Connector.State, len(st.Tasks))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// ResumeConnector resumes a stopped or paused connector through REST.
func (e *Editor) ResumeConnector(ctx context.Context, name string) error {
	if e.ReadOnly {
		return ErrReadOnly
	}
	if e.REST == nil {
		return errNoREST
	}
	return e.REST.Resume(ctx, name)
}

var errNoREST = errors.New("stopping and resuming connectors needs Connect's REST API: pass --connect-url")
