package planner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"koff/connect"
	"koff/edit/plan"
	"koff/model"
	"koff/model/java"
)

// MoveRequest is a connector's every live source offset as this Planner's
// Store holds them, as a copy to the same name (a move's offsets step,
// written on the other cluster).
func (e *Planner) MoveRequest(name string) (plan.Request, error) {
	req := plan.Request{Connector: name, Kind: plan.KindCopy, From: name}
	seen := map[string]bool{}
	for _, c := range e.StoredCopies(name) {
		if !c.Row.Live || c.Row.Deleted || c.Partition == nil || seen[c.Canon] {
			continue
		}
		seen[c.Canon] = true
		if c.Row.Stored == nil {
			continue
		}
		// The key the task reads and its value, byte for byte: a task
		// finds its offsets by those exact bytes. Where they go on the
		// other cluster (its offsets topic, the key's murmur2 partition
		// there) its Planner says (moveTargets).
		req.Items = append(req.Items, plan.Item{Partition: c.Partition, Restore: []plan.Restore{{Key: []byte(c.Row.ID.Key), Value: c.Row.Stored}}})
	}
	if len(req.Items) == 0 {
		return req, fmt.Errorf("connector %s has no offsets to move", name)
	}
	return req, nil
}

// pluginsLister is a Connect REST client that lists its workers' plugins.
type pluginsLister interface {
	ConnectorPlugins(ctx context.Context) ([]connect.Plugin, error)
}

// MoveRequestOf asks for a connector moved to another Connect cluster.
type MoveRequestOf struct {
	Name string
	// To is the koff context of the target Connect cluster.
	To string
	// SameTopics confirms that the target's Kafka cluster has the sink's
	// topics with the same offsets (a mirror that keeps them): its consumer
	// group's offsets are set there too.
	SameTopics bool
}

// PlanMove plans a move: the connector stopped here, the target checked
// (no connector of its name, its class among the target workers'
// plugins), created there STOPPED with its config and its offsets byte
// for byte (the target's offsets topic), read back there; only then its
// offsets tombstoned here and it deleted here; then started there in the
// state it was in.
func (e *Planner) PlanMove(ctx context.Context, req MoveRequestOf) (*plan.Operation, error) {
	name, to := req.Name, req.To
	if name == "" || to == "" {
		return nil, errors.New("move needs a connector and --to-context")
	}
	if e.REST == nil {
		return nil, errors.New("move needs Connect's REST API here: pass --connect-url")
	}
	if e.Elsewhere == nil {
		return nil, fmt.Errorf("context %s: koff reaches no other Connect cluster here", to)
	}
	info, err := e.needInitialState(ctx, "move")
	if err != nil {
		return nil, err
	}
	st, err := e.REST.Status(ctx, name)
	if err != nil {
		return nil, e.NotInConnect(ctx, name, err)
	}
	cfg, err := e.REST.ConnectorConfig(ctx, name)
	if err != nil {
		return nil, err
	}
	tp, err := e.Elsewhere(to)
	if err != nil {
		return nil, fmt.Errorf("context %s: %w", to, err)
	}
	if tp.REST == nil {
		return nil, fmt.Errorf("context %s has no connect-url: a move creates the connector through its Connect REST API", to)
	}
	tinfo, err := tp.needInitialState(ctx, "move to "+to)
	if err != nil {
		return nil, err
	}
	if tst, err := tp.REST.Status(ctx, name); err == nil {
		return nil, fmt.Errorf("refused: %s exists on %s already (%s): a move never replaces a connector; nothing changed", name, to, tst.Connector.State)
	} else if !connect.IsNotFound(err) {
		return nil, fmt.Errorf("context %s: %w", to, err)
	}
	if err := tp.hasPlugin(ctx, to, cfg["connector.class"]); err != nil {
		return nil, err
	}
	state := string(st.Connector.State)
	if c, _, ok := e.configOf(name); ok && c.TargetState != "" && state != "RUNNING" && state != "PAUSED" && state != "STOPPED" {
		state = c.TargetState
		if state == model.TargetStarted {
			state = "RUNNING"
		}
	}
	op := &plan.Operation{Kind: plan.KindMove, Connector: name, To: to, Made: e.now()}
	if own := strings.TrimSpace(cfg["offsets.storage.topic"]); own != "" {
		// ConnectorOffsetBackingStore reads its own topic first, on the
		// target's Kafka cluster.
		op.Warnings = append(op.Warnings, fmt.Sprintf("%s has its own offsets.storage.topic %s: on %s its tasks read that topic in %s's Kafka cluster first, and its offsets are written to %s's worker offsets topic; stored offsets there under its name win", name, own, to, to, to))
	}
	if state != "STOPPED" {
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepStop, Connector: name, State: state})
	}
	op.Steps = append(op.Steps, plan.Step{Kind: plan.StepCreate, Connector: name, Where: to, Config: maps.Clone(cfg), State: string(connect.StateStopped)})
	if st.Type == "sink" {
		steps, warns, err := e.moveSink(ctx, tp, req, cfg, tinfo.SupportsAlterOffsets())
		if err != nil {
			return nil, err
		}
		op.Steps = append(op.Steps, steps...)
		op.Warnings = append(op.Warnings, warns...)
	} else {
		copyReq, err := e.MoveRequest(name)
		switch {
		case err == nil:
			copyReq.Create, copyReq.ByteExact = true, true
			p, err := tp.planStepOffsets(ctx, copyReq, false)
			if err != nil {
				return nil, fmt.Errorf("context %s: %w", to, err)
			}
			p.Warnings = append(p.Warnings, tp.createdWarnings(ctx, p, cfg, false)...)
			covered := map[string]bool{}
			for _, ch := range p.Changes {
				covered[CanonOf(ch.Partition)] = true
			}
			op.Steps = append(op.Steps, plan.Step{Kind: plan.StepOffsets, Connector: name, Where: to, Plan: p})
			op.Warnings = append(op.Warnings, tp.leftoverWarnings(name, covered)...)
			reset, err := e.planDeletedReset(ctx, name, info.SupportsAlterOffsets())
			if err != nil {
				return nil, err
			}
			op.Steps = append(op.Steps, plan.Step{Kind: plan.StepOffsets, Connector: name, Plan: reset})
		case strings.Contains(err.Error(), "has no offsets to move"):
			op.Warnings = append(op.Warnings, fmt.Sprintf("%s has no offsets here: on %s it starts as it would have here, from none", name, to))
			op.Warnings = append(op.Warnings, tp.leftoverWarnings(name, nil)...)
		default:
			return nil, err
		}
	}
	op.Steps = append(op.Steps, plan.Step{Kind: plan.StepDelete, Connector: name, Config: cfg, State: state})
	switch state {
	case "RUNNING":
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepResume, Connector: name, Where: to})
	case "PAUSED":
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepPause, Connector: name, Where: to})
	}
	args := []string{"move", name, "--to-context", to}
	if req.SameTopics {
		args = append(args, "--same-topics")
	}
	op.Command = e.Cmd.Args(args)
	return op, nil
}

// hasPlugin refuses a class the target's workers do not have (GET
// /connector-plugins): created there, the connector would fail.
func (e *Planner) hasPlugin(ctx context.Context, where, class string) error {
	pl, ok := e.REST.(pluginsLister)
	if !ok {
		return nil
	}
	plugins, err := pl.ConnectorPlugins(ctx)
	if err != nil {
		return fmt.Errorf("context %s: GET /connector-plugins: %w", where, err)
	}
	var have []string
	for _, p := range plugins {
		if p.Class == class || plan.ClassOf(map[string]string{"connector.class": p.Class}) == class {
			return nil
		}
		have = append(have, p.Class)
	}
	return fmt.Errorf("refused: the workers of %s have no plugin %s (GET /connector-plugins lists %s): nothing changed", where, class, strings.Join(have, ", "))
}

// sameKafka: the two Planners' offsets are in one Kafka cluster.
func (e *Planner) sameKafka(ctx context.Context, other *Planner) (bool, string, error) {
	if e.ClusterID == nil || other.ClusterID == nil {
		return false, "", errors.New("the Kafka cluster ids are unknown")
	}
	a, err := e.ClusterID(ctx)
	if err != nil {
		return false, "", err
	}
	b, err := other.ClusterID(ctx)
	if err != nil {
		return false, "", err
	}
	return a == b, b, nil
}

// moveSink plans what a move does with a sink's consumer group: in the
// same Kafka cluster the target's connector reads the very group (its
// name is the config's, which the move keeps), so nothing moves; in
// another only when the operator confirms that the target has the same
// topics with the same offsets, set there as kafka-consumer-groups
// --reset-offsets would (a committed offset per topic-partition).
func (e *Planner) moveSink(ctx context.Context, tp *Planner, req MoveRequestOf, cfg map[string]string, restAlter bool) ([]plan.Step, []string, error) {
	group := strings.TrimSpace(cfg["consumer.override.group.id"])
	if group == "" {
		group = "connect-" + req.Name
	}
	same, id, err := e.sameKafka(ctx, tp)
	if err != nil {
		return nil, nil, fmt.Errorf("%s is a sink: whether %s is the same Kafka cluster cannot be told (%v)", req.Name, req.To, err)
	}
	if same {
		return nil, []string{fmt.Sprintf("%s is a sink: its consumer group %s is in the same Kafka cluster, which %s on %s reads as it is: its offsets stay where they are", req.Name, group, req.Name, req.To)}, nil
	}
	if !req.SameTopics {
		return nil, nil, fmt.Errorf("refused: %s is a sink and %s is another Kafka cluster (%s): its consumer group %s's offsets are positions in this cluster's topics; "+
			"pass --same-topics if %s's topics hold the same records at the same offsets (they are then set there for %s), else nothing changed", req.Name, req.To, id, group, req.To, group)
	}
	sreq, err := e.MoveSinkRequest(ctx, req.Name, group)
	if err != nil {
		return nil, nil, err
	}
	if len(sreq.Partitions) == 0 {
		return nil, []string{fmt.Sprintf("%s is a sink whose group %s has no committed offsets here: on %s it starts as its consumer.override.auto.offset.reset says", req.Name, group, req.To)}, nil
	}
	p, err := tp.PlanSink(ctx, sreq)
	if err != nil {
		return nil, nil, fmt.Errorf("context %s: %w", req.To, err)
	}
	if p.Absent && restAlter {
		p.Path, p.PathReason = plan.PathREST, "PATCH /connectors/"+req.Name+"/offsets on "+req.To+" (once created)"
	}
	return []plan.Step{{Kind: plan.StepOffsets, Connector: req.Name, Where: req.To, Plan: p}},
		[]string{fmt.Sprintf("%s is a sink: its group %s's committed offsets are set on %s as they are here (--same-topics); the group here is left as it is", req.Name, group, req.To)}, nil
}

// isMove: a copy of a connector's offsets to its own name, from another
// cluster's Store (MoveRequest).
func isMove(r plan.Request) bool {
	return r.Kind == plan.KindCopy && r.From != "" && r.From == r.Connector
}

// moveTargets places a move's exact records in this cluster: its offsets
// topic, each key's murmur2 partition of it.
func (e *Planner) moveTargets(ctx context.Context, p *plan.Plan) error {
	n, err := e.Kafka.PartitionCount(ctx, p.Topic)
	if err != nil {
		return err
	}
	items := make([]plan.Item, len(p.Items))
	for i, it := range p.Items {
		items[i] = it
		rs := make([]plan.Restore, len(it.Restore))
		for j, r := range it.Restore {
			r.TopicPartition = model.TopicPartition{Topic: p.Topic, Partition: java.PartitionFor(r.Key, n)}
			rs[j] = r
		}
		items[i].Restore = rs
	}
	p.Items = items
	return nil
}

// MoveSinkRequest is a sink's group's committed offsets as this cluster
// has them now, as an edit of the same group elsewhere (a move's step,
// read again after the stop: its tasks' last commit).
func (e *Planner) MoveSinkRequest(ctx context.Context, name, group string) (plan.SinkRequest, error) {
	poll, err := e.groupPoll(ctx, group)
	if err != nil {
		return plan.SinkRequest{}, err
	}
	offsets := map[model.TopicPartition]int64{}
	var tps []model.TopicPartition
	for _, gp := range poll.Partitions {
		if gp.Committed >= 0 {
			offsets[gp.TopicPartition] = gp.Committed
			tps = append(tps, gp.TopicPartition)
		}
	}
	return plan.SinkRequest{Connector: name, Kind: plan.KindImport, Partitions: tps,
		Strategy: plan.SinkStrategy{Kind: plan.SinkExplicit, Offsets: offsets}, Create: true, Group: group}, nil
}
