package history

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"koff/edit/planner"
	"koff/model"
	"koff/model/java"
)

// A partition's history is one thing per cluster, however many dashboards
// look at it: HistoryShare reads it from the offsets topics once, then
// follows it by reading only what each topic-partition gained since
// (HistoryFromReader), and every viewer of the partition (koff serve's
// sessions, the local dashboard) is handed the same. What it keeps is
// bounded: the newest commits of each partition someone views, for at
// most shareMaxEntries partitions, each let go once nobody asked for it
// for shareIdle.

// HistoryShare is the partition histories the dashboards of one cluster
// share (Editor.Shared).
type Share struct {
	// Reloaded is when the Tailer last read the offsets topics from
	// scratch (model.TailStatus.Reloaded): a history read before is of a
	// log that may be gone, and is read again from the start.
	Reloaded func() time.Time
	// Now is the clock the idle partitions are let go by (time.Now).
	Now func() time.Time

	mu      sync.Mutex
	entries map[string]*sharedHistory
	// seq orders requests and reads: a request is answered by a read
	// begun after it arrived, whoever asked for that read.
	seq            atomic.Uint64
	reads, follows atomic.Int64
}

// How much a HistoryShare keeps, and for how long.
const (
	// shareIdle: a partition's history nobody asked for since is let go.
	shareIdle = 2 * time.Minute
	// shareMaxEntries bounds the partitions kept; the one asked for
	// longest ago goes first.
	shareMaxEntries = 64
	// shareMaxAge: a history followed this long is read again from the
	// start, so that what compaction removed since goes from it too.
	shareMaxAge = 10 * time.Minute
	// shareRecheck: a follow is done at least this often while asked for,
	// whatever the Store shows.
	shareRecheck = 5 * time.Second
)

// PartitionHistory is one source partition's history as a dashboard shows
// it: the newest commits, newest first.
type PartitionHistory struct {
	// Commits are the newest, at most the keep asked for, newest first
	// (time, then offset). Each Value is its own, shared by every viewer:
	// not to be written to. Summary is nil.
	Commits []Commit
	// Read is how many commits there are in all.
	Read int
	// Copies sums up each stored copy, judged by the Store as it is now.
	Copies []CopyHistory
	// Partial is why the read stopped before the end: Commits are those
	// read until then.
	Partial string
}

// Reads says how many times the share read a history from the start, and
// how many times it followed one.
func (s *Share) Reads() (full, follows int64) { return s.reads.Load(), s.follows.Load() }

// sharedHistory is one partition's history, read and followed.
type sharedHistory struct {
	used time.Time // under HistoryShare.mu

	mu        sync.Mutex // one read at a time: the others wait for it
	connector string
	partition java.Object
	keep      int
	r         *Reading  // nil: to be read from the start
	gen       time.Time // Reloaded when it was read
	began     uint64    // seq when the last read began
	readAt    time.Time // when it was read from the start
	checkedAt time.Time // when it was last read or followed
	topics    []string
	ends      map[string][]int64 // where each topic-partition's next read begins
	logs      map[model.TopicPartition]RetainedLog
	recent    []sharedCommit // newest first once trimmed
	sums      []*CopyHistory // the read's, each copy's summary
	read      int
	partial   string
}

type sharedCommit struct {
	c   Commit
	sum *CopyHistory
}

// PartitionHistory reads the history of one source partition (every
// stored copy of its partition map) of connector: its newest keep
// commits and a summary of each copy. With Shared it is the cluster's
// shared history, followed since it was last read; without, a read of
// the offsets topics from the start.
func (e *Reader) PartitionHistory(ctx context.Context, connector string, partition java.Object, keep int) (*PartitionHistory, error) {
	if e.Shared != nil {
		return e.Shared.history(ctx, e, connector, partition, keep)
	}
	h := &sharedHistory{connector: connector, partition: partition, keep: keep}
	if err := h.readAll(ctx, e, time.Time{}); err != nil && (h.read == 0 || ctx.Err() == context.Canceled) {
		return nil, err
	}
	return h.snapshot(e), nil
}

func (s *Share) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Share) reloaded() time.Time {
	if s.Reloaded != nil {
		return s.Reloaded()
	}
	return time.Time{}
}

// entry is the partition's history, kept from now on; partitions nobody
// asked for lately are let go.
func (s *Share) entry(connector string, partition java.Object, keep int) *sharedHistory {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.entries == nil {
		s.entries = map[string]*sharedHistory{}
	}
	for k, h := range s.entries {
		if now.Sub(h.used) > shareIdle {
			delete(s.entries, k)
		}
	}
	key := connector + "\x00" + planner.CanonOf(partition) + "\x00" + strconv.Itoa(keep)
	h, ok := s.entries[key]
	if !ok {
		for len(s.entries) >= shareMaxEntries {
			oldest := ""
			for k, o := range s.entries {
				if oldest == "" || o.used.Before(s.entries[oldest].used) {
					oldest = k
				}
			}
			delete(s.entries, oldest)
		}
		h = &sharedHistory{connector: connector, partition: partition, keep: keep}
		s.entries[key] = h
	}
	h.used = now
	return h
}

func (s *Share) history(ctx context.Context, e *Reader, connector string, partition java.Object, keep int) (*PartitionHistory, error) {
	arrived := s.seq.Add(1)
	h := s.entry(connector, partition, keep)
	h.mu.Lock()
	defer h.mu.Unlock()
	gen := s.reloaded()
	now := s.now()
	switch {
	case h.r == nil || gen.After(h.gen) || now.Sub(h.readAt) > shareMaxAge || !slices.Equal(h.topics, e.topics()):
		h.began = s.seq.Add(1)
		s.reads.Add(1)
		h.readAt, h.checkedAt = now, now
		if err := h.readAll(ctx, e, gen); err != nil {
			if h.read == 0 || ctx.Err() == context.Canceled {
				return nil, err
			}
			return h.snapshot(e), nil // what was read, said to be part
		}
	case h.began > arrived:
		// A read begun after this request arrived answers it.
	case !h.moved(e) && now.Sub(h.checkedAt) < shareRecheck:
		// The Store has no record of the partition past what was read.
	default:
		h.began = s.seq.Add(1)
		h.checkedAt = now
		s.follows.Add(1)
		err := errReadAgain
		if e.HistoryFrom != nil {
			err = h.follow(ctx, e)
		}
		if errors.Is(err, errReadAgain) {
			s.reads.Add(1)
			h.readAt = now
			err = h.readAll(ctx, e, gen)
		}
		if err != nil {
			h.r = nil // read from the start next time
			if h.read == 0 || h.partial == "" || ctx.Err() == context.Canceled {
				return nil, err
			}
		}
	}
	return h.snapshot(e), nil
}

// errReadAgain: what was read cannot be followed (records removed below
// it, a topic recreated): the history is read from the start.
var errReadAgain = errors.New("read the history again from the start")

// moved says the Store has a record of one of the partition's copies at
// or past where the next follow begins.
func (h *sharedHistory) moved(e *Reader) bool {
	for _, t := range h.topics {
		for _, row := range e.Store.Partitions(model.ConnectorID{Topic: t, Name: h.connector}) {
			if !h.r.filter.keep([]byte(row.ID.Key)) {
				continue
			}
			ends := h.ends[row.ID.Topic]
			if row.ID.Partition >= len(ends) || row.RecordOffset >= ends[row.ID.Partition] {
				return true
			}
		}
	}
	return false
}

// readAll reads the history from the start. On an error h holds what was
// read until then (partial) and is not followed.
func (h *sharedHistory) readAll(ctx context.Context, e *Reader, gen time.Time) error {
	if e.History == nil {
		return errNoHistoryReader
	}
	r := e.StartHistory(ctx, Request{Connector: h.connector, Partitions: []java.Object{h.partition}})
	r.copies = e.storedCopyRows(h.connector)
	r.each = h.add
	h.r, h.gen, h.recent, h.read, h.partial = nil, gen, nil, 0, ""
	h.topics = e.topics()
	h.ends, h.logs = map[string][]int64{}, map[model.TopicPartition]RetainedLog{}
	h.sums = nil
	defer func() { h.sums = r.sums }()
	for _, topic := range h.topics {
		logs, err := e.History(ctx, topic, r.Keep, r.Add)
		if err != nil {
			h.partial = err.Error()
			h.trim()
			return err
		}
		h.noteLogs(topic, logs)
	}
	h.trim()
	h.r = r
	r.filter.forgetOthers()
	return nil
}

// follow reads what each offsets topic gained since the last read.
func (h *sharedHistory) follow(ctx context.Context, e *Reader) error {
	r := h.r
	r.marks = r.marks.carry(e.auditMarks(ctx, h.connector)) // edits made since
	r.copies = e.storedCopyRows(h.connector)
	for _, topic := range h.topics {
		logs, err := e.HistoryFrom(ctx, topic, h.ends[topic], r.Keep, r.Add)
		if err != nil {
			return err
		}
		for _, l := range logs {
			old, ok := h.logs[l.TopicPartition]
			if ok && (l.LogStart > old.LogStart || l.End < old.End) {
				return errReadAgain // records were removed below what was read
			}
		}
		h.noteLogs(topic, logs)
	}
	h.trim()
	h.sums = r.sums
	r.filter.forgetOthers()
	return nil
}

// noteLogs notes how far each topic-partition was read, and where its
// first gap is.
func (h *sharedHistory) noteLogs(topic string, logs []RetainedLog) {
	ends := h.ends[topic]
	for _, l := range logs {
		for len(ends) <= l.Partition {
			ends = append(ends, 0)
		}
		ends[l.Partition] = l.End
		if old, ok := h.logs[l.TopicPartition]; ok {
			if old.FirstGap < old.End {
				l.FirstGap = old.FirstGap // the first gap was seen before
			}
			l.LogStart = old.LogStart
		}
		h.logs[l.TopicPartition] = l
	}
	h.ends[topic] = ends
}

// add keeps a commit read, its value copied out of the reader's buffer.
func (h *sharedHistory) add(c *Commit) error {
	h.read++
	sc := sharedCommit{c: *c, sum: c.Summary}
	if c.Value != nil {
		sc.c.Value = append([]byte{}, c.Value...)
	}
	sc.c.Summary = nil
	h.recent = append(h.recent, sc)
	if len(h.recent) >= 2*max(h.keep, 1) {
		h.trim()
	}
	return nil
}

// trim keeps the newest keep commits, newest first.
func (h *sharedHistory) trim() {
	sort.SliceStable(h.recent, func(i, j int) bool { return NewerCommit(&h.recent[i].c, &h.recent[j].c) })
	if h.keep > 0 && len(h.recent) > h.keep {
		clear(h.recent[h.keep:])
		h.recent = h.recent[:h.keep:h.keep]
	}
}

// NewerCommit orders commits newest first: by time, then offset, then
// topic-partition and key, so that every read of the same commits shows
// them in the same order.
func NewerCommit(a, b *Commit) bool {
	if !a.Time.Equal(b.Time) {
		return a.Time.After(b.Time)
	}
	if a.Offset != b.Offset {
		return a.Offset > b.Offset
	}
	if a.ID.Topic != b.ID.Topic {
		return a.ID.Topic < b.ID.Topic
	}
	if a.ID.Partition != b.ID.Partition {
		return a.ID.Partition < b.ID.Partition
	}
	return a.ID.Key < b.ID.Key
}

// snapshot is the history as a dashboard shows it, each copy judged by
// the Store as it is now.
func (h *sharedHistory) snapshot(e *Reader) *PartitionHistory {
	out := &PartitionHistory{Read: h.read, Partial: h.partial, Commits: make([]Commit, len(h.recent))}
	own := ""
	if h.r != nil {
		own = h.r.own
	}
	copies := e.storedCopyRows(h.connector)
	for _, s := range h.sums {
		judgeCopy(s, copies, own)
		s.Complete = h.logs[s.First.TopicPartition].complete(s.First.Offset)
		out.Copies = append(out.Copies, *s)
	}
	sortCopies(out.Copies)
	for i, sc := range h.recent {
		out.Commits[i] = sc.c
		if sc.sum != nil {
			out.Commits[i].Copy = sc.sum.Copy
		}
	}
	return out
}

// forgetOthers lets go of the keys of other partitions and connectors a
// read parsed: a follow parses only those of the records it reads.
func (f *keyFilter) forgetOthers() {
	for k, ki := range f.keys {
		if !ki.keep {
			delete(f.keys, k)
		}
	}
	f.lastKey, f.last = nil, nil
}

// carry is the audit's marks read again, each record claimed by a commit
// before still claimed: the audit log is only appended to, so each key's
// marks begin with those read before.
func (m auditMarks) carry(now auditMarks) auditMarks {
	for k, old := range m {
		for i, a := range old {
			if i < len(now[k]) && a.claimed && now[k][i].edit.ID == a.edit.ID {
				now[k][i].claimed = true
			}
		}
	}
	return now
}
