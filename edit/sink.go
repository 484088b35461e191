//lint:file-ignore ST1005 sink validation errors are Connect's exact messages

package edit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"koff/connect"
	"koff/model"
	"koff/model/java"
)

// PathGroup: a sink's consumer group offsets, committed directly.
const PathGroup Path = "group"

// SinkKind is how new committed offsets are chosen for a sink.
type SinkKind string

const (
	SinkToOffset    SinkKind = "offset"    // a given offset
	SinkToEarliest  SinkKind = "earliest"  // the log start
	SinkToLatest    SinkKind = "latest"    // the log end: skip everything unread
	SinkToTimestamp SinkKind = "timestamp" // the first record at or after a time
	SinkShiftBy     SinkKind = "shift"     // the committed offset ± N
	SinkReset       SinkKind = "reset"     // delete the committed offsets
	SinkExplicit    SinkKind = "explicit"  // an offset per partition (import, undo)
)

// SinkStrategy picks the new committed offset of each partition.
type SinkStrategy struct {
	Kind   SinkKind
	Offset int64
	Time   time.Time
	Shift  int64
	// Offsets for SinkExplicit; -1 deletes the partition's committed offset.
	Offsets map[model.TopicPartition]int64
}

// SinkRequest asks for an edit of a sink connector's committed offsets.
type SinkRequest struct {
	Connector string
	Kind      Kind
	// Partitions to change; none means every partition the group has
	// committed offsets for (or, for SinkExplicit, those in Offsets).
	Partitions []model.TopicPartition
	// Topics are the --topic flags Partitions were chosen by, so that the
	// plan's command line chooses them the same way.
	Topics   []string
	Strategy SinkStrategy
	// Create and Group as in Request: a name koff has never seen is
	// refused without Create, and without REST the group is taken only
	// from evidence (connect-<name> with committed offsets) or Group.
	Create bool
	Group  string
}

// SinkChange is one topic-partition of a sink edit.
type SinkChange struct {
	model.TopicPartition
	// Before is the committed offset now, After the new one; -1 is none.
	Before, After int64
	Start, End    int64
	// Asked is the offset asked for, before clamping to the log.
	Asked int64
	// Warning says when the offset asked for was outside the log.
	Warning string
	// FromEnd: with the offset deleted the sink starts at the log end
	// (consumer.override.auto.offset.reset=latest).
	FromEnd bool
}

// Lag after the edit: with no committed offset the sink starts at the log
// start (auto.offset.reset=earliest, Connect's default for sinks) or, with
// consumer.override.auto.offset.reset=latest, at the end.
func (c SinkChange) Lag() int64 {
	if c.After < 0 && c.FromEnd {
		return 0
	}
	if c.After < 0 {
		return c.End - c.Start
	}
	return c.End - c.After
}

// Moved says what the sink does differently after the edit: the records it
// skips (the new offset is ahead of the committed one) or replays (behind).
// With no committed offset before, it says nothing.
func (c SinkChange) Moved() string {
	from, to := c.Before, c.After
	if from < 0 {
		return ""
	}
	if to < 0 { // deleted: auto.offset.reset
		to = c.Start
		if c.FromEnd {
			to = c.End
		}
	}
	switch {
	case to > from:
		return "skips " + records(to-from)
	case to < from:
		return "replays " + records(from-to)
	}
	return "unchanged"
}

func records(n int64) string {
	if n == 1 {
		return "1 record"
	}
	return strconv.FormatInt(n, 10) + " records"
}

// PlanSink works out a sink edit without writing anything.
func (e *Editor) PlanSink(ctx context.Context, req SinkRequest) (*Plan, error) {
	if req.Connector == "" {
		return nil, errors.New("no connector named")
	}
	p := &Plan{Request: Request{Connector: req.Connector, Kind: req.Kind, Create: req.Create, Group: req.Group}, Made: e.now(), Path: PathGroup, sinkReq: &req}
	if req.Kind != KindUndo {
		if err := e.requireKnown(ctx, req.Kind, req.Connector, req.Group, req.Create); err != nil {
			return nil, err
		}
	}
	var groupFromConfig bool
	p.Group, groupFromConfig = e.sinkGroupOf(req.Connector, req.Group)
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
		p.resetPolicy = strings.TrimSpace(cfg["consumer.override.auto.offset.reset"])
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
			p.resetPolicy = strings.TrimSpace(c.Config["consumer.override.auto.offset.reset"])
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
		p.Path = PathREST
		method := "PATCH"
		if p.sinkResetAll(poll) {
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
	if p.Path == PathGroup && poll.Members > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("Group %s has %d active members: Kafka refuses offset changes from outside until the connector is stopped.", p.Group, poll.Members))
	}
	for _, c := range p.Sink {
		if c.Warning != "" {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s: %s", c.TopicPartition, c.Warning))
		}
	}
	p.fillSinkChanges()
	p.Command = e.Cmd.For(p)
	return p, nil
}

// sinkStatus is the connector's REST status, or nil without REST or when
// Connect has no such connector.
func (e *Editor) sinkStatus(ctx context.Context, name string) (*connect.ConnectorStatus, error) {
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

func (e *Editor) groupPoll(ctx context.Context, group string) (model.GroupPoll, error) {
	polls, err := e.Kafka.GroupPolls(ctx, []string{group})
	if err != nil {
		return model.GroupPoll{}, err
	}
	for _, p := range polls {
		if p.Group == group {
			return p, nil
		}
	}
	return model.GroupPoll{Group: group}, nil
}

func (e *Editor) planSinkChanges(ctx context.Context, p *Plan, req SinkRequest, poll model.GroupPoll) error {
	committed := map[model.TopicPartition]model.GroupPartition{}
	for _, gp := range poll.Partitions {
		committed[gp.TopicPartition] = gp
	}
	tps := req.Partitions
	if len(tps) == 0 {
		if req.Strategy.Kind == SinkExplicit {
			for tp := range req.Strategy.Offsets {
				tps = append(tps, tp)
			}
		} else {
			for _, gp := range poll.Partitions {
				tps = append(tps, gp.TopicPartition)
			}
		}
	}
	if len(tps) == 0 && p.Kind == KindResetAll {
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
	if req.Strategy.Kind == SinkToTimestamp {
		var err error
		if at, err = e.Kafka.OffsetsAt(ctx, tps, req.Strategy.Time); err != nil {
			return err
		}
	}
	for _, tp := range tps {
		gp := committed[tp]
		c := SinkChange{TopicPartition: tp, Before: gp.Committed, Start: gp.Start, End: gp.End}
		switch s := req.Strategy; s.Kind {
		case SinkToOffset:
			c.After = s.Offset
		case SinkToEarliest:
			c.After = gp.Start
		case SinkToLatest:
			c.After = gp.End
		case SinkToTimestamp:
			c.After = at[tp]
		case SinkShiftBy:
			if gp.Committed < 0 {
				return fmt.Errorf("%s has no committed offset to shift from", tp)
			}
			c.After = gp.Committed + s.Shift
		case SinkReset:
			c.After = -1
		case SinkExplicit:
			off, ok := s.Offsets[tp]
			if !ok {
				return fmt.Errorf("no offset given for %s", tp)
			}
			c.After = off
		default:
			return fmt.Errorf("unknown strategy %q", s.Kind)
		}
		kind := req.Strategy.Kind
		deleted := kind == SinkReset || kind == SinkExplicit && c.After == -1
		if c.After < 0 && !deleted && kind != SinkShiftBy {
			return fmt.Errorf("%s: offset %d is negative", tp, c.After)
		}
		if !deleted {
			c.ClampToLog()
		} else if c.Before >= 0 {
			deletedNote(&c, p.resetPolicy)
		}
		p.Sink = append(p.Sink, c)
	}
	return nil
}

// ClampToLog moves a new offset outside the partition's log to its start
// or end, as kafka-consumer-groups --reset-offsets does
// (ConsumerGroupCommand.checkOffsetsRange), and says so. Committed as
// asked, such an offset would make the sink's consumer get
// OFFSET_OUT_OF_RANGE and follow auto.offset.reset (earliest for sink
// tasks): a shift past the end would replay the whole partition.
func (c *SinkChange) ClampToLog() {
	c.Asked = c.After
	switch {
	case c.After > c.End:
		c.After = c.End
		c.Warning = fmt.Sprintf("offset %d is above the log end %d: clamped to %d, as kafka-consumer-groups does", c.Asked, c.End, c.End)
	case c.After < c.Start:
		c.After = c.Start
		c.Warning = fmt.Sprintf("offset %d is below the log start %d: clamped to %d, as kafka-consumer-groups does", c.Asked, c.Start, c.Start)
	}
}

// deletedNote says where a sink starts once its committed offset is
// deleted: auto.offset.reset, earliest unless the connector overrides it.
func deletedNote(c *SinkChange, policy string) {
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
func (p *Plan) sinkResetAll(poll model.GroupPoll) bool {
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
func (p *Plan) fillSinkChanges() {
	p.Changes = nil
	for _, c := range p.Sink {
		ch := Change{PartitionJSON: sinkPartitionJSON(c.TopicPartition)}
		ch.Partition = java.Object{{Name: "kafka_topic", Value: c.Topic}, {Name: "kafka_partition", Value: json.Number(strconv.Itoa(c.Partition))}}
		if c.Before >= 0 {
			ch.Before = sinkOffsetJSON(c.Before)
		}
		if c.After >= 0 {
			ch.After = sinkOffsetJSON(c.After)
		}
		p.Changes = append(p.Changes, ch)
	}
}

func sinkPartitionJSON(tp model.TopicPartition) string {
	return `{"kafka_topic":` + string(java.AppendJackson(nil, tp.Topic)) + `,"kafka_partition":` + strconv.Itoa(tp.Partition) + `}`
}

func sinkOffsetJSON(n int64) []byte {
	return []byte(`{"kafka_offset":` + strconv.FormatInt(n, 10) + `}`)
}

// sinkItem reads a sink-shaped Item (Connect's sink offset shape): the
// topic-partition and the offset (-1 for null). Numbers may be strings, as
// Connect accepts. Errors are Connect's own words (SinkUtils), which
// operators know from the REST API.
func sinkItem(it Item) (model.TopicPartition, int64, error) {
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
func (e *Editor) planSinkItems(ctx context.Context, req Request) (*Plan, error) {
	offsets := map[model.TopicPartition]int64{}
	for _, it := range req.Items {
		tp, off, err := sinkItem(it)
		if err != nil {
			return nil, err
		}
		offsets[tp] = off
	}
	return e.PlanSink(ctx, SinkRequest{Connector: req.Connector, Kind: req.Kind, Strategy: SinkStrategy{Kind: SinkExplicit, Offsets: offsets}, Create: req.Create, Group: req.Group})
}
