package edit

import (
	"context"

	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/undo"
)

// undoer hands undo what it reads: the audit log, the ports, and what
// planning knows of names and stored copies.
func (e *Editor) undoer() *undo.Finder {
	return &undo.Finder{
		Store: e.Store, Kafka: e.Kafka, REST: e.REST, Audit: e.Audit, ClusterID: e.ClusterID, ConnectURL: e.connectURL(),
		Planner: e.planner(), Now: e.Now,
	}
}

// FindUndo finds the edit to undo on the cluster koff is connected to, and
// checks it against what the offsets hold now (edit/undo).
func (e *Editor) FindUndo(ctx context.Context, q undo.Query) (*undo.Undo, error) {
	return e.undoer().FindUndo(ctx, q)
}

// UndoRequestContext is the request that undoes the last edit of the
// connected cluster, refusing what FindUndo's Refusal refuses without
// --force.
func (e *Editor) UndoRequestContext(ctx context.Context, connector string) (plan.Request, audit.Entry, error) {
	return e.undoer().UndoRequestContext(ctx, connector)
}

// UndoRequest is UndoRequestContext within 30 seconds.
func (e *Editor) UndoRequest(connector string) (plan.Request, audit.Entry, error) {
	return e.undoer().UndoRequest(connector)
}

// Reconcile settles an edit whose process ended without an outcome line
// with what reached the log, and appends its outcome.
func (e *Editor) Reconcile(ctx context.Context, ed audit.Edit) (audit.Edit, error) {
	return e.undoer().Reconcile(ctx, ed)
}
