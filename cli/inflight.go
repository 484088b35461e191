package cli

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"koff/edit"
	"koff/edit/apply"
	"koff/edit/plan"
)

// inflightEditor is the dashboard's edit pipeline, counting the edits being
// written: when the dashboard ends (q, SIGINT, SIGTERM) koff asks them to
// stop after the produce request in flight and waits until their outcome is
// in the audit log, rather than exit in the middle of a write.
type inflightEditor struct {
	*edit.Editor
	wg   sync.WaitGroup
	stop chan struct{}
	once sync.Once
}

func newInflightEditor(ed *edit.Editor) *inflightEditor {
	e := &inflightEditor{Editor: ed, stop: make(chan struct{})}
	ed.Interrupt = e.stop
	return e
}

func (e *inflightEditor) Apply(ctx context.Context, p *plan.Plan) (apply.Result, error) {
	e.wg.Add(1)
	defer e.wg.Done()
	return e.Editor.Apply(ctx, p)
}

// finish stops the edits in progress between produce requests and waits
// for them, at most limit.
func (e *inflightEditor) finish(stderr io.Writer, limit time.Duration) {
	e.once.Do(func() { close(e.stop) })
	done := make(chan struct{})
	go func() { e.wg.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-time.After(200 * time.Millisecond):
	}
	fmt.Fprintln(stderr, "koff: an edit was being written: waiting for its produce request and its audit record…")
	select {
	case <-done:
	case <-time.After(limit):
		// No bare koff undo to paste: it could undo another edit by then.
		fmt.Fprintln(stderr, "koff: gave up waiting; koff status names the edit and the koff undo NAME --edit ID that puts back what it wrote")
	}
}
