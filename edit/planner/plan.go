package planner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"koff/connect"
	"koff/edit/plan"
	"koff/model"
	"koff/model/java"
)

// Replan plans the same request again on the offsets as they are now. The
// stop → apply → resume flow needs it: stopping a connector makes its tasks
// commit one last time, which moves the offsets the first plan read.
func (e *Planner) Replan(ctx context.Context, p *plan.Plan) (*plan.Plan, error) {
	if p.SinkAsked != nil {
		return e.PlanSink(ctx, *p.SinkAsked)
	}
	return e.Plan(ctx, p.Request)
}

// Plan works out an edit without writing anything.
func (e *Planner) Plan(ctx context.Context, req plan.Request) (*plan.Plan, error) {
	if req.Connector == "" {
		return nil, errors.New("no connector named")
	}
	topics := e.topics()
	if len(topics) == 0 {
		return nil, errors.New("no offsets topic")
	}
	if req.Kind != plan.KindUndo && req.Kind != plan.KindDeleteStray {
		if err := e.RequireKnown(ctx, req.Kind, req.Connector, req.Group, req.Create); err != nil {
			return nil, err
		}
	}
	if isSink, err := e.isSinkRequest(ctx, req); err != nil {
		return nil, err
	} else if isSink {
		if req.Kind == plan.KindResetAll {
			return e.PlanSink(ctx, plan.SinkRequest{Connector: req.Connector, Kind: req.Kind, Strategy: plan.SinkStrategy{Kind: plan.SinkReset}, Create: req.Create, Group: req.Group})
		}
		return e.planSinkItems(ctx, req)
	}
	p := &plan.Plan{Request: req, Topic: e.HomeTopic(req.Connector, topics), Made: e.now()}
	restOK, err := e.planREST(ctx, p)
	if errors.Is(err, errSinkConnector) {
		return e.planSinkItems(ctx, req)
	}
	if err != nil {
		return nil, err
	}
	// Once it is known to be a source (REST may say it is a sink).
	copies := e.StoredCopies(req.Connector)
	if err := e.RequirePartitions(req, copies); err != nil {
		return nil, err
	}
	if req.Kind == plan.KindRekey {
		if err := e.rekeyItems(ctx, p, copies); err != nil {
			return nil, err
		}
	}
	if isMove(req) {
		if err := e.moveTargets(ctx, p); err != nil {
			return nil, err
		}
	}
	index := newCopyIndex(copies)
	if req.Kind == plan.KindResetAll {
		p.Items = nil
		seen := map[string]bool{}
		for _, c := range copies {
			if c.Row.Deleted || c.Partition == nil && restOK {
				continue
			}
			if !seen[c.Canon] {
				seen[c.Canon] = true
				p.Items = append(p.Items, plan.Item{Partition: c.Partition})
			}
		}
		if len(p.Items) == 0 {
			return nil, &NothingToResetError{Connector: req.Connector, Where: strings.Join(topics, ", ")}
		}
	}
	if len(p.Items) == 0 {
		return nil, errors.New("no partitions to change")
	}
	shapes := e.shapeJudge(p, copies, index)
	for _, it := range p.Items {
		ch, err := e.planChange(ctx, p, it, copies, index)
		if err != nil {
			return nil, err
		}
		p.Changes = append(p.Changes, ch)
		p.Warnings = append(p.Warnings, shapes.warnings(it, ch)...)
	}
	if p.Kind == plan.KindRekey || isMove(req) {
		rekeyAfter(p)
	}
	e.choosePath(p, restOK, copies)
	if p.Path == plan.PathREST {
		if err := e.planRESTWrites(ctx, p); err != nil {
			return nil, err
		}
	}
	switch {
	case p.Kind == plan.KindDeleteStray:
		// The task never reads or writes the stray key: its state does not matter.
	case p.Absent:
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s is not in Connect: no task runs that could overwrite this edit, and a connector created with this name starts from these offsets.", p.Connector))
	case p.State == "" && p.Target == "":
		p.Warnings = append(p.Warnings, "Connector state unknown, and whether it has its own offsets topic (no --connect-url, no config topic): a running connector's tasks overwrite this edit at their next flush, and one with its own offsets.storage.topic reads that topic instead. Stop it first.")
	case p.State == "" && p.Target != model.TargetStopped:
		p.Warnings = append(p.Warnings, fmt.Sprintf("Target state %s (config topic %s): its tasks overwrite this edit at their next flush. Stop it first.", p.Target, p.ConfigTopic))
	}
	if p.Kind != plan.KindDeleteStray {
		p.Warnings = append(p.Warnings, classNotes(p)...)
		p.Warnings = append(p.Warnings, e.newPositionWarnings(ctx, p)...)
	}
	if req.Create && len(copies) == 0 && p.State == "" && p.Target == "" {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s is a new name to koff (--create): no offsets, consumer group or Connect entry of it; a connector created with this name starts from these offsets.", p.Connector))
	}
	e.planWatch(p)
	p.Command = e.Cmd.For(p)
	return p, nil
}

// isSinkRequest: every item is in Connect's sink offset shape, or the
// connector is a sink (sinkConnector), whatever the items' shape: then
// items that are not a sink's are refused in Connect's words (sinkItem),
// never written to the offsets topic as a source partition.
func (e *Planner) isSinkRequest(ctx context.Context, req plan.Request) (bool, error) {
	sinks := 0
	for _, it := range req.Items {
		if it.Partition != nil && plan.IsSinkPartition(it.Partition) {
			sinks++
		}
	}
	if len(req.Items) > 0 && sinks == len(req.Items) {
		return true, nil
	}
	if len(req.Items) > 0 && sinks == 0 && e.REST != nil {
		return false, nil // planREST learns the type from Connect (errSinkConnector)
	}
	isSink, err := e.SinkConnector(ctx, req)
	if err != nil {
		return false, err
	}
	if !isSink && sinks > 0 {
		return false, errors.New("sink partitions ({\"kafka_topic\",\"kafka_partition\"}) and source partitions cannot be mixed in one edit")
	}
	return isSink, nil
}

// SinkConnector: REST says the connector is a sink; or, without REST, it
// has no source offsets and its config in the config topic has topics or
// topics.regex (a sink's do; koff cannot load its class to ask, and
// MirrorMaker 2's connectors, sources, are told by class), or a consumer
// group (--group, or connect-<name> with committed offsets).
func (e *Planner) SinkConnector(ctx context.Context, req plan.Request) (bool, error) {
	if e.REST != nil {
		st, err := e.REST.Status(ctx, req.Connector)
		if err == nil {
			return st.Type == "sink", nil
		}
		if !connect.IsNotFound(err) {
			return false, err
		}
	}
	if e.HasStoredCopies(req.Connector) {
		return false, nil
	}
	if c, _, ok := e.configOf(req.Connector); ok && c.Config != nil && e.REST == nil && !strings.Contains(c.Class(), ".Mirror") {
		// MirrorMaker 2's source connectors have a topics setting too.
		if _, ok := c.Config["topics"]; ok {
			return true, nil
		}
		if _, ok := c.Config["topics.regex"]; ok {
			return true, nil
		}
	}
	if req.Group != "" {
		return true, nil
	}
	group, _ := e.SinkGroupOf(req.Connector, "")
	poll, err := e.groupPoll(ctx, group)
	return err == nil && len(poll.Partitions) > 0, nil
}

// errSinkConnector: REST says the connector is a sink, so a request of
// source-shaped items is planned as a sink's (and refused in Connect's
// words).
var errSinkConnector = errors.New("sink connector")

// planREST reads the connector's state, type and own offsets topic from
// REST, and reports whether REST can alter offsets (Connect ≥ 3.6).
func (e *Planner) planREST(ctx context.Context, p *plan.Plan) (bool, error) {
	if e.REST == nil {
		p.PathReason = "no --connect-url: written to the offsets topic"
		return false, e.planConfigTopic(p)
	}
	st, err := e.REST.Status(ctx, p.Connector)
	if connect.IsNotFound(err) && (p.Kind == plan.KindCopy || p.Create || e.HasStoredCopies(p.Connector)) {
		// An orphan, or the target of a copy not created yet: no task runs
		// that could overwrite the edit, and REST cannot edit it. Any
		// other unknown name is most likely a typo: Connect's 404 stands.
		p.Absent = true
		p.PathReason = "not in Connect: written to the offsets topic"
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if st.Type == "sink" && len(p.Items) > 0 {
		return false, errSinkConnector
	}
	p.State, p.Tasks = string(st.Connector.State), len(st.Tasks)
	if c, topic, ok := e.configOf(p.Connector); ok && c.Config != nil {
		p.Target, p.ConfigTopic = c.TargetState, topic
	}
	cfg, err := e.REST.ConnectorConfig(ctx, p.Connector)
	if err != nil {
		return false, err
	}
	p.Config = cfg
	if t := strings.TrimSpace(cfg["offsets.storage.topic"]); t != "" {
		if !Contains(e.topics(), t) {
			return false, fmt.Errorf("connector %s keeps its offsets in its own topic %s (offsets.storage.topic): add --offsets-topic %s so koff can read and verify it", p.Connector, t, t)
		}
		p.Topic = t
	}
	info, err := e.REST.ServerInfo(ctx)
	if err != nil {
		return false, err
	}
	if !info.SupportsAlterOffsets() {
		p.PathReason = fmt.Sprintf("Connect %s cannot alter offsets over REST (needs 3.6): written to the offsets topic", info.Version)
		return false, nil
	}
	return true, nil
}

// StoredCopy is one stored key of the connector, in any offsets topic.
type StoredCopy struct {
	Row       model.PartitionRow
	Partition java.Object
	Canon     string
}

// HasStoredCopies: some offsets topic holds a key of the connector.
func (e *Planner) HasStoredCopies(name string) bool {
	for _, t := range e.topics() {
		if len(e.Store.Partitions(model.ConnectorID{Topic: t, Name: name})) > 0 {
			return true
		}
	}
	return false
}

// StoredCopies are every stored key of the connector, in every offsets
// topic koff reads, live or deleted.
func (e *Planner) StoredCopies(name string) []StoredCopy {
	var out []StoredCopy
	for _, t := range e.topics() {
		for _, r := range e.Store.Partitions(model.ConnectorID{Topic: t, Name: name}) {
			k, err := model.ParseKey([]byte(r.ID.Key))
			if err != nil {
				continue
			}
			out = append(out, StoredCopy{Row: r, Partition: k.Partition, Canon: CanonOf(k.Partition)})
		}
	}
	return out
}

// CanonOf is the identity of a partition map: equal for maps the worker
// reads as equal Java maps, whatever their field order or number layout
// (1.50 and 1.5 are one partition; 5 and 5.0 are two, Long and Double).
func CanonOf(p java.Object) string {
	if p == nil {
		return "null"
	}
	return java.JavaIdentity(p)
}

func (e *Planner) planChange(ctx context.Context, p *plan.Plan, it plan.Item, copies []StoredCopy, index *copyIndex) (plan.Change, error) {
	canon := CanonOf(it.Partition)
	var mine, all []StoredCopy // copies in the connector's offsets topic; in any topic
	var live *StoredCopy
	for _, c := range index.of(canon, copies) {
		all = append(all, c)
		if c.Row.ID.Topic == p.Topic {
			mine = append(mine, c)
			if c.Row.Live {
				live = &mine[len(mine)-1]
			}
		}
	}
	ch := plan.Change{Partition: it.Partition}
	if it.Offset != nil {
		off, notes := java.JavaWrites(it.Offset)
		if keepsNumberText(p.Kind) {
			off, notes = it.Offset, keptNumberNotes(it.Offset)
		}
		ch.After = java.AppendJackson(nil, off)
		for _, n := range notes {
			p.Warnings = append(p.Warnings, "offset "+n)
		}
	}
	switch {
	case live != nil:
		ch.PartitionJSON = live.Row.Partition
	case len(mine) > 0:
		ch.PartitionJSON = mine[0].Row.Partition
	default:
		ch.PartitionJSON = compactJSON(it.Partition)
	}
	if live != nil && live.Row.TaskReads != "" {
		ch.Before = []byte(live.Row.TaskReads)
	}
	switch {
	case it.Stray != nil:
		return e.planStrayDelete(p, ch, *it.Stray, all)
	case len(it.Restore) > 0:
		ch.Exact = true
		return e.planRestore(p, ch, it.Restore, live)
	case it.Offset == nil:
		return e.planReset(p, ch, live, mine, all)
	}
	// A new value goes to the key bytes the task reads, in every partition
	// of the topic holding them (whichever a restarted worker reads last
	// then has it); while the task's field order is unknown, to every key
	// in the task's form. Stray copies are left alone.
	for _, c := range mine {
		if !aimedAt(c, live) {
			continue
		}
		ch.Writes = append(ch.Writes, plan.Write{TopicPartition: c.Row.ID.TopicPartition, Key: []byte(c.Row.ID.Key), Existing: true, Before: c.storedValue(), Value: ch.After})
	}
	if len(ch.Writes) == 0 {
		key := java.EncodeKey(p.Connector, newKeyPartition(it.Partition, copies))
		n, err := e.Kafka.PartitionCount(ctx, p.Topic)
		if err != nil {
			return ch, err
		}
		ch.Writes = append(ch.Writes, plan.Write{TopicPartition: model.TopicPartition{Topic: p.Topic, Partition: java.PartitionFor(key, n)}, Key: key, Value: ch.After})
	}
	p.Warnings = append(p.Warnings, strayNote(ch, mine)...)
	return ch, nil
}

// aimedAt: a set or reset of the partition writes this copy, because the
// task reads these key bytes, or might (field order unknown).
func aimedAt(c StoredCopy, live *StoredCopy) bool {
	if live == nil {
		return false
	}
	return c.Row.ID.Key == live.Row.ID.Key || live.Row.OrderUnknown && c.Row.TaskForm
}

// storedValue is the raw value stored under the copy's key now (nil when
// deleted), for the optimistic check and for undo.
func (c StoredCopy) storedValue() []byte {
	if c.Row.Deleted {
		return nil
	}
	return c.Row.Stored
}

// planReset deletes the partition for its task: the key bytes it reads, in
// every topic-partition and every offsets topic holding them (Connect's
// REST reset tombstones both the connector's and the workers' topic). A
// whole-connector reset deletes every stored copy, strays included.
func (e *Planner) planReset(p *plan.Plan, ch plan.Change, live *StoredCopy, mine, all []StoredCopy) (plan.Change, error) {
	for _, c := range all {
		if c.Row.Deleted {
			continue
		}
		if p.Kind != plan.KindResetAll && !aimedAt(c, live) && !(live != nil && c.Row.ID.Key == live.Row.ID.Key) {
			continue
		}
		ch.Writes = append(ch.Writes, plan.Write{TopicPartition: c.Row.ID.TopicPartition, Key: []byte(c.Row.ID.Key), Existing: true, Before: c.storedValue()})
	}
	if len(ch.Writes) == 0 {
		if len(all) > 0 && !allDeleted(all) {
			return ch, fmt.Errorf("connector %s has no offset its task reads for partition %s: %s; its stored copies are strays (delete one with the dashboard's x on its row)", p.Connector, ch.PartitionJSON, all[0].Row.NoOffset)
		}
		return ch, fmt.Errorf("connector %s has no offset for partition %s", p.Connector, ch.PartitionJSON)
	}
	if p.Kind != plan.KindResetAll {
		p.Warnings = append(p.Warnings, strayNote(ch, mine)...)
	}
	return ch, nil
}

func allDeleted(cs []StoredCopy) bool {
	for _, c := range cs {
		if !c.Row.Deleted {
			return false
		}
	}
	return true
}

// strayNote names the copies of the partition an edit leaves alone.
func strayNote(ch plan.Change, mine []StoredCopy) []string {
	written := map[model.PartitionID]bool{}
	for _, w := range ch.Writes {
		written[model.PartitionID{TopicPartition: w.TopicPartition, Key: string(w.Key)}] = true
	}
	n := 0
	for _, c := range mine {
		if !written[c.Row.ID] && !c.Row.Deleted {
			n++
		}
	}
	switch n {
	case 0:
		return nil
	case 1:
		return []string{fmt.Sprintf("%s: 1 stray copy the task does not read is left as it is (delete it on its own with x on its row in the dashboard)", ch.PartitionJSON)}
	}
	return []string{fmt.Sprintf("%s: %d stray copies the task does not read are left as they are (delete each on its own with x on its row in the dashboard)", ch.PartitionJSON, n)}
}

// planStrayDelete tombstones one stray copy: that key in that
// topic-partition only. The offset the task reads does not change.
func (e *Planner) planStrayDelete(p *plan.Plan, ch plan.Change, id model.PartitionID, all []StoredCopy) (plan.Change, error) {
	for _, c := range all {
		if c.Row.ID != id {
			continue
		}
		if c.Row.Live {
			return ch, fmt.Errorf("the copy in %s is the one the task reads, not a stray: reset the partition instead", id.TopicPartition)
		}
		if c.Row.Deleted {
			return ch, fmt.Errorf("the stray copy in %s is already deleted", id.TopicPartition)
		}
		if c.Row.LiveCopy != nil && c.Row.LiveCopy.Key == id.Key {
			return ch, errors.New(SameBytesStray)
		}
		ch.After = ch.Before // what the task reads stays as it is
		ch.PartitionJSON = c.Row.Partition
		ch.Writes = []plan.Write{{TopicPartition: id.TopicPartition, Key: []byte(id.Key), Existing: true, Before: c.storedValue()}}
		return ch, nil
	}
	return ch, fmt.Errorf("no stored copy of %s in %s", ch.PartitionJSON, id.TopicPartition)
}

// SameBytesStray is why an older copy of the very key bytes the task reads
// cannot be deleted on its own: KafkaOffsetBackingStore keeps one value per
// key bytes across partitions, so a tombstone there deletes the task's
// offset whenever the worker happens to read that partition last.
const SameBytesStray = "this copy has the same key bytes as the one the task reads: a tombstone here would delete the task's offset whenever a restarted worker reads this partition last (only compaction removes the old record); edit the partition instead, which writes every copy of those bytes"

// planRestore writes back exact values of exact copies (undo): each copy
// gets its own before-value.
func (e *Planner) planRestore(p *plan.Plan, ch plan.Change, rs []plan.Restore, live *StoredCopy) (plan.Change, error) {
	ch.After = ch.Before
	for _, r := range rs {
		w := plan.Write{TopicPartition: r.TopicPartition, Key: r.Key, Value: r.Value}
		if d, ok := e.Store.Partition(model.PartitionID{TopicPartition: r.TopicPartition, Key: string(r.Key)}); ok {
			w.Existing = true
			if !d.Deleted {
				w.Before = d.Value
			}
		}
		ch.Writes = append(ch.Writes, w)
		if live != nil && live.Row.ID.TopicPartition == r.TopicPartition && live.Row.ID.Key == string(r.Key) {
			ch.After = nil
			if o, err := model.ParseOffset(r.Value); err == nil && o != nil {
				ch.After = java.AppendJackson(nil, o)
			}
		}
	}
	return ch, nil
}

// newKeyPartition orders and writes a new partition map's key as a task
// would: the field order of the connector's other keys with the same
// names (a task serialises all its maps of one shape alike), else the Java
// HashMap order Connect's REST API writes, so koff's own first key is never
// flagged; decimals as Java prints the Double.
func newKeyPartition(p java.Object, copies []StoredCopy) java.Object {
	if p == nil {
		return nil
	}
	ordered := siblingOrder(p, copies)
	if ordered == nil {
		ordered = java.HashMapOrder(p)
	}
	v, _ := java.JavaWrites(ordered)
	return v.(java.Object)
}

// siblingOrder orders p's fields like the connector's other task-form
// keys with the same field names, or returns nil when there are none.
func siblingOrder(p java.Object, copies []StoredCopy) java.Object {
	names := fieldNames(p)
	for _, c := range copies {
		if c.Partition == nil || !c.Row.TaskForm || len(c.Partition) != len(p) || fieldNames(c.Partition) != names {
			continue
		}
		out := make(java.Object, 0, len(p))
		for _, f := range c.Partition {
			v, _ := p.Get(f.Name)
			out = append(out, java.Field{Name: f.Name, Value: v})
		}
		return out
	}
	return nil
}

func fieldNames(o java.Object) string {
	n := make([]string, len(o))
	for i, f := range o {
		n[i] = f.Name
	}
	sort.Strings(n)
	return strings.Join(n, "\x00")
}

// choosePath prefers REST, unless what REST writes is not what the
// connector's tasks read: REST re-serialises every partition map as a Java
// HashMap (Worker.modifySourceConnectorOffsets) and writes it to its
// murmur2 partition, so it cannot reach a null partition, a key in
// another field order or number form, a key stored in another partition
// (the worker may keep that copy), or, for a whole-connector reset, stray
// copies.
func (e *Planner) choosePath(p *plan.Plan, restOK bool, copies []StoredCopy) {
	p.Path = plan.PathTopic
	if p.Kind == plan.KindDeleteStray {
		p.PathReason = "Connect's REST API cannot address one stored copy: its tombstone is written to the offsets topic, to that key's partition"
		return
	}
	if p.ByteExact {
		p.PathReason = "offsets kept byte for byte (Connect's PATCH would re-serialise them): written to the offsets topic"
		return
	}
	for _, ch := range p.Changes {
		if ch.Exact {
			p.PathReason = "undo puts back each copy's own value, record for record: written to the offsets topic"
			return
		}
	}
	if !restOK {
		return
	}
	if p.Topic != e.topics()[0] {
		for _, ch := range p.Changes {
			if ch.After == nil {
				// Seen on the real 4.1.1 worker: ConnectorOffsetBackingStore's
				// setPrimaryThenSecondary sends the second topic's tombstone
				// from the first write's callback, outside the task's
				// transaction ("Cannot add partition … to transaction while in
				// state READY"), and the request times out with one topic
				// written. koff can't tell whether the workers run exactly-once.
				p.PathReason = "Connect's REST reset of a connector with its own offsets topic fails on an exactly-once worker (Apache Kafka 4.1.1 writes the second topic's tombstone outside the transaction and times out): tombstones written to both offsets topics directly"
				return
			}
		}
	}
	for _, ch := range p.Changes {
		if ch.Partition == nil {
			p.PathReason = "a null source partition is invisible to Connect's REST API: written to the offsets topic"
			return
		}
		rk := model.RESTKey(p.Connector, ch.Partition)
		for _, w := range ch.Writes {
			if w.Existing && !bytes.Equal(w.Key, rk) {
				p.PathReason = "the key the task reads is not in the form Connect's REST API writes (compact, Java HashMap order, Java's numbers): written to the offsets topic with its exact bytes"
				return
			}
			if w.Existing && w.Value != nil && w.Topic == p.Topic && len(ch.Writes) > 1 {
				p.PathReason = "the key the task reads is stored in more than one partition, and REST writes only one: written to the offsets topic"
				return
			}
		}
	}
	for _, c := range copies {
		if c.Row.Deleted {
			continue
		}
		if c.Row.Live && c.Row.Flags&(model.FlagDuplicate|model.FlagMisplaced) != 0 {
			p.PathReason = "the key the task reads is duplicated or outside its murmur2 partition, where REST does not write: written to the offsets topic"
			return
		}
		if p.Kind == plan.KindResetAll && !c.Row.Live {
			p.PathReason = "the connector has stray copies, which REST's reset would not delete: written to the offsets topic"
			return
		}
		if c.Row.Live && len(c.Partition) > 1 && c.Row.Flags&model.FlagNotCanonical != 0 {
			p.PathReason = "the connector's keys are not in Java HashMap order, so keys REST writes would never be read: written to the offsets topic"
			return
		}
	}
	p.Path = plan.PathREST
	method := "PATCH"
	if p.Kind == plan.KindResetAll {
		method = "DELETE"
	}
	p.PathReason = method + " /connectors/" + p.Connector + "/offsets"
}

// planRESTWrites records where the worker will write each REST edit, for
// the dialog and for verification.
func (e *Planner) planRESTWrites(ctx context.Context, p *plan.Plan) error {
	n, err := e.Kafka.PartitionCount(ctx, p.Topic)
	if err != nil {
		return err
	}
	for i := range p.Changes {
		ch := &p.Changes[i]
		key := model.RESTKey(p.Connector, ch.Partition)
		w := plan.Write{TopicPartition: model.TopicPartition{Topic: p.Topic, Partition: java.PartitionFor(key, n)}, Key: key}
		for _, old := range ch.Writes {
			if bytes.Equal(old.Key, key) && old.TopicPartition == w.TopicPartition {
				// The planned write of a new partition has these bytes too:
				// it stays a new key.
				w.Existing, w.Before = old.Existing, old.Before
			}
		}
		if ch.After != nil {
			o, _ := model.ParseOffset(ch.After)
			w.Value = model.RESTValue(o)
			ch.After = w.Value // what the worker writes: its HashMap order, Java's numbers
		}
		ch.Writes = []plan.Write{w}
	}
	return e.planSecondaryWrites(ctx, p)
}

func compactJSON(o java.Object) string {
	if o == nil {
		return "null"
	}
	return string(java.AppendJackson(nil, o))
}

// Contains: s is in list.
func Contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
