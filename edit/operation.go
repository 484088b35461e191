package edit

import (
	"context"

	"koff/edit/apply"
	"koff/edit/plan"
	"koff/edit/planner"
)

// PlanCreate plans a connector created where it should start: created
// STOPPED, its offsets written and read back, then started if asked
// (edit/planner/operation.go). It writes nothing.
func (e *Editor) PlanCreate(ctx context.Context, req planner.CreateRequest) (*plan.Operation, error) {
	return e.planner().PlanCreate(ctx, req)
}

// PlanRename plans a rename of a connector with its config and offsets.
func (e *Editor) PlanRename(ctx context.Context, old, new string) (*plan.Operation, error) {
	return e.planner().PlanRename(ctx, old, new)
}

// ApplyOperation runs an operation's steps under one audit entry
// (edit/apply/steps.go).
func (e *Editor) ApplyOperation(ctx context.Context, op *plan.Operation) (apply.OperationResult, error) {
	return e.applier().ApplyOperation(ctx, op)
}

// CheckOperation runs the checks an operation passes before its first
// step, read-only (a dry run).
func (e *Editor) CheckOperation(ctx context.Context, op *plan.Operation) error {
	a := e.applier()
	a.ReadOnly = false
	return a.CheckOperation(ctx, op)
}

// PlanRekey plans a rekey of a connector's source partitions, with the
// config changes that go with it (edit/planner/rekey.go).
func (e *Editor) PlanRekey(ctx context.Context, req planner.RekeyRequest) (*plan.Operation, error) {
	return e.planner().PlanRekey(ctx, req)
}

// PlanMove plans a move of a connector to another Connect cluster, named
// by its koff context (edit/planner/move.go).
func (e *Editor) PlanMove(ctx context.Context, req planner.MoveRequestOf) (*plan.Operation, error) {
	return e.planner().PlanMove(ctx, req)
}
