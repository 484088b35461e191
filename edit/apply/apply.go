package apply

import (
	"context"
	"errors"

	"koff/edit/plan"
)

// Apply is one write's life, top to bottom; each stage is a file and calls
// only the stages after it, or the data and ports below them (doc.go):
//
//	check → others → write-ahead → write → settle → verify → watch → record
//
// It checks the preconditions again, looks for other writers of the keys,
// logs the whole plan before the first write, writes, settles a request
// whose answer was lost, waits until the tailer has read every write back
// and judges the race, watches for a task's commit over the edit, and logs
// the outcome. A refused or failed attempt is audited too.
func (e *Applier) Apply(ctx context.Context, p *plan.Plan) (Result, error) {
	res := Result{Plan: p}
	run := e.newRun(ctx, p)
	var err error
	if p.Group != "" {
		err = e.applySink(ctx, p, run, &res)
	} else {
		err = e.applySource(ctx, p, run, &res)
	}
	run.finish(&res, err)
	if run.begun && e.Audit != nil {
		res.EditID = run.id
		// Its undo hint names this edit: pasted later, it undoes this one.
		var we *WriteError
		if errors.As(err, &we) {
			we.Connector, we.EditID = p.Connector, run.id
		}
	}
	return res, err
}

// applySource is a source edit's path: through REST or straight to the
// offsets topic, watching for other writers of the same keys.
func (e *Applier) applySource(ctx context.Context, p *plan.Plan, run *editRun, res *Result) error {
	if err := e.Check(ctx, p); err != nil { // check.go
		return err
	}
	bs := batches(p)
	w := e.newLogView(p, bs)
	run.view = w
	if err := w.noOtherWriters(ctx); err != nil { // others.go
		return err
	}
	if err := run.begin(w.positionsByName()); err != nil { // writeahead.go
		return err
	}
	if err := e.write(ctx, p, bs, w, run, res); err != nil { // write.go, settle.go
		return err
	}
	e.verify(ctx, p, w, res)       // verify.go
	e.keepWatching(ctx, p, w, res) // watch.go
	return nil
}

// applySink is a sink edit's path: a commit to its consumer group, or
// Connect's REST API. The group holds one committed offset per partition,
// and a commit to a group with members fails: there is no other writer to
// look for before, nor a task's commit to watch for after.
func (e *Applier) applySink(ctx context.Context, p *plan.Plan, run *editRun, res *Result) error {
	if err := e.Check(ctx, p); err != nil { // check.go
		return err
	}
	if err := run.begin(nil); err != nil { // writeahead.go
		return err
	}
	if err := e.writeSink(ctx, p, run, res); err != nil { // write.go, settle.go
		return err
	}
	res.Verified, res.Overwritten = e.verifySink(ctx, p) // verify.go
	return nil
}
