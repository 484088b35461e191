package planner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"koff/connect"
	"koff/edit/plan"
	"koff/model"
)

// CreateRequest asks for a connector created where it should start.
type CreateRequest struct {
	Name   string
	Config map[string]string
	// Offsets, when set, are the offsets it starts from (an export's, as
	// koff import reads them); OffsetsFrom names a connector to copy them
	// from instead.
	Offsets     *plan.Request
	OffsetsFrom string
	// NoOffsets starts it from none: offsets stored under its name (a
	// connector of that name before) are tombstoned before it starts.
	NoOffsets bool
	// Start says whether it runs once its offsets are verified ("running")
	// or stays STOPPED ("stopped").
	Start string
	// Args is the command line's own part (create -f FILE …), for
	// Operation.Command; FromDashboard says there is no file: Args are
	// what follows -f, which Operation.Command gives the config to.
	Args          []string
	FromDashboard bool
}

// needInitialState refuses a Connect that cannot create a connector
// STOPPED: a connector that ran before its offsets are in place would
// commit its own over them.
func (e *Planner) needInitialState(ctx context.Context, what string) (connect.ServerInfo, error) {
	if e.REST == nil {
		return connect.ServerInfo{}, fmt.Errorf("%s needs Connect's REST API: pass --connect-url", what)
	}
	info, err := e.REST.ServerInfo(ctx)
	if err != nil {
		return info, err
	}
	if !info.SupportsInitialState() {
		return info, fmt.Errorf("refused: Connect %s cannot create a connector STOPPED (POST /connectors with initial_state, KIP-980, came in Apache Kafka 3.7): "+
			"its tasks would start from whatever offsets are stored before koff could write the new ones", info.Version)
	}
	return info, nil
}

// notInConnect refuses a name Connect has.
func (e *Planner) notInConnect(ctx context.Context, name string) error {
	_, err := e.REST.Status(ctx, name)
	switch {
	case err == nil:
		return fmt.Errorf("connector %s exists in Connect: choose another name, or delete it first", name)
	case !connect.IsNotFound(err):
		return err
	}
	return nil
}

// PlanCreate plans a create: the connector created STOPPED (KIP-980), its
// offsets written (REST PATCH, or the offsets topic when the worker lacks
// KIP-875) and read back, then resumed if asked.
func (e *Planner) PlanCreate(ctx context.Context, req CreateRequest) (*plan.Operation, error) {
	if req.Name == "" {
		return nil, errors.New("the config names no connector (\"name\")")
	}
	if strings.TrimSpace(req.Config["connector.class"]) == "" {
		return nil, fmt.Errorf("the config of %s has no connector.class", req.Name)
	}
	info, err := e.needInitialState(ctx, "create")
	if err != nil {
		return nil, err
	}
	if err := e.notInConnect(ctx, req.Name); err != nil {
		return nil, err
	}
	cfg := maps.Clone(req.Config)
	cfg["name"] = req.Name
	op := &plan.Operation{Kind: plan.KindCreate, Connector: req.Name, From: req.OffsetsFrom, Made: e.now()}
	op.Steps = append(op.Steps, plan.Step{Kind: plan.StepCreate, Connector: req.Name, Config: cfg, State: string(connect.StateStopped)})
	var offsets *plan.Request
	switch {
	case req.Offsets != nil:
		r := *req.Offsets
		r.Connector = req.Name
		offsets = &r
	case req.OffsetsFrom != "":
		r, err := e.CopyRequest(req.OffsetsFrom, req.Name)
		if err != nil {
			return nil, err
		}
		offsets = &r
	}
	covered := map[string]bool{}
	if offsets != nil {
		offsets.Create = true
		if isSinkConfig(cfg) && offsets.Group == "" {
			// Not created yet, Connect cannot name its group: the config
			// does, as Worker#baseConsumerConfigs reads it.
			offsets.Group = strings.TrimSpace(cfg["consumer.override.group.id"])
			if offsets.Group == "" {
				offsets.Group = "connect-" + req.Name
			}
		}
		p, err := e.planStepOffsets(ctx, *offsets, info.SupportsAlterOffsets())
		if err != nil {
			return nil, err
		}
		p.Warnings = append(p.Warnings, e.createdWarnings(ctx, p, cfg, true)...)
		for _, ch := range p.Changes {
			covered[CanonOf(ch.Partition)] = true
		}
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepOffsets, Connector: req.Name, Plan: p})
	}
	if req.NoOffsets && offsets == nil {
		reset, err := e.planStepOffsets(ctx, plan.Request{Connector: req.Name, Kind: plan.KindResetAll, Create: true}, info.SupportsAlterOffsets())
		var none *NothingToResetError
		switch {
		case errors.As(err, &none):
		case err != nil:
			return nil, err
		default:
			op.Steps = append(op.Steps, plan.Step{Kind: plan.StepOffsets, Connector: req.Name, Plan: reset})
			for _, ch := range reset.Changes {
				covered[CanonOf(ch.Partition)] = true
			}
		}
	}
	op.Warnings = append(op.Warnings, e.leftoverWarnings(req.Name, covered)...)
	if req.Start == "running" || req.Start == "" {
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepResume, Connector: req.Name})
	}
	if req.FromDashboard {
		op.Command = e.Cmd.CreateCommand(cfg, req.Args)
	} else {
		op.Command = e.Cmd.Args(req.Args)
	}
	return op, nil
}

// createdWarnings are what a plan of a connector's offsets says of its
// class, and whether each new position still exists where it reads, for a
// connector not in Connect yet: its config is the one it is created with.
// A rename's or a move's copy keeps the positions as they are: only
// those that are gone are said (notes on the class, and positions koff
// cannot look up, are no news).
func (e *Planner) createdWarnings(ctx context.Context, p *plan.Plan, cfg map[string]string, notes bool) []string {
	if p.Group != "" || len(p.Config) > 0 {
		return nil // a sink's offsets are clamped to the log; a known config was judged already
	}
	q := *p
	q.Config = cfg
	var out []string
	if notes {
		out = classNotes(&q)
	}
	return append(out, e.positionWarnings(ctx, &q, notes)...)
}

// leftoverWarnings: offsets of the name the operation does not write,
// which a connector created under it starts from.
func (e *Planner) leftoverWarnings(name string, covered map[string]bool) []string {
	var left []string
	for _, c := range e.StoredCopies(name) {
		if c.Row.Live && !c.Row.Deleted && !covered[c.Canon] {
			left = append(left, c.Canon+" → "+c.Row.Offset)
		}
	}
	if len(left) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s has stored offsets this does not write, which its tasks will start from: %s (koff reset %s first starts them clean)",
		name, strings.Join(left, "; "), name)}
}

// planStepOffsets plans an operation's offsets step for a connector that
// may not exist yet: as it will be written once it does (REST when the
// worker alters offsets and the request may go that way).
func (e *Planner) planStepOffsets(ctx context.Context, req plan.Request, restAlter bool) (*plan.Plan, error) {
	p, err := e.PlanStep(ctx, req, req.Create)
	if err != nil {
		return nil, err
	}
	if p.Absent && restAlter && p.Group != "" {
		// A sink created STOPPED takes Connect's PATCH too (its step is
		// planned again once it exists, as every offsets step is).
		p.Path, p.PathReason = plan.PathREST, "PATCH /connectors/"+req.Connector+"/offsets (once created)"
	}
	if p.Absent && restAlter && p.Group == "" {
		// Created STOPPED by the step before, it takes Connect's PATCH.
		e.choosePath(p, true, e.StoredCopies(req.Connector))
		if p.Path == plan.PathREST {
			if err := e.planRESTWrites(ctx, p); err != nil {
				return nil, err
			}
			p.Absent, p.PathReason = false, p.PathReason+" (once created)"
		}
	}
	return p, nil
}

// PlanRename plans a rename: OLD stopped, NEW created STOPPED with OLD's
// config and OLD's offsets byte for byte (written to the offsets topic:
// REST would re-serialise them), read back; OLD's offsets tombstoned (a
// later OLD starts clean) and OLD deleted; NEW put in the state OLD was in.
func (e *Planner) PlanRename(ctx context.Context, old, new string) (*plan.Operation, error) {
	if old == "" || new == "" {
		return nil, errors.New("rename needs the old and the new name")
	}
	if old == new {
		return nil, errors.New("rename to the same name changes nothing")
	}
	info, err := e.needInitialState(ctx, "rename")
	if err != nil {
		return nil, err
	}
	st, err := e.REST.Status(ctx, old)
	if err != nil {
		return nil, e.NotInConnect(ctx, old, err)
	}
	if err := e.notInConnect(ctx, new); err != nil {
		return nil, err
	}
	cfg, err := e.REST.ConnectorConfig(ctx, old)
	if err != nil {
		return nil, err
	}
	state := string(st.Connector.State)
	if c, _, ok := e.configOf(old); ok && c.TargetState != "" && state != "RUNNING" && state != "PAUSED" && state != "STOPPED" {
		state = c.TargetState // UNASSIGNED or FAILED: what it is meant to be
		if state == model.TargetStarted {
			state = "RUNNING"
		}
	}
	newCfg := maps.Clone(cfg)
	newCfg["name"] = new
	op := &plan.Operation{Kind: plan.KindRename, Connector: new, From: old, Made: e.now()}
	if st.Type == "sink" {
		group := strings.TrimSpace(cfg["consumer.override.group.id"])
		if group == "" {
			return nil, fmt.Errorf("%s is a sink: its offsets are its consumer group connect-%s, which a connector named %s would not read; "+
				"set consumer.override.group.id=connect-%s in its config first, and rename keeps that group", old, old, new, old)
		}
		op.Warnings = append(op.Warnings, fmt.Sprintf("%s is a sink with its own consumer group %s (consumer.override.group.id): %s keeps it, so its offsets stay where they are", old, group, new))
	}
	if state != "STOPPED" {
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepStop, Connector: old, State: state})
	}
	op.Steps = append(op.Steps, plan.Step{Kind: plan.StepCreate, Connector: new, Config: newCfg, State: string(connect.StateStopped)})
	if st.Type != "sink" {
		copyReq, err := e.CopyRequest(old, new)
		switch {
		case err == nil:
			copyReq.Create, copyReq.ByteExact = true, true
			p, err := e.planStepOffsets(ctx, copyReq, false)
			if err != nil {
				return nil, err
			}
			p.Warnings = append(p.Warnings, e.createdWarnings(ctx, p, newCfg, false)...)
			op.Steps = append(op.Steps, plan.Step{Kind: plan.StepOffsets, Connector: new, Plan: p})
			reset, err := e.planDeletedReset(ctx, old, info.SupportsAlterOffsets())
			if err != nil {
				return nil, err
			}
			op.Steps = append(op.Steps, plan.Step{Kind: plan.StepOffsets, Connector: old, Plan: reset})
		case strings.Contains(err.Error(), "has no offsets to copy"):
			op.Warnings = append(op.Warnings, fmt.Sprintf("%s has no offsets: %s starts as %s would have, from none", old, new, old))
		default:
			return nil, err
		}
		op.Warnings = append(op.Warnings, e.leftoverWarnings(new, nil)...)
	}
	op.Steps = append(op.Steps, plan.Step{Kind: plan.StepDelete, Connector: old, Config: cfg, State: state})
	switch state {
	case "RUNNING":
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepResume, Connector: new})
	case "PAUSED":
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepPause, Connector: new})
	}
	op.Command = e.Cmd.Args([]string{"rename", old, new})
	return op, nil
}

// ReplanStep plans an operation's offsets step again just before it runs:
// a copy reads its source's offsets as they are after an earlier step
// stopped it (its tasks' last flush), anything else the same request on
// the offsets as they are now.
func (e *Planner) ReplanStep(ctx context.Context, p *plan.Plan) (*plan.Plan, error) {
	if p.Kind != plan.KindCopy || p.From == "" || p.From == p.Connector {
		// A move's copy is of the same name on another cluster: its
		// items come from the source's Store (apply.Applier.MoveItems).
		return e.Replan(ctx, p)
	}
	req, err := e.CopyRequest(p.From, p.Connector)
	if err != nil {
		return nil, err
	}
	if p.Rekey != nil {
		// A rename with a rekey: the new keys again, from the last flush.
		if err := rekeyCopy(&req, p.Rekey); err != nil {
			return nil, err
		}
	}
	req.Create, req.ByteExact = p.Create, p.ByteExact
	return e.Plan(ctx, req)
}

// planDeletedReset plans the tombstones of a connector an operation then
// deletes (a rename's, a move's old one): what its class does on a restart
// without offsets is no news of a connector that never restarts.
func (e *Planner) planDeletedReset(ctx context.Context, name string, restAlter bool) (*plan.Plan, error) {
	p, err := e.planStepOffsets(ctx, plan.Request{Connector: name, Kind: plan.KindResetAll}, restAlter)
	if err != nil {
		return nil, err
	}
	notes := classNotes(p)
	kept := p.Warnings[:0]
	for _, w := range p.Warnings {
		if !slices.Contains(notes, w) {
			kept = append(kept, w)
		}
	}
	p.Warnings = kept
	return p, nil
}

// PlanStep plans an operation's offsets step; created says an earlier
// step creates the connector, so that what the plan of an edit alone
// warns of a name not in Connect is no news.
func (e *Planner) PlanStep(ctx context.Context, req plan.Request, created bool) (*plan.Plan, error) {
	p, err := e.Plan(ctx, req)
	if err != nil || !created {
		return p, err
	}
	kept := p.Warnings[:0]
	for _, w := range p.Warnings {
		if strings.HasPrefix(w, p.Connector+" is not in Connect: ") || strings.HasPrefix(w, p.Connector+" is a new name to koff (--create)") {
			continue
		}
		kept = append(kept, w)
	}
	p.Warnings = kept
	return p, nil
}

// isSinkConfig: the config is a sink's, by the settings only a sink has
// (topics or topics.regex; MirrorMaker 2's sources have topics too).
func isSinkConfig(cfg map[string]string) bool {
	if strings.Contains(cfg["connector.class"], ".Mirror") {
		return false
	}
	_, topics := cfg["topics"]
	_, regex := cfg["topics.regex"]
	return topics || regex
}
