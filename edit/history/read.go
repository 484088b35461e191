package history

import (
	"context"
	"sort"
	"sync/atomic"

	"koff/edit/planner"
	"koff/model"
)

// HistoryRead is a connector's history as read, before the Store says
// which copy each key is (a HistoryTap): which copy a commit is (live,
// stray, gone) is the Store's judgement once the whole topic is read, and
// the read may be what loads the Store (koff history reads the topics
// once). So the commits shown are kept in order (a spool), and what is
// kept grows with them, never with the rest of the records read. On a
// Store read already (ReadHistory) nothing is kept: each commit is handed
// on as it is read.
type Reading struct {
	req    Request
	marks  auditMarks
	filter *keyFilter
	h      *History
	sums   []*CopyHistory
	edits  []*KoffEdit
	sp     spool
	tl     timeline
	// each, when set, is handed each commit as it is read, its copy
	// judged by the Store as it was when the read began (ReadHistory, on
	// a Store already read): nothing is spooled.
	each   func(*Commit) error
	copies map[string]model.PartitionRow
	// own is the connector's own offsets topic ("": none, or unknown):
	// its copies elsewhere are strays, as its tasks never read them.
	own string
	// judged: the copies were judged, and History.Copies made (Judge).
	judged bool
}

// StartHistory prepares a read of req's history: ReadHistory, or
// ReadTap or a read that also loads the Store, and FinishHistory after
// it.
func (e *Reader) StartHistory(ctx context.Context, req Request) *Reading {
	return &Reading{req: req, marks: e.auditMarks(ctx, req.Connector), filter: newKeyFilter(req.Connector, req.Partitions),
		h: &History{Connector: req.Connector, ReadOrder: req.ReadOrder}, own: e.Planner.OwnTopic(ctx, req.Connector)}
}

func (r *Reading) Keep(key []byte) bool { return r.filter.keep(key) }

func (r *Reading) Read(logs []RetainedLog) { r.h.Logs = append(r.h.Logs, logs...) }

func (r *Reading) Add(rec *Record) error {
	ki := r.filter.info(rec.Key)
	tp := model.TopicPartition{Topic: rec.Topic, Partition: rec.Partition}
	ref := CommitRef{TopicPartition: tp, Offset: rec.Offset, Time: rec.Time, LogAppendTime: rec.LogAppendTime}
	i, ok := ki.copies[tp]
	if !ok {
		i = len(r.sums)
		r.sums = append(r.sums, &CopyHistory{ID: model.PartitionID{TopicPartition: tp, Key: string(rec.Key)}, Partition: ki.partition, First: ref})
		if r.copies != nil {
			judgeCopy(r.sums[i], r.copies, r.own)
		}
		if ki.copies == nil {
			ki.copies = map[model.TopicPartition]int{}
		}
		ki.copies[tp] = i
	}
	s := r.sums[i]
	s.Commits++
	s.Last = ref
	if rec.Value == nil {
		s.Tombstones++
	}
	r.h.LogAppendTime = r.h.LogAppendTime || rec.LogAppendTime
	if !r.req.Since.IsZero() && rec.Time.Before(r.req.Since) || !r.req.Until.IsZero() && rec.Time.After(r.req.Until) {
		return nil
	}
	edit := -1
	if ed := r.marks.match(rec); ed != nil {
		edit = len(r.edits)
		r.edits = append(r.edits, ed)
	}
	r.h.Shown++
	s.Shown++
	s.LastShown = rec.Offset
	if r.each != nil {
		c := Commit{ID: s.ID, Partition: s.Partition, Offset: rec.Offset, Time: rec.Time, LogAppendTime: rec.LogAppendTime,
			Value: rec.Value, Copy: s.Copy, Koff: rec.Koff, Summary: s}
		if edit >= 0 {
			c.Edit = r.edits[edit]
		}
		return r.each(&c)
	}
	at := r.sp.put(spooled{copy: i, offset: rec.Offset, time: rec.Time, logAppend: rec.LogAppendTime, koff: rec.Koff, edit: edit, value: rec.Value})
	if !r.req.ReadOrder {
		r.tl.add(tp, at)
	}
	return nil
}

// storedCopyRows are the connector's stored copies as the Store has them
// now, by copyKey.
func (e *Reader) storedCopyRows(connector string) map[string]model.PartitionRow {
	copies := map[string]model.PartitionRow{}
	for _, t := range e.topics() {
		for _, row := range e.Store.Partitions(model.ConnectorID{Topic: t, Name: connector}) {
			copies[copyKey(row.ID)] = row
		}
	}
	return copies
}

// judgeCopy says which copy s is: live, stray (and why), or gone. Within
// one offsets topic the Store says (model/store/taskread.go); a copy
// outside the connector's own topic own is never read (ownTopic).
func judgeCopy(s *CopyHistory, copies map[string]model.PartitionRow, own string) {
	s.Copy, s.Stray = CopyGone, ""
	if row, ok := copies[copyKey(s.ID)]; ok {
		s.Copy, s.Stray = CopyStray, row.Stray
		switch {
		case own != "" && s.ID.Topic != own:
			s.Stray = planner.NotReadText(own)
		case row.Live:
			s.Copy = CopyLive
		}
	}
}

// FinishHistory hands on the commits of a read done, each with the copy
// the Store now says it is: in time order across topic-partitions, or as
// read (HistoryRequest.ReadOrder).
func (e *Reader) FinishHistory(r *Reading, each func(*Commit) error) (*History, error) {
	return e.FinishHistoryRuns(r, func(_ int, commits func(func(*Commit) error) error) error { return commits(each) })
}

// JudgeHistory says, once a read is done, which copy each stored key is,
// and where its history begins: the History FinishHistoryRuns returns,
// its Copies known before a commit is handed on (koff history sizes its
// columns by them).
func (e *Reader) JudgeHistory(r *Reading) *History {
	h := r.h
	if r.judged {
		return h
	}
	r.judged = true
	copies := r.copies
	if copies == nil {
		copies = e.storedCopyRows(r.req.Connector)
	}
	byTP := map[model.TopicPartition]RetainedLog{}
	for _, l := range h.Logs {
		byTP[l.TopicPartition] = l
	}
	for _, s := range r.sums {
		judgeCopy(s, copies, r.own)
		s.Complete = byTP[s.First.TopicPartition].complete(s.First.Offset)
	}
	for _, s := range r.sums {
		h.Copies = append(h.Copies, *s)
	}
	sortCopies(h.Copies)
	return h
}

// sortCopies orders summaries by partition, topic-partition and key.
func sortCopies(cs []CopyHistory) {
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.Partition != b.Partition {
			return a.Partition < b.Partition
		}
		if a.ID.TopicPartition != b.ID.TopicPartition {
			return a.ID.TopicPartition.String() < b.ID.TopicPartition.String()
		}
		return a.ID.Key < b.ID.Key
	})
}

// timeRun is how many commits in time order make one run.
const timeRun = 2048

// FinishHistoryRuns is FinishHistory in runs: run is called with each run
// of commits in order, numbered from 0, and with a function that hands on
// the run's commits in order. The runs' commits may be handed on beside
// one another, on other goroutines, while run goes on: a history is laid
// out by several (koff history). A commit's Value is valid as long as the
// Commit.
func (e *Reader) FinishHistoryRuns(r *Reading, run func(i int, commits func(each func(*Commit) error) error) error) (*History, error) {
	h := e.JudgeHistory(r)
	// Read only from here on: the runs may be handed on at once.
	sums, edits, blocks := r.sums, r.edits, r.sp.blocks
	commit := func(c *Commit, sp *spooled) {
		s := sums[sp.copy]
		*c = Commit{ID: s.ID, Partition: s.Partition, Offset: sp.offset, Time: sp.time, LogAppendTime: sp.logAppend,
			Value: sp.value, Copy: s.Copy, Koff: sp.koff, Summary: s}
		if sp.edit >= 0 {
			c.Edit = edits[sp.edit]
		}
	}
	if r.req.ReadOrder || r.tl.sorted {
		for i, b := range blocks {
			err := run(i, func(each func(*Commit) error) error {
				var c Commit
				return eachSpooled(b, func(sp *spooled) error {
					commit(&c, sp)
					return each(&c)
				})
			})
			r.sp.blocks[i] = nil
			if err != nil {
				return nil, err
			}
		}
		return h, nil
	}
	refs := r.tl.inTime()
	// Each block is let go once the last of its commits was handed on, as
	// in read order: a history's output is most of its memory's life.
	left := make([]atomic.Int32, len(blocks))
	for _, ref := range refs {
		left[ref.block].Add(1)
	}
	for i := 0; len(refs) > 0; i++ {
		n := min(len(refs), timeRun)
		part := refs[:n]
		refs = refs[n:]
		err := run(i, func(each func(*Commit) error) error {
			var c Commit
			var sp spooled
			used := map[uint32]int32{}
			defer func() {
				for b, n := range used {
					if left[b].Add(-n) == 0 {
						blocks[b] = nil // no other run reads it: all its commits were handed on
					}
				}
			}()
			for _, ref := range part {
				spooledAt(blocks[ref.block], int(ref.at), &sp)
				used[ref.block]++
				commit(&c, &sp)
				if err := each(&c); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	r.sp.blocks, r.tl = nil, timeline{}
	return h, nil
}
