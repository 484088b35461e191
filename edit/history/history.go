package history

import (
	"bytes"
	"context"
	"errors"
	"time"

	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/planner"
	"koff/model"
	"koff/model/java"
	"koff/model/store"
)

// The offsets topic is compacted, but until the cleaner reaches a record
// it keeps every commit with its time: that is a connector's history.
// Reading it streams (kafka.Config.ReadHistory): what is kept grows with
// the connector's keys and the commits shown (read.go), never
// with the rest of the records read.

// HistoryRecord is one record of an offsets topic as the history reader
// hands it on; Key and Value are valid only during the callback.
type Record struct {
	store.Record
	// LogAppendTime: the topic stamps records with the broker's time, not
	// the worker's CreateTime.
	LogAppendTime bool
}

// RetainedLog is what one topic-partition of an offsets topic still
// holds: records from LogStart, read to End, none removed before FirstGap
// (End when no gap was seen).
type RetainedLog struct {
	model.TopicPartition
	LogStart, End, FirstGap int64
}

// complete: nothing of the topic-partition was removed before offset.
func (l RetainedLog) complete(offset int64) bool {
	return l.LogStart == 0 && l.FirstGap >= offset
}

// HistoryReader reads every record of an offsets topic that keep accepts
// by its key, from the log start to the end as of the call
// (kafka.Config.ReadHistory, through the CLI).
type ReadFunc func(ctx context.Context, topic string, keep func(key []byte) bool, fn func(*Record) error) ([]RetainedLog, error)

// HistoryFromReader reads every record of an offsets topic that keep
// accepts from from[i] on in partition i (from its log start where from
// has no such partition) to the end as of the call: what the topic gained
// since a read that ended at from (kafka.Config.ReadHistoryFrom).
type ReadFromFunc func(ctx context.Context, topic string, from []int64, keep func(key []byte) bool, fn func(*Record) error) ([]RetainedLog, error)

// Which copy of a source partition a record's key is, as the Store judges
// it now (model/taskread.go).
const (
	CopyLive  = "live"  // the key bytes and topic-partition a restarted task reads
	CopyStray = "stray" // a copy the task does not read
	CopyGone  = "gone"  // no longer in the topic: compacted away after a tombstone
)

// Commit is one record of a connector's history.
type Commit struct {
	ID            model.PartitionID // raw key bytes and the topic-partition
	Partition     string            // the partition map, compact JSON
	Offset        int64             // in the offsets topic
	Time          time.Time
	LogAppendTime bool
	Value         []byte // nil: a tombstone; valid only during the callback
	Copy          string // CopyLive, CopyStray or CopyGone
	// Edit is the koff edit that wrote this record, from the audit log;
	// Koff says the record carries koff's header (a direct write).
	Edit *KoffEdit
	Koff bool
	// Summary is its stored key's summary so far: one pointer per key,
	// which a writer can remember things by.
	Summary *CopyHistory
}

// KoffEdit names an audited edit.
type KoffEdit struct {
	ID   string    `json:"id"`
	User string    `json:"user"`
	Time time.Time `json:"time"`
	Kind plan.Kind `json:"kind"`
}

// CopyHistory sums up one stored key's history.
type CopyHistory struct {
	ID        model.PartitionID
	Partition string
	Copy      string
	Stray     string // why the task ignores it
	Commits   int
	// Tombstones among the commits.
	Tombstones int
	// First and Last are the oldest and newest retained commits.
	First, Last CommitRef
	// Complete: nothing of its topic-partition was removed before its
	// first retained commit, so that is the key's first commit. Otherwise
	// older commits may have been compacted or deleted away.
	Complete bool
	// Shown is how many of its commits are handed on (within the times),
	// LastShown the log offset of the newest of them.
	Shown     int
	LastShown int64
}

// CommitRef is where and when a commit was made.
type CommitRef struct {
	model.TopicPartition
	Offset        int64
	Time          time.Time
	LogAppendTime bool
}

// History is what ReadHistory found besides the commits it handed on.
type History struct {
	Connector string
	Copies    []CopyHistory
	Logs      []RetainedLog
	// LogAppendTime: some record read carries the broker's time.
	LogAppendTime bool
	// Shown is how many commits were handed on (within Since and Until).
	Shown int
	// ReadOrder: they were handed on as read (HistoryRequest.ReadOrder),
	// not in time order.
	ReadOrder bool
}

// HistoryRequest asks for one connector's history.
type Request struct {
	Connector string
	// Partitions limits it to these partition maps (nil: all).
	Partitions []java.Object
	// Since and Until bound the commits handed on (zero: unbounded).
	Since, Until time.Time
	// ReadOrder hands the commits of a spooled read (FinishHistoryRuns)
	// on as read, topic-partition after topic-partition, each in log
	// order; otherwise they come in time order across topic-partitions.
	ReadOrder bool
}

// errNoHistoryReader: an Editor without a History reader.
var errNoHistoryReader = errors.New("no history reader: koff cannot read the offsets topic's records")

// keyInfo is what a key's bytes say, parsed once per distinct key.
type keyInfo struct {
	keep      bool
	partition string
	object    java.Object
	// copies are its summaries, one per topic-partition it is in, by
	// their index in the read's.
	copies map[model.TopicPartition]int
}

// keyFilter keeps the records of one connector's keys (and of some
// partitions), parsing each distinct key once with the codec.
type keyFilter struct {
	connector string
	canons    map[string]bool // nil: every partition
	keys      map[string]*keyInfo
	// The key last asked about, by its bytes' place: the reader asks keep
	// and then, for a record kept, info about the same bytes.
	lastKey []byte
	last    *keyInfo
}

func newKeyFilter(connector string, parts []java.Object) *keyFilter {
	f := &keyFilter{connector: connector, keys: map[string]*keyInfo{}}
	if len(parts) > 0 {
		f.canons = map[string]bool{}
		for _, p := range parts {
			f.canons[planner.CanonOf(p)] = true
		}
	}
	return f
}

func (f *keyFilter) info(key []byte) *keyInfo {
	if len(key) > 0 && len(key) == len(f.lastKey) && &key[0] == &f.lastKey[0] {
		return f.last // the record keep was just asked about
	}
	ki := f.lookup(key)
	f.lastKey, f.last = key, ki
	return ki
}

func (f *keyFilter) lookup(key []byte) *keyInfo {
	if ki, ok := f.keys[string(key)]; ok {
		return ki
	}
	ki := &keyInfo{}
	if k, err := model.ParseKey(key); err == nil && k.Connector == f.connector && (f.canons == nil || f.canons[planner.CanonOf(k.Partition)]) {
		ki.keep, ki.partition, ki.object = true, string(k.PartitionRaw), k.Partition
	}
	if ki.keep || len(f.keys) < maxOtherKeys {
		f.keys[string(key)] = ki
	}
	return ki
}

// maxOtherKeys bounds the keys of other connectors remembered as not
// kept: beyond it (a topic of a million MirrorMaker partitions) they are
// parsed again each time rather than held.
const maxOtherKeys = 100_000

func (f *keyFilter) keep(key []byte) bool { return key != nil && f.info(key).keep }

// copyKey is a stored key's identity: topic-partition and raw key bytes.
func copyKey(id model.PartitionID) string { return id.TopicPartition.String() + "\x00" + id.Key }

// A HistoryTap is what a read of the offsets topics hands records to,
// topic after topic: Keep says from the key's bytes whether Add wants
// the record, and Read ends each topic with what it still holds. The
// read may load the Store as it goes (kafka.Config.ReadHistoryLoading):
// what depends on the Store is worked out after it (RewindRead).
type Tap interface {
	Keep(key []byte) bool
	Add(*Record) error
	Read(logs []RetainedLog)
}

// ReadTap reads every offsets topic into tap.
func (e *Reader) ReadTap(ctx context.Context, tap Tap) error {
	if e.History == nil {
		return errNoHistoryReader
	}
	for _, topic := range e.topics() {
		logs, err := e.History(ctx, topic, tap.Keep, tap.Add)
		if err != nil {
			return err
		}
		tap.Read(logs)
	}
	return nil
}

// ReadHistory reads the history of a connector's source partitions from
// every offsets topic, handing each commit within req's times to each in
// the order read (by topic-partition, then offset), and returns a summary
// per stored key.
//
// The Store is read already (the dashboard's): which copy each key is is
// its judgement as the read begins, and each commit is handed on as it is
// read, nothing kept of it.
func (e *Reader) ReadHistory(ctx context.Context, req Request, each func(*Commit) error) (*History, error) {
	r := e.StartHistory(ctx, req)
	r.each, r.copies = each, e.storedCopyRows(req.Connector)
	if err := e.ReadTap(ctx, r); err != nil {
		return nil, err
	}
	return e.FinishHistory(r, nil)
}

// auditMark is one record a koff edit wrote (or had the worker write).
type auditMark struct {
	tp    string
	edit  KoffEdit
	value []byte
	// position is the log end of the topic-partition just before the edit
	// wrote (-1: not logged, as for REST edits): the record is at or after
	// it. Otherwise it was written between from and to.
	position int64
	from, to time.Time
	claimed  bool
}

// auditMarks finds which records koff's own edits of a connector wrote,
// keyed by key bytes.
type auditMarks map[string][]*auditMark

func (e *Reader) auditMarks(ctx context.Context, connector string) auditMarks {
	if e.Audit == nil {
		return nil
	}
	edits, err := e.Audit.Edits()
	if err != nil {
		return nil
	}
	cluster, _ := e.clusterID(ctx)
	marks := auditMarks{}
	for _, ed := range edits {
		st := ed.Start
		if st.Connector != connector || ed.Result() == audit.ResultFailed || cluster != "" && st.Cluster != "" && st.Cluster != cluster {
			continue
		}
		to := st.Time.Add(e.verifyTimeout())
		if ed.Outcome != nil {
			to = ed.Outcome.Time
		}
		for _, ch := range st.Changes {
			for _, r := range ch.Records {
				pos, ok := st.Positions[r.TopicPartition]
				if !ok {
					pos = -1
				}
				k := string(r.KeyBytes())
				marks[k] = append(marks[k], &auditMark{
					tp:    r.TopicPartition,
					edit:  KoffEdit{ID: st.ID, User: st.User, Time: st.Time, Kind: st.Kind},
					value: r.ValueBytes(), position: pos, from: st.Time, to: to,
				})
			}
		}
	}
	return marks
}

// match is the audited edit that wrote r, if any: the first record of its
// key and value at or after the edit's logged position, or else within
// its time (a second of clock skew either side).
func (m auditMarks) match(r *Record) *KoffEdit {
	if len(m) == 0 {
		return nil
	}
	for _, a := range m[string(r.Key)] {
		if a.claimed || a.tp != (model.TopicPartition{Topic: r.Topic, Partition: r.Partition}).String() || (a.value == nil) != (r.Value == nil) || !bytes.Equal(a.value, r.Value) {
			continue
		}
		if a.position >= 0 && r.Offset < a.position {
			continue
		}
		if a.position < 0 && (r.Time.Before(a.from.Add(-time.Second)) || r.Time.After(a.to.Add(time.Second))) {
			continue
		}
		a.claimed = true
		ed := a.edit
		return &ed
	}
	return nil
}

// TimestampType names a commit's timestamp type as Kafka does.
func TimestampType(logAppend bool) string {
	if logAppend {
		return "LogAppendTime"
	}
	return "CreateTime"
}

// RequireSource refuses a name koff has never seen and partitions the
// connector never had, as a set does, with the closest names.
func (e *Reader) RequireSource(ctx context.Context, name string, parts []java.Object) error {
	if err := e.Planner.RequireKnown(ctx, plan.KindSet, name, "", false); err != nil {
		return planner.CreatingNothing(err)
	}
	if len(parts) == 0 {
		return nil
	}
	return planner.CreatingNothing(e.Planner.RequirePartitions(plan.Request{Connector: name, Kind: plan.KindSet, Items: itemsOf(parts)}, e.Planner.StoredCopies(name)))
}

// SinkCommits is what Kafka keeps of a sink's commits: its group's latest
// committed offset per partition, nothing older. isSink is false for a
// source (or a name koff does not know as a sink).
func (e *Reader) SinkCommits(ctx context.Context, name, group string) (poll model.GroupPoll, g string, isSink bool, err error) {
	if isSink, err = e.Planner.SinkConnector(ctx, plan.Request{Connector: name, Group: group}); err != nil || !isSink {
		return poll, "", false, err
	}
	g, _ = e.Planner.SinkGroupOf(name, group)
	if e.REST != nil && group == "" {
		if cfg, err := e.REST.ConnectorConfig(ctx, name); err == nil {
			g = model.SinkGroupName(name, cfg)
		}
	}
	poll, err = e.groupPoll(ctx, g)
	return poll, g, true, err
}

// String names the koff edit that wrote a commit, as koff history marks
// it: "koff rewind ID by USER at TIME".
func (k KoffEdit) String() string {
	return "koff " + string(k.Kind) + " " + k.ID + " by " + audit.OrUnknownUser(k.User) + " at " + model.TimeText(k.Time)
}
