package apply

import (
	"context"
	"errors"
	"fmt"
	"os"

	"koff/connect"
	"koff/edit/audit"
	"koff/edit/plan"
)

// ApplyOperation runs an operation's steps in order under one audit entry:
// the write-ahead line with every step (and every offset before → after)
// before the first, a line for each step as it completes, and the
// outcome. An offsets step is a whole edit (Apply: check → … → record)
// whose lines name the operation. The first step that fails ends it; the
// error says which steps happened and how to bring back the start.
func (e *Applier) ApplyOperation(ctx context.Context, op *plan.Operation) (OperationResult, error) {
	res := OperationResult{Operation: op}
	cluster, _ := e.clusterID(ctx)
	run := &opRun{e: e, op: op, id: audit.NewEditID(e.now()), cluster: cluster}
	if err := e.CheckOperation(ctx, op); err != nil {
		run.line(audit.ResultRefused, func(en *audit.Entry) { en.Steps, en.Error = audit.StepsOf(op), err.Error() })
		return res, err
	}
	if err := run.logSteps(); err != nil {
		return res, err
	}
	res.ID = run.id
	for i := range op.Steps {
		if ctx.Err() != nil {
			return res, run.fail(&res, i, fmt.Errorf("interrupted before it began: %w", ctx.Err()))
		}
		select {
		case <-e.Interrupt:
			// A signal: the step in flight finished, no other begins.
			return res, run.fail(&res, i, fmt.Errorf("interrupted before it began: %w", context.Canceled))
		default:
		}
		stepEdit, err := e.runStep(ctx, run, i, &res)
		if err != nil {
			return res, run.fail(&res, i, err)
		}
		res.Done = append(res.Done, i)
		step := i
		run.line(audit.ResultStep, func(en *audit.Entry) { en.Step, en.StepEdit, en.Message = &step, stepEdit, op.Steps[i].Text() })
	}
	run.line(audit.ResultVerified, func(en *audit.Entry) { en.Message = op.DoneText() })
	return res, nil
}

// checkOperation refuses, before anything is written, an operation whose
// steps cannot all be carried out: read-only, no REST, a connector to
// create that exists, one to stop or delete that does not, and an offsets
// plan whose offsets moved while the connector was already stopped.
func (e *Applier) CheckOperation(ctx context.Context, op *plan.Operation) error {
	if e.ReadOnly {
		return e.readOnly()
	}
	if e.Lifecycle == nil {
		return fmt.Errorf("a %s needs Connect's REST API: pass --connect-url", op.Kind)
	}
	made := map[string]bool{} // created by an earlier step, by where and name
	gone := map[string]bool{} // deleted by an earlier step
	for _, s := range op.Steps {
		a, err := e.at(s.Where)
		if err != nil {
			return err
		}
		if a.ReadOnly {
			return a.readOnly()
		}
		if a.Lifecycle == nil {
			return fmt.Errorf("step %s of %s on %s: no Connect REST API there (connect-url)", s.Kind, s.Connector, s.Where)
		}
		id := s.Where + "\x00" + s.Connector
		switch s.Kind {
		case plan.StepCreate:
			if gone[id] {
				break // an undo re-creates what it deleted
			}
			if _, err := a.Lifecycle.Status(ctx, s.Connector); err == nil {
				return &ConnectorChangedError{Connector: s.Connector + onWhere(s.Where), Now: "exists in Connect: it cannot be created (Connect answers 409)"}
			} else if !connect.IsNotFound(err) {
				return err
			}
			made[id] = true
		case plan.StepStop, plan.StepDelete, plan.StepResume, plan.StepPause, plan.StepConfig:
			if made[id] {
				break
			}
			if _, err := a.Lifecycle.Status(ctx, s.Connector); connect.IsNotFound(err) {
				return &ConnectorChangedError{Connector: s.Connector + onWhere(s.Where), Now: "is not in Connect"}
			} else if err != nil {
				return err
			}
			if s.Kind == plan.StepDelete {
				gone[id] = true
			}
		case plan.StepOffsets:
			// A stopped connector's offsets move no more: moved since the
			// plan, someone else wrote them. A running one's are planned
			// again when their step comes (Replan).
			if s.Plan != nil && !made[id] && s.Plan.Group == "" {
				if st, err := a.Lifecycle.Status(ctx, s.Connector); err == nil && st.Stopped() {
					if err := a.checkUnchanged(s.Plan); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// at is the Applier of the Connect cluster a step is on: this one, or the
// one its koff context names.
func (e *Applier) at(where string) (*Applier, error) {
	if where == "" {
		return e, nil
	}
	if e.Elsewhere == nil {
		return nil, fmt.Errorf("a step on %s: another Connect cluster is not reachable from here", where)
	}
	a, err := e.Elsewhere(where)
	if err != nil {
		return nil, fmt.Errorf("context %s: %w", where, err)
	}
	return a, nil
}

func onWhere(where string) string {
	if where == "" {
		return ""
	}
	return " on " + where
}

// runStep carries out one step; an offsets step returns its edit's id.
func (e *Applier) runStep(ctx context.Context, run *opRun, i int, res *OperationResult) (string, error) {
	s := run.op.Steps[i]
	a, err := e.at(s.Where)
	if err != nil {
		return "", err
	}
	if s.Kind != plan.StepOffsets {
		return "", a.lifecycleStep(ctx, s) // lifecycle.go
	}
	p := s.Plan
	if s.Where != "" && p.Kind == plan.KindCopy && p.From == p.Connector && e.MoveItems != nil {
		// A move's copy: the source's offsets as this cluster holds them
		// after the stop, planned again on the target.
		req, err := e.MoveItems(p.From)
		if err != nil {
			return "", err
		}
		req.Create, req.ByteExact = p.Create, p.ByteExact
		q := *p
		q.Request = req
		p = &q
	}
	if s.Where != "" && run.op.Kind == plan.KindMove && p.SinkAsked != nil && e.MoveSink != nil {
		// A sink's group moved to another Kafka cluster: its committed
		// offsets here after the stop (its tasks' last commit).
		req, err := e.MoveSink(ctx, p.SinkAsked.Connector, p.Group)
		if err != nil {
			return "", err
		}
		q := *p
		q.SinkAsked = &req
		p = &q
	}
	if a.Replan != nil {
		np, err := a.Replan(ctx, p)
		if err != nil {
			return "", err
		}
		p = np
	}
	p.PartOf = run.id
	r, err := a.Apply(ctx, p) // apply.go: the whole write path
	res.Offsets = append(res.Offsets, r)
	if err != nil {
		return r.EditID, err
	}
	if !r.Verified {
		return r.EditID, fmt.Errorf("offsets written but not verified: %s", r.Summary())
	}
	return r.EditID, nil
}

// opRun writes one operation's lines to the audit log.
type opRun struct {
	e       *Applier
	op      *plan.Operation
	id      string
	cluster string
	begun   bool
}

func (r *opRun) opEntry(result string) audit.Entry {
	host, _ := os.Hostname()
	return audit.Entry{
		ID: r.id, Time: r.e.now().UTC(), User: r.e.User, Host: host, PID: os.Getpid(),
		Connector: r.op.Connector, From: r.op.From, To: r.op.To, Kind: r.op.Kind, Path: plan.PathREST, Result: result,
		Cluster: r.cluster, OffsetsTopics: r.e.topics(), ConnectURL: r.e.connectURL(), Undoes: r.op.Undoes,
	}
}

// begin is the operation's write-ahead line: every step, synced to disk
// before the first.
func (r *opRun) logSteps() error {
	if r.e.Audit == nil {
		r.begun = true
		return nil
	}
	en := r.opEntry(audit.ResultInProgress)
	en.Steps, en.Command = audit.StepsOf(r.op), r.op.Command
	if err := r.e.Audit.Append(en); err != nil {
		return fmt.Errorf("audit log %s: %v: nothing done (koff logs every operation before its first step)", r.e.Audit.Path, err)
	}
	r.begun = true
	return nil
}

func (r *opRun) line(result string, fill func(*audit.Entry)) {
	if r.e.Audit == nil {
		return
	}
	en := r.opEntry(result)
	fill(&en)
	if err := r.e.Audit.Append(en); err != nil {
		// What happened happened; losing its line must not hide that.
		fmt.Fprintf(os.Stderr, "koff: audit log: %v\n", err)
	}
}

// fail logs the outcome of an operation a step ended, and says which
// steps happened.
func (r *opRun) fail(res *OperationResult, i int, err error) error {
	result := audit.ResultFailed
	if len(res.Done) > 0 {
		result = audit.ResultPartial
	}
	var interrupted bool
	if errors.Is(err, context.Canceled) {
		interrupted = true
		if len(res.Done) > 0 {
			result = audit.ResultInterrupted
		}
	}
	oe := &OperationError{What: r.op.What(), Steps: r.op.Steps, Done: res.Done, Failed: i, Err: err}
	if len(res.Done) > 0 {
		oe.Undo = plan.UndoCommand(r.op.Connector, r.id)
	}
	r.line(result, func(en *audit.Entry) {
		en.Error = err.Error()
		step := i
		en.Step = &step
		if interrupted {
			en.Message = "stopped by a signal"
		}
	})
	return oe
}
