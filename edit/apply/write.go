package apply

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"koff/edit/plan"
	"koff/model"
	"koff/model/store"
)

// write sends the plan: one PATCH or DELETE to Connect's REST API, or one
// produce request per topic-partition straight to the offsets topic.
func (e *Applier) write(ctx context.Context, p *plan.Plan, bs []batch, w *logView, run *editRun, res *Result) error {
	if p.Path == plan.PathREST {
		return e.writeREST(ctx, p, bs, w, run, res)
	}
	return e.writeBatches(ctx, p, bs, w, run, res)
}

// writeREST sends the plan to Connect's REST API as one PATCH or DELETE.
func (e *Applier) writeREST(ctx context.Context, p *plan.Plan, bs []batch, w *logView, run *editRun, res *Result) error {
	msg, err := e.applyREST(ctx, p)
	res.Message = msg
	switch {
	case err != nil && provablyNotApplied(err):
		for _, b := range bs {
			res.NotWritten = append(res.NotWritten, b.tp)
		}
		return err
	case err != nil:
		// No answer, or a 5xx: the worker may apply the PATCH or
		// DELETE now or later. Read the topic for its records until
		// they show or the verify timeout passes.
		var unknown []model.TopicPartition
		if w.canRead() {
			res.Written, unknown = w.landedWithin(context.WithoutCancel(ctx), bs)
			run.markWritten(res.Written)
		} else {
			for _, b := range bs {
				unknown = append(unknown, b.tp)
			}
		}
		if len(unknown) > 0 {
			res.Unknown = unknown
			return &WriteError{Written: res.Written, Unknown: unknown, Err: err}
		}
		// Applied after all: verified as any written edit.
	default:
		for _, b := range bs {
			res.Written = append(res.Written, b.tp)
		}
		run.markWritten(res.Written)
	}
	return nil
}

// writeBatches produces one request per topic-partition, in order. Each
// is re-checked for other writers just before it goes, and recorded in
// the audit log as soon as Kafka acknowledged it. A signal stops it
// between requests, never inside one.
func (e *Applier) writeBatches(ctx context.Context, p *plan.Plan, bs []batch, w *logView, run *editRun, res *Result) error {
	now := e.now()
	for i, b := range bs {
		rest := func() []model.TopicPartition {
			var out []model.TopicPartition
			for _, b := range bs[i:] {
				out = append(out, b.tp)
			}
			return out
		}
		if e.interrupted() {
			res.Interrupted = true
			res.NotWritten = rest()
			return &WriteError{Written: res.Written, NotWritten: res.NotWritten, Err: ErrInterrupted}
		}
		if err := w.recheck(ctx, b); err != nil {
			res.NotWritten = rest()
			if len(res.Written) == 0 {
				return err
			}
			return &WriteError{Written: res.Written, NotWritten: res.NotWritten, Err: err}
		}
		recs := make([]store.Record, len(b.refs))
		for j, r := range b.refs {
			wr := writeOf(p, r)
			recs[j] = store.Record{Topic: b.tp.Topic, Partition: b.tp.Partition, Key: wr.Key, Value: wr.Value, Time: now}
		}
		off, err := e.produce(ctx, b.tp, recs)
		if err != nil {
			if provablyNotApplied(err) {
				res.NotWritten = rest()
				return &WriteError{Written: res.Written, NotWritten: res.NotWritten, Err: err}
			}
			// The answer is lost: the batch may be in the log or land
			// later (settle.go). Read until it shows or the verify
			// timeout passes; the requests after it were never sent.
			unknown := []model.TopicPartition{b.tp}
			if w.canRead() {
				var got []model.TopicPartition
				got, unknown = w.landedWithin(context.WithoutCancel(ctx), bs[i:i+1])
				if len(got) == 1 {
					// Written: only its answer was lost.
					res.Written = append(res.Written, b.tp)
					run.markWritten(got)
					continue
				}
			}
			res.Unknown = unknown
			res.NotWritten = rest()[1:]
			return &WriteError{Written: res.Written, Unknown: res.Unknown, NotWritten: res.NotWritten, Err: err}
		}
		w.offsets[b.tp] = off
		res.Written = append(res.Written, b.tp)
		run.markWritten([]model.TopicPartition{b.tp})
	}
	return nil
}

func (e *Applier) applyREST(ctx context.Context, p *plan.Plan) (string, error) {
	if p.Kind == plan.KindResetAll {
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

// writeSink commits the sink's offsets to its group, or sends them to
// Connect's REST API. A request whose answer was lost is settled
// (settle.go): written once the group shows it, else unknown.
func (e *Applier) writeSink(ctx context.Context, p *plan.Plan, run *editRun, res *Result) error {
	var err error
	if p.Path == plan.PathREST {
		res.Message, err = e.applySinkREST(ctx, p)
	} else {
		err = e.applyGroup(ctx, p)
	}
	if err != nil && !provablyNotApplied(err) {
		err = e.settleSink(ctx, p, run, res, err)
	}
	if err == nil {
		run.written = []string{"group " + p.Group}
	}
	return err
}

// applySinkREST sends Connect's sink offset shape; deleting every
// committed offset is DELETE, as Connect deletes the group.
func (e *Applier) applySinkREST(ctx context.Context, p *plan.Plan) (string, error) {
	if strings.HasPrefix(p.PathReason, "DELETE") {
		return e.REST.ResetOffsets(ctx, p.Connector)
	}
	return e.applyREST(ctx, p)
}

// applyGroup commits (or deletes) the group's offsets directly.
func (e *Applier) applyGroup(ctx context.Context, p *plan.Plan) error {
	commit := map[model.TopicPartition]int64{}
	var del []model.TopicPartition
	for _, c := range p.Sink {
		if c.After < 0 {
			del = append(del, c.TopicPartition)
		} else {
			commit[c.TopicPartition] = c.After
		}
	}
	if len(commit) == 0 && len(del) > 0 && p.Kind == plan.KindResetAll {
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

// recheck looks again just before a batch's produce request.
func (w *logView) recheck(ctx context.Context, b batch) error {
	if w.rr == nil {
		return nil
	}
	recs, end, err := w.rr.ReadRecords(ctx, b.tp, w.checked[b.tp])
	if err != nil {
		return fmt.Errorf("look for other writers of %s: %w", b.tp, err)
	}
	if err := w.conflict(b, recs); err != nil {
		return err
	}
	w.checked[b.tp] = end
	return nil
}
