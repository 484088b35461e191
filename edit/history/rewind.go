package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"koff/edit/plan"
	"koff/edit/planner"
	"koff/model"
	"koff/model/java"
)

// A rewind puts a source connector's offsets back to what they were at a
// time: for each partition, the newest value its task's key held at or
// before it, taken from the offsets topic's retained history. The task
// reads one key's bytes (model/taskread.go), so that key's commits are the
// partition's history; stray copies are left as they are.

// What a rewind does with one partition.
const (
	RewindSet       = "set"       // to the commit in force at the time
	RewindReset     = "reset"     // a tombstone was in force, or --if-newer reset
	RewindOldest    = "oldest"    // --if-newer oldest
	RewindUnchanged = "unchanged" // the commit in force then is in force now
	RewindLeft      = "left"      // left alone: Reason says why
)

// RewindChoice is what a rewind does with one partition, and from which
// commit.
type RewindChoice struct {
	Partition string // compact JSON
	// Key is the key bytes the task reads.
	Key    string
	Action string
	// Took is the commit whose value is put back (nil: none). Value is
	// that commit's value (nil: a tombstone).
	Took  *CommitRef
	Value []byte
	// TookEdit is the koff edit that wrote Took (nil: a worker's flush or
	// another writer): putting back an edit's value is worth knowing.
	TookEdit *KoffEdit
	// Oldest is the partition's oldest retained commit (nil: none);
	// Complete says it is its first commit ever.
	Oldest   *CommitRef
	Complete bool
	Reason   string
	object   java.Object
}

// Rewind is a planned rewind: the choice for every partition and the
// edit that makes it (nil when nothing changes).
type Rewind struct {
	plan.RewindRequest
	Choices       []RewindChoice
	Plan          *plan.Plan
	LogAppendTime bool
}

// ErrNotSourceRewind: the connector has no source offsets to rewind (a
// sink, or a name koff does not know): the caller rewinds its consumer
// group as a sink's, or refuses the name as it would any set.
var ErrNotSourceRewind = errors.New("no source offsets to rewind")

// keyHistory is what a rewind keeps of one key's commits: O(1) whatever
// the records read.
type keyHistory struct {
	at, oldest       *CommitRef
	atValue, oldestV []byte
	logAppend        bool // a commit read carries the broker's time
	// atEdit and oldestEdit are the koff edits that wrote those commits
	// (nil: a worker's flush, or another writer).
	atEdit, oldestEdit *KoffEdit
}

// rewindKey is a key's bytes (as the filter knows them) in one
// topic-partition: the same bytes in two partitions are two copies, of
// which the task reads one (model/store/taskread.go).
type rewindKey struct {
	key *keyInfo
	tp  model.TopicPartition
}

// RewindRead is a rewind's read of the offsets topics (a HistoryTap): for
// each key of the connector in each topic-partition, the newest commit at
// or before the time and the oldest retained one. Which key the task
// reads, in which topic-partition, is the Store's to say once the read is
// done (it may be the read that loads the Store): PlanRewindRead.
type RewindRead struct {
	req    plan.RewindRequest
	filter *keyFilter
	byKey  map[rewindKey]*keyHistory
	logs   []RetainedLog
	// marks are koff's audited edits of the connector, to tell which
	// commits koff wrote (MarkEdits).
	marks auditMarks
}

// MarkEdits has the read tell which commits koff's own edits wrote, from
// the audit log, as koff history marks them. Before the read.
func (e *Reader) MarkEdits(ctx context.Context, rr *RewindRead) {
	rr.marks = e.auditMarks(ctx, rr.req.Connector)
}

// StartRewind prepares a read for req (PlanRewind, or a read that also
// loads the Store, PlanRewindRead after it).
func StartRewind(req plan.RewindRequest) *RewindRead {
	return &RewindRead{req: req, filter: newKeyFilter(req.Connector, req.Partitions), byKey: map[rewindKey]*keyHistory{}}
}

func (rr *RewindRead) Keep(key []byte) bool { return rr.filter.keep(key) }

func (rr *RewindRead) Read(logs []RetainedLog) { rr.logs = append(rr.logs, logs...) }

func (rr *RewindRead) Add(r *Record) error {
	k := rewindKey{rr.filter.info(r.Key), model.TopicPartition{Topic: r.Topic, Partition: r.Partition}}
	kh := rr.byKey[k]
	if kh == nil {
		kh = &keyHistory{}
		rr.byKey[k] = kh
	}
	kh.logAppend = kh.logAppend || r.LogAppendTime
	// Matched at every record of the key, in the log's order, as history
	// does: an edit's record is the first of its value after its position.
	by := rr.marks.match(r)
	if kh.oldest == nil || r.Time.Before(kh.oldest.Time) {
		kh.oldest, kh.oldestV, kh.oldestEdit = refOf(r, kh.oldest), reuse(kh.oldestV, r.Value), by
	}
	if !r.Time.After(rr.req.At) && (kh.at == nil || !r.Time.Before(kh.at.Time)) {
		kh.at, kh.atValue, kh.atEdit = refOf(r, kh.at), reuse(kh.atValue, r.Value), by
	}
	return nil
}

// refOf is where and when r was committed, in old's place when it has
// one: a key's commit in force changes at each of its records.
func refOf(r *Record, old *CommitRef) *CommitRef {
	if old == nil {
		old = new(CommitRef)
	}
	*old = CommitRef{TopicPartition: model.TopicPartition{Topic: r.Topic, Partition: r.Partition}, Offset: r.Offset, Time: r.Time, LogAppendTime: r.LogAppendTime}
	return old
}

// PlanRewind works out a rewind without writing anything. Its Plan goes
// through Check and Apply as every edit (a rewind of the chosen values,
// their number text kept as stored, so that the records put back are
// byte for byte the ones committed then).
func (e *Reader) PlanRewind(ctx context.Context, req plan.RewindRequest) (*Rewind, error) {
	if e.History == nil {
		return nil, errNoHistoryReader
	}
	// A name with no source offsets reads nothing.
	if !e.Planner.HasStoredCopies(req.Connector) {
		return nil, ErrNotSourceRewind
	}
	rr := StartRewind(req)
	e.MarkEdits(ctx, rr)
	if err := e.ReadTap(ctx, rr); err != nil {
		return nil, err
	}
	return e.PlanRewindRead(ctx, rr)
}

// PlanRewindRead is PlanRewind from a read done.
func (e *Reader) PlanRewindRead(ctx context.Context, rr *RewindRead) (*Rewind, error) {
	req := rr.req
	copies := e.Planner.StoredCopies(req.Connector)
	if len(copies) == 0 {
		return nil, ErrNotSourceRewind
	}
	if isSink, err := e.Planner.SinkConnector(ctx, plan.Request{Connector: req.Connector}); err != nil {
		return nil, err
	} else if isSink {
		return nil, ErrNotSourceRewind
	}
	if err := e.Planner.RequirePartitions(plan.Request{Connector: req.Connector, Kind: plan.KindSet, Items: itemsOf(req.Partitions)}, copies); err != nil {
		return nil, planner.CreatingNothing(err) // a rewind takes commits: it makes no partition
	}
	// The topic the task reads: the connector's own offsets topic when it
	// has one (ConnectorOffsetBackingStore#get: the workers' topic is
	// never read then), else the one holding its offsets, the topic the
	// plan writes to. A copy anywhere else is never a rewind's source.
	home := e.Planner.HomeTopic(req.Connector, e.topics())
	own := e.Planner.OwnTopic(ctx, req.Connector)
	if own != "" {
		if !planner.Contains(e.topics(), own) {
			return nil, fmt.Errorf("connector %s keeps its offsets in its own topic %s (offsets.storage.topic): add --offsets-topic %s so koff can read its history", req.Connector, own, own)
		}
		home = own
	}
	want := map[string]bool{}
	for _, p := range req.Partitions {
		want[planner.CanonOf(p)] = true
	}
	// One choice per partition: the copy the task reads in the home topic.
	rw := &Rewind{RewindRequest: req}
	live := map[string]model.PartitionRow{}
	seen := map[string]bool{}
	elsewhere := map[string]string{} // partitions stored only outside its own topic: where
	for _, c := range copies {
		if len(want) > 0 && !want[c.Canon] {
			continue
		}
		if c.Row.ID.Topic != home {
			if own != "" && !c.Row.Deleted && elsewhere[c.Canon] == "" {
				elsewhere[c.Canon] = c.Row.ID.TopicPartition.String()
			}
			continue
		}
		if c.Row.Live {
			live[c.Canon] = c.Row
		}
		if !seen[c.Canon] {
			seen[c.Canon] = true
			rw.Choices = append(rw.Choices, RewindChoice{Partition: c.Row.Partition, object: c.Partition})
		}
	}
	for _, c := range copies {
		if where := elsewhere[c.Canon]; where != "" && !seen[c.Canon] {
			seen[c.Canon] = true
			rw.Choices = append(rw.Choices, RewindChoice{Partition: c.Row.Partition, object: c.Partition, Action: RewindLeft,
				Reason: fmt.Sprintf("not in its own offsets topic %s, which its tasks read (ConnectorOffsetBackingStore): the copy in %s is never read, so it is no commit to put back", own, where)})
		}
	}
	byTP := map[model.TopicPartition]RetainedLog{}
	for _, l := range rr.logs {
		byTP[l.TopicPartition] = l
	}
	var err error
	var items []plan.Item
	for i := range rw.Choices {
		ch := &rw.Choices[i]
		if ch.Action == RewindLeft {
			continue
		}
		row, ok := live[planner.CanonOf(ch.object)]
		if !ok {
			ch.Action, ch.Reason = RewindLeft, "no copy the task reads: every stored copy is a stray"
			continue
		}
		ch.Key = row.ID.Key
		// The commits of the copy the task reads, and of no other.
		kh := rr.byKey[rewindKey{rr.filter.lookup([]byte(row.ID.Key)), row.ID.TopicPartition}]
		if kh == nil {
			kh = &keyHistory{}
		}
		rw.LogAppendTime = rw.LogAppendTime || kh.logAppend
		ch.Oldest = kh.oldest
		if kh.oldest != nil {
			ch.Complete = byTP[kh.oldest.TopicPartition].complete(kh.oldest.Offset)
		}
		value := kh.atValue
		switch {
		case kh.at != nil:
			ch.Took, ch.Action, ch.TookEdit = kh.at, RewindSet, kh.atEdit
			if value == nil {
				ch.Action = RewindReset
			}
		case kh.oldest == nil:
			ch.Action, ch.Reason = RewindLeft, "no commit of it is left in the topic"
		default:
			ch.Reason = fmt.Sprintf("its retained history begins %s, after %s: older commits were compacted or deleted away", commitWhen(*kh.oldest), model.TimeText(req.At))
			if ch.Complete {
				ch.Reason = fmt.Sprintf("first committed %s, after %s", commitWhen(*kh.oldest), model.TimeText(req.At))
			}
			switch req.IfNewer {
			case plan.IfNewerReset:
				ch.Action = RewindReset
				value = nil
			case plan.IfNewerOldest:
				ch.Took, ch.Action, value, ch.TookEdit = kh.oldest, RewindOldest, kh.oldestV, kh.oldestEdit
			default:
				ch.Action = RewindLeft
			}
		}
		if ch.Action == RewindLeft {
			continue
		}
		ch.Value = value
		var off java.Object
		if value != nil {
			if off, err = model.ParseOffset(value); err != nil || off == nil {
				ch.Action, ch.Reason = RewindLeft, fmt.Sprintf("the commit then (%s) is no offset a task reads", commitWhen(*ch.Took))
				continue
			}
		}
		if (value == nil) == (row.Stored == nil) && bytes.Equal(value, row.Stored) {
			ch.Action = RewindUnchanged
			continue
		}
		items = append(items, plan.Item{Partition: ch.object, Offset: off})
	}
	if len(items) == 0 {
		return rw, nil
	}
	p, err := e.Planner.Plan(ctx, plan.Request{Connector: req.Connector, Kind: plan.KindRewind, Items: items, Rewind: plan.NewRewindAsked(req)})
	if err != nil {
		return nil, err
	}
	if rw.LogAppendTime {
		p.Warnings = append(p.Warnings, "The offsets topic stamps records with LogAppendTime: commit times are when the broker appended them, not when the worker made them.")
	}
	p.Command = rw.Command(e.Cmd)
	rw.Plan = p
	return rw, nil
}

// Left lists the partitions a rewind leaves alone.
func (rw *Rewind) Left() []RewindChoice {
	var out []RewindChoice
	for _, c := range rw.Choices {
		if c.Action == RewindLeft {
			out = append(out, c)
		}
	}
	return out
}

// commitWhen says where and when a commit was made.
func commitWhen(c CommitRef) string {
	if c.Time.UnixMilli() == -1 { // Kafka's NO_TIMESTAMP: never a 1969 date
		return fmt.Sprintf("without a timestamp (%s, %s@%d)", TimestampType(c.LogAppendTime), c.TopicPartition, c.Offset)
	}
	return fmt.Sprintf("at %s (%s, %s@%d)", model.TimeText(c.Time), TimestampType(c.LogAppendTime), c.TopicPartition, c.Offset)
}

// CommitText is commitWhen for callers.
func CommitText(c CommitRef) string { return commitWhen(c) }

func itemsOf(parts []java.Object) []plan.Item {
	var out []plan.Item
	for _, p := range parts {
		out = append(out, plan.Item{Partition: p})
	}
	return out
}

// reuse is clone into old's bytes when they are room enough: a key's
// commit in force is replaced at each of its records before the time.
func reuse(old, b []byte) []byte {
	if b == nil || cap(old) < len(b) {
		return clone(b)
	}
	return append(old[:0], b...)
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}
