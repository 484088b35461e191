//lint:file-ignore ST1005 sink validation errors are Connect's exact messages

package planner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"koff/connect"
	"koff/edit/plan"
	"koff/model"
	"koff/model/java"
)

// PlanSink works out a sink edit without writing anything.
func (e *Planner) PlanSink(ctx context.Context, req plan.SinkRequest) (*plan.Plan, error) {
	if req.Connector == "" {
		return nil, errors.New("no connector named")
	}
	p := &plan.Plan{Request: plan.Request{Connector: req.Connector, Kind: req.Kind, Create: req.Create, Group: req.Group}, Made: e.now(), Path: plan.PathGroup, SinkAsked: &req}
	if req.Kind != plan.KindUndo {
		if err := e.RequireKnown(ctx, req.Kind, req.Connector, req.Group, req.Create); err != nil {
			return nil, err
		}
	}
	var groupFromConfig bool
	p.Group, groupFromConfig = e.SinkGroupOf(req.Connector, req.Group)
	restOK := false
	where := "" // the cluster of a sink's consumer.override.bootstrap.servers
	st, err := e.sinkStatus(ctx, req.Connector)
	if err != nil {
		return nil, err
	}
	if st == nil && e.REST != nil {
		p.Absent = true
		p.PathReason = "not in Connect: committed to group " + p.Group + " directly"
	}
	if st != nil {
		p.State, p.Tasks = string(st.Connector.State), len(st.Tasks)
		if st.Type == "source" {
			return nil, fmt.Errorf("%s is a source connector: its offsets are in the offsets topic, not a consumer group", req.Connector)
		}
		cfg, err := e.REST.ConnectorConfig(ctx, req.Connector)
		if err != nil {
			return nil, err
		}
		p.Group = model.SinkGroupName(req.Connector, cfg)
		if req.Group != "" && req.Group != p.Group {
			return nil, fmt.Errorf("Connect says sink %s uses group %s, not %s", req.Connector, p.Group, req.Group)
		}
		p.ResetPolicy = strings.TrimSpace(cfg["consumer.override.auto.offset.reset"])
		if where, err = e.sinkCluster(req.Connector, p.Group, cfg); err != nil {
			return nil, err
		}
		info, err := e.REST.ServerInfo(ctx)
		if err != nil {
			return nil, err
		}
		restOK = info.SupportsAlterOffsets()
		if !restOK {
			p.PathReason = fmt.Sprintf("Connect %s cannot alter offsets over REST (needs 3.6): committed to group %s directly", info.Version, p.Group)
		}
	} else if e.REST == nil {
		p.PathReason = "no --connect-url: committed to group " + p.Group + " directly"
		if c, topic, ok := e.configOf(req.Connector); ok && c.Config != nil {
			p.Target, p.ConfigTopic = c.TargetState, topic
			p.ResetPolicy = strings.TrimSpace(c.Config["consumer.override.auto.offset.reset"])
			if where, err = e.sinkCluster(req.Connector, p.Group, c.Config); err != nil {
				return nil, err
			}
			if groupFromConfig {
				p.PathReason = "no --connect-url: committed to group " + p.Group + " (config topic " + topic + ") directly"
			}
		}
	}
	poll, err := e.groupPoll(ctx, p.Group)
	if err != nil {
		return nil, err
	}
	if st == nil && req.Group == "" && !groupFromConfig {
		// Without Connect's word the group is only a guess: a
		// consumer.override.group.id (or a worker-wide consumer.group.id)
		// makes the sink use another. Take connect-<name> only when it
		// has committed offsets, i.e. a sink committed there.
		if len(poll.Partitions) == 0 {
			return nil, fmt.Errorf("sink %s: group %s has no committed offsets, and without Connect's REST API koff cannot see the connector's consumer.override.group.id: pass --group with the sink's consumer group (or --connect-url)", req.Connector, p.Group)
		}
		p.Warnings = append(p.Warnings, fmt.Sprintf("group %s is taken from its committed offsets: without Connect's REST API koff cannot see a consumer.override.group.id; pass --group to name the sink's group", p.Group))
	}
	p.GroupMembers = poll.Members
	if err := e.planSinkChanges(ctx, p, req, poll); err != nil {
		return nil, err
	}
	if restOK {
		p.Path = plan.PathREST
		method := "PATCH"
		if sinkResetAll(p, poll) {
			method = "DELETE"
		}
		p.PathReason = method + " /connectors/" + req.Connector + "/offsets"
	}
	if where != "" {
		p.PathReason += "; " + where
	}
	switch {
	case p.Absent:
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s is not in Connect: the group's offsets are edited directly.", req.Connector))
	case p.State == "" && p.Target == "":
		p.Warnings = append(p.Warnings, "Connector state unknown (no --connect-url, no config topic): Kafka refuses the commit while the group has members.")
	case p.State == "" && p.Target != model.TargetStopped:
		p.Warnings = append(p.Warnings, fmt.Sprintf("Target state %s (config topic %s): its tasks commit over this edit. Stop it first.", p.Target, p.ConfigTopic))
	}
	if p.Path == plan.PathGroup && poll.Members > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("Group %s has %d active members: Kafka refuses offset changes from outside until the connector is stopped.", p.Group, poll.Members))
	}
	for _, c := range p.Sink {
		if c.Warning != "" {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s: %s", c.TopicPartition, c.Warning))
		}
	}
	fillSinkChanges(p)
	p.Command = e.Cmd.For(p)
	return p, nil
}

// sinkStatus is the connector's REST status, or nil without REST or when
// Connect has no such connector.
func (e *Planner) sinkStatus(ctx context.Context, name string) (*connect.ConnectorStatus, error) {
	if e.REST == nil {
		return nil, nil
	}
	st, err := e.REST.Status(ctx, name)
	if connect.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &st, nil
}

func (e *Planner) planSinkChanges(ctx context.Context, p *plan.Plan, req plan.SinkRequest, poll model.GroupPoll) error {
	committed := map[model.TopicPartition]model.GroupPartition{}
	for _, gp := range poll.Partitions {
		committed[gp.TopicPartition] = gp
	}
	tps := req.Partitions
	if len(tps) == 0 {
		if req.Strategy.Kind == plan.SinkExplicit {
			for tp := range req.Strategy.Offsets {
				tps = append(tps, tp)
			}
		} else {
			for _, gp := range poll.Partitions {
				tps = append(tps, gp.TopicPartition)
			}
		}
	}
	if len(tps) == 0 && p.Kind == plan.KindResetAll {
		return &NothingToResetError{Connector: p.Connector, Where: "group " + p.Group}
	}
	if len(tps) == 0 {
		return fmt.Errorf("group %s has no committed offsets: name the partitions to set", p.Group)
	}
	sort.Slice(tps, func(i, j int) bool {
		if tps[i].Topic != tps[j].Topic {
			return tps[i].Topic < tps[j].Topic
		}
		return tps[i].Partition < tps[j].Partition
	})
	// Log bounds for partitions the group has not committed yet.
	var unknown []model.TopicPartition
	for _, tp := range tps {
		if _, ok := committed[tp]; !ok {
			unknown = append(unknown, tp)
		}
	}
	if err := e.requireSinkPartitions(ctx, p, req.Create, poll.Partitions, unknown); err != nil {
		return err
	}
	if len(unknown) > 0 {
		bounds, err := e.Kafka.LogBounds(ctx, unknown)
		if err != nil {
			return err
		}
		for _, tp := range unknown {
			b := bounds[tp]
			committed[tp] = model.GroupPartition{TopicPartition: tp, Committed: -1, Start: b[0], End: b[1]}
		}
	}
	var at map[model.TopicPartition]int64
	if req.Strategy.Kind == plan.SinkToTimestamp {
		var err error
		if at, err = e.Kafka.OffsetsAt(ctx, tps, req.Strategy.Time); err != nil {
			return err
		}
	}
	for _, tp := range tps {
		gp := committed[tp]
		c := plan.SinkChange{TopicPartition: tp, Before: gp.Committed, Start: gp.Start, End: gp.End}
		switch s := req.Strategy; s.Kind {
		case plan.SinkToOffset:
			c.After = s.Offset
		case plan.SinkToEarliest:
			c.After = gp.Start
		case plan.SinkToLatest:
			c.After = gp.End
		case plan.SinkToTimestamp:
			c.After = at[tp]
		case plan.SinkShiftBy:
			if gp.Committed < 0 {
				return fmt.Errorf("%s has no committed offset to shift from", tp)
			}
			c.After = gp.Committed + s.Shift
		case plan.SinkReset:
			c.After = -1
		case plan.SinkExplicit:
			off, ok := s.Offsets[tp]
			if !ok {
				return fmt.Errorf("no offset given for %s", tp)
			}
			c.After = off
		default:
			return fmt.Errorf("unknown strategy %q", s.Kind)
		}
		kind := req.Strategy.Kind
		deleted := kind == plan.SinkReset || kind == plan.SinkExplicit && c.After == -1
		if c.After < 0 && !deleted && kind != plan.SinkShiftBy {
			return fmt.Errorf("%s: offset %d is negative", tp, c.After)
		}
		if !deleted {
			c.ClampToLog()
		} else if c.Before >= 0 {
			deletedNote(&c, p.ResetPolicy)
		}
		p.Sink = append(p.Sink, c)
	}
	return nil
}

// deletedNote says where a sink starts once its committed offset is
// deleted: auto.offset.reset, earliest unless the connector overrides it.
func deletedNote(c *plan.SinkChange, policy string) {
	switch strings.ToLower(policy) {
	case "latest":
		c.FromEnd = true
		c.Warning = fmt.Sprintf("with consumer.override.auto.offset.reset=latest the sink starts at the log end %d: %d records never delivered", c.End, max(c.End-c.Before, 0))
	case "none":
		c.Warning = "with consumer.override.auto.offset.reset=none the sink's task fails with no committed offset"
	}
}

// sinkResetAll: every committed offset of the group is deleted, which REST
// does with DELETE (deleting the group).
func sinkResetAll(p *plan.Plan, poll model.GroupPoll) bool {
	if len(p.Sink) < len(poll.Partitions) {
		return false
	}
	for _, c := range p.Sink {
		if c.After >= 0 {
			return false
		}
	}
	return true
}

// fillSinkChanges renders sink changes in Connect's sink offset shape, so
// dialogs, the CLI and the audit log show them like source changes.
func fillSinkChanges(p *plan.Plan) {
	p.Changes = nil
	for _, c := range p.Sink {
		ch := plan.Change{PartitionJSON: plan.SinkPartitionJSON(c.TopicPartition)}
		ch.Partition = java.Object{{Name: "kafka_topic", Value: c.Topic}, {Name: "kafka_partition", Value: json.Number(strconv.Itoa(c.Partition))}}
		if c.Before >= 0 {
			ch.Before = plan.SinkOffsetJSON(c.Before)
		}
		if c.After >= 0 {
			ch.After = plan.SinkOffsetJSON(c.After)
		}
		p.Changes = append(p.Changes, ch)
	}
}

// SinkItem reads a sink-shaped Item (Connect's sink offset shape): the
// topic-partition and the offset (-1 for null). Numbers may be strings, as
// Connect accepts. Errors are Connect's own words (SinkUtils), which
// operators know from the REST API.
func SinkItem(it plan.Item) (model.TopicPartition, int64, error) {
	if it.Partition == nil {
		return model.TopicPartition{}, 0, errors.New("The partition for a sink connector offset cannot be null or missing")
	}
	topic, hasTopic := it.Partition.Get("kafka_topic")
	part, hasPart := it.Partition.Get("kafka_partition")
	if !hasTopic || !hasPart {
		return model.TopicPartition{}, 0, errors.New("The partition for a sink connector offset must contain the keys 'kafka_topic' and 'kafka_partition'")
	}
	if topic == nil {
		return model.TopicPartition{}, 0, errors.New("Kafka topic names must be valid strings and may not be null")
	}
	if part == nil {
		return model.TopicPartition{}, 0, errors.New("Kafka partitions must be valid numbers and may not be null")
	}
	var ts string
	switch x := topic.(type) {
	case string:
		ts = x
	case json.Number: // Connect takes String.valueOf the value
		ts = string(x)
	default:
		return model.TopicPartition{}, 0, errors.New("Kafka topic names must be valid strings and may not be null")
	}
	pn, err := intOf(part)
	if err == nil && (pn < -1<<31 || pn >= 1<<31) {
		err = errors.New("beyond an int") // Integer.parseInt
	}
	if err != nil {
		return model.TopicPartition{}, 0, fmt.Errorf("Failed to parse the following Kafka partition value in the provided offsets: '%v'. Partition values for sink connectors need to be integers.", part)
	}
	tp := model.TopicPartition{Topic: ts, Partition: int(pn)}
	if it.Offset == nil {
		return tp, -1, nil
	}
	ov, ok := it.Offset.Get("kafka_offset")
	if !ok {
		return tp, 0, errors.New("The offset for a sink connector should either be null or contain the key 'kafka_offset'")
	}
	off, err := intOf(ov)
	if err != nil {
		return tp, 0, fmt.Errorf("Failed to parse the following Kafka offset value in the provided offsets: '%v'. Offset values for sink connectors need to be integers.", ov)
	}
	if off < 0 {
		// Kafka's OffsetAndMetadata: "Invalid negative offset".
		return tp, 0, fmt.Errorf("%s: offset %d is negative: a committed offset is the next record to read, 0 or more", tp, off)
	}
	return tp, off, nil
}

func intOf(v any) (int64, error) {
	switch x := v.(type) {
	case json.Number:
		return strconv.ParseInt(string(x), 10, 64)
	case string: // Long.parseLong: no spaces
		return strconv.ParseInt(x, 10, 64)
	}
	return 0, fmt.Errorf("not an integer: %v", v)
}

// planSinkItems turns a Request of sink-shaped items (koff set/import/undo
// with Connect's sink shape) into a sink plan with explicit offsets.
func (e *Planner) planSinkItems(ctx context.Context, req plan.Request) (*plan.Plan, error) {
	offsets := map[model.TopicPartition]int64{}
	for _, it := range req.Items {
		tp, off, err := SinkItem(it)
		if err != nil {
			return nil, err
		}
		offsets[tp] = off
	}
	return e.PlanSink(ctx, plan.SinkRequest{Connector: req.Connector, Kind: req.Kind, Strategy: plan.SinkStrategy{Kind: plan.SinkExplicit, Offsets: offsets}, Create: req.Create, Group: req.Group})
}
