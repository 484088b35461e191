package undo

import (
	"context"
	"fmt"
	"slices"

	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/planner"
)

// isOperation: the edit is a multi-step operation (create, rename, or the
// undo of one), which is undone step by step.
func isOperation(ed audit.Edit) bool { return ed.Start.Steps != nil }

// operationOf builds the operation that brings back the start of an
// operation: each step it carried out undone, in reverse order. A create
// is undone by a delete; a delete by a create (STOPPED, with the config
// it took away); a stop by a resume or pause to the state it had; a
// resume or pause by a stop; an offsets step by putting back the values
// its own edit found (for a new connector: tombstones for the keys it
// wrote), planned as every undo is.
func (e *Finder) operationOf(ctx context.Context, ed audit.Edit, all []audit.Edit) (*plan.Operation, error) {
	done, stepEdits := ed.DoneSteps()
	if len(done) == 0 && !hasPart(ed, all) {
		return nil, fmt.Errorf("the %s carried out no step: nothing to undo", ed.Start.What())
	}
	op := &plan.Operation{Kind: plan.KindUndoOperation, Connector: ed.Start.Connector, From: ed.Start.From,
		Undoes: ed.ID(), UndoesWhat: ed.Start.What(), Made: e.now()}
	made := map[string]bool{} // created by an earlier step of the undo
	// An offsets step whose process died before its step line: its own
	// edit says what it wrote, and is put back first (its connector is
	// stopped: created so, or stopped by an earlier step).
	recorded := map[string]bool{}
	for _, id := range stepEdits {
		recorded[id] = true
	}
	// The step cut short is the first not done (steps run in order): its
	// edit's cluster is that step's.
	cutWhere := ""
	for i, s := range ed.Start.Steps {
		if !slices.Contains(done, i) {
			cutWhere = s.Where
			break
		}
	}
	for j := range all {
		sub := all[j]
		if sub.Start.PartOf != ed.ID() || recorded[sub.ID()] || sub.Start.Steps != nil {
			continue
		}
		if err := e.settleEdit(ctx, all, j); err != nil {
			return nil, err
		}
		sub = all[j]
		if !wroteSome(sub) {
			continue
		}
		req, err := audit.UndoRequestOf(sub)
		if err != nil {
			return nil, err
		}
		req.Undoes, req.UndoesWhat, req.Create = sub.ID(), sub.Start.What(), true
		pl, err := e.plannerAt(cutWhere)
		if err != nil {
			return nil, err
		}
		p, err := pl.PlanStep(ctx, req, false)
		if err != nil {
			return nil, fmt.Errorf("the %s, cut short: %w", sub.Start.What(), err)
		}
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepOffsets, Connector: sub.Start.Connector, Where: cutWhere, Plan: p, Undoes: sub.ID()})
	}
	for k := len(done) - 1; k >= 0; k-- {
		i := done[k]
		s := ed.Start.Steps[i]
		at := s.Where
		switch s.Kind {
		case plan.StepCreate:
			op.Steps = append(op.Steps, plan.Step{Kind: plan.StepDelete, Connector: s.Connector, Where: at, Config: s.Config, State: s.State})
		case plan.StepDelete:
			op.Steps = append(op.Steps, plan.Step{Kind: plan.StepCreate, Connector: s.Connector, Where: at, Config: s.Config, State: "STOPPED"})
			made[at+"\x00"+s.Connector] = true
		case plan.StepStop:
			switch s.State {
			case "RUNNING":
				op.Steps = append(op.Steps, plan.Step{Kind: plan.StepResume, Connector: s.Connector, Where: at})
			case "PAUSED":
				op.Steps = append(op.Steps, plan.Step{Kind: plan.StepPause, Connector: s.Connector, Where: at})
			}
		case plan.StepConfig:
			op.Steps = append(op.Steps, plan.Step{Kind: plan.StepConfig, Connector: s.Connector, Where: at, Config: s.Previous, Previous: s.Config})
		case plan.StepResume, plan.StepPause:
			op.Steps = append(op.Steps, plan.Step{Kind: plan.StepStop, Connector: s.Connector, Where: at, State: "RUNNING"})
		case plan.StepOffsets:
			id := stepEdits[i]
			j := slices.IndexFunc(all, func(x audit.Edit) bool { return x.ID() == id })
			if j < 0 {
				return nil, fmt.Errorf("the %s: the edit %s of its step %d (%s) is not in the audit log", ed.Start.What(), id, i+1, s.Text)
			}
			req, err := audit.UndoRequestOf(all[j])
			if err != nil {
				return nil, err
			}
			req.Undoes, req.UndoesWhat, req.Create = id, all[j].Start.What(), true
			pl, err := e.plannerAt(at)
			if err != nil {
				return nil, err
			}
			p, err := pl.PlanStep(ctx, req, made[at+"\x00"+s.Connector])
			if err != nil {
				return nil, fmt.Errorf("step %d (%s): %w", i+1, s.Text, err)
			}
			op.Steps = append(op.Steps, plan.Step{Kind: plan.StepOffsets, Connector: s.Connector, Where: at, Plan: p, Undoes: id})
		}
	}
	// The connector the operation left running (or paused) is stopped
	// first, so that its offsets can be put back and it can go.
	op.Command = plan.UndoCommand(ed.Start.Connector, ed.ID())
	if ed.Result() != audit.ResultVerified {
		op.Warnings = append(op.Warnings, fmt.Sprintf("the %s did not finish (%s): %s", ed.Start.What(), ed.Result(), ed.StepsText()))
	}
	return op, nil
}

// hasPart: an offsets edit of the operation wrote something, though no
// step line says it completed.
func hasPart(ed audit.Edit, all []audit.Edit) bool {
	for _, sub := range all {
		if sub.Start.PartOf == ed.ID() && wroteSome(sub) {
			return true
		}
	}
	return false
}

// plannerAt is the Planner of the Connect cluster a step was on.
func (e *Finder) plannerAt(where string) (*planner.Planner, error) {
	if where == "" {
		return e.Planner, nil
	}
	if e.Planner.Elsewhere == nil {
		return nil, fmt.Errorf("a step on %s: another Connect cluster is not reachable from here (its koff context)", where)
	}
	pl, err := e.Planner.Elsewhere(where)
	if err != nil {
		return nil, fmt.Errorf("context %s: %w", where, err)
	}
	return pl, nil
}
