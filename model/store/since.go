package store

import (
	"sync/atomic"

	"koff/model"
)

// PartitionChanges is what changed among one connector's source
// partitions since a stamp of an earlier read (PartitionsSince).
type PartitionChanges struct {
	// Stamp is the Store's change count at this read: the since of the
	// next one.
	Stamp uint64
	// Whole: Rows are every partition of the connector, in their places
	// (At is nil), and what an earlier read gave is to be dropped: the
	// first read, a connector read again from scratch, or a new partition
	// count of its topic, which every row's flags depend on.
	Whole bool
	// Rows are the rows that changed, and At each one's place among the
	// connector's partitions. Places are fixed: a partition keeps its
	// place from read to read, and new partitions come after the last.
	// A changed row is an allocation of its own, so that a reader keeps
	// it as it is (no copy) without keeping the others of the read alive;
	// the rows of a whole read share one block.
	Rows []*model.PartitionRow
	At   []int32
	// Count is how many places the connector has now (0 when it has no
	// partitions in the Store).
	Count int
}

// stampBases gives each Store its own range of stamps, so that a stamp of
// another Store's read is never taken for one of this Store's.
var stampBases atomic.Uint64

func newStampBase() uint64 { return stampBases.Add(1) << 40 }

// PartitionsSince returns the rows of one connector's source partitions
// that changed since the read whose Stamp is since (0: every row). Applied
// to the rows of that read, place by place, they give the rows of
// Partitions now, in the places order rather than sorted: a reader of a
// connector of 100,000 partitions whose records stream in pays for the
// partitions that changed, not for all of them.
//
// A row changes with a record of its own key bytes in its topic-partition,
// a new copy of its partition (FlagDuplicate, stray, live: copies make a
// partition of several) and a new partition count of the topic
// (FlagMisplaced: Whole). What the task reads of a partition of one copy
// depends on that copy alone; a partition of several copies is decided
// over the connector's other partitions (field orders, flushes) and the
// topic's other records (a fresh read's partition order), so its rows are
// given whenever the Store changed.
func (s *Store) PartitionsSince(id model.ConnectorID, since uint64) PartitionChanges {
	return s.PartitionsSinceGivingWay(id, since, nil)
}

// PartitionsSinceGivingWay is PartitionsSince calling giveWay (unless
// nil) after every 1,024 rows it makes: a read of 100,000 takes tens of
// milliseconds, which a reader off a UI's goroutine lets the UI's
// goroutines interrupt (runtime.Gosched) rather than wait out.
func (s *Store) PartitionsSinceGivingWay(id model.ConnectorID, since uint64, giveWay func()) PartitionChanges {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ch := PartitionChanges{Stamp: s.stamp}
	c := s.connectors[id]
	if c == nil {
		ch.Whole = true
		return ch
	}
	ch.Count = len(c.entries)
	if since == 0 || since > s.stamp || c.whole > since {
		ch.Whole = true
		block := newPages[ownedRow](len(c.entries)) // filled through write barriers, which read first
		ch.Rows = make([]*model.PartitionRow, len(c.entries))
		cp, nparts := s.partsOf(c), s.partitions[id.Topic]
		for i, e := range c.entries {
			s.rowInto(&block[i].row, &block[i].live, e, cp, nparts)
			ch.Rows[i] = &block[i].row
			if i&1023 == 1023 && giveWay != nil {
				giveWay()
			}
		}
		return ch
	}
	if s.stamp == since {
		return ch
	}
	cp, nparts := s.partsOf(c), s.partitions[id.Topic]
	n := 0
	for _, i := range cp.multi {
		n += len(cp.parts[i].entries)
	}
	s.changedSince(c, since, func(e *entry) {
		if len(cp.of[e.idx].entries) == 1 {
			n++
		}
	})
	// Counted first: a big change is 100,000 rows.
	ch.Rows, ch.At = make([]*model.PartitionRow, 0, n), make([]int32, 0, n)
	add := func(e *entry) {
		ch.At = append(ch.At, e.idx)
		ch.Rows = append(ch.Rows, s.ownRow(e, cp, nparts))
		if len(ch.Rows)&1023 == 0 && giveWay != nil {
			giveWay()
		}
	}
	s.changedSince(c, since, func(e *entry) {
		if len(cp.of[e.idx].entries) == 1 {
			add(e)
		}
	})
	for _, i := range cp.multi {
		for _, e := range cp.parts[i].entries {
			add(e)
		}
	}
	return ch
}

// ownedRow is a row with the LiveCopy it points to, in one allocation.
type ownedRow struct {
	row  model.PartitionRow
	live model.PartitionID
}

// ownRow is e's row in an allocation of its own, with its LiveCopy when
// that is another copy's; the live copy's row, which is never moved,
// points to its own ID.
func (s *Store) ownRow(e *entry, cp *connParts, nparts int) *model.PartitionRow {
	if live := cp.of[e.idx].live; live == e || live == nil {
		r := new(model.PartitionRow)
		s.rowInto(r, &r.ID, e, cp, nparts) // r.ID is e's ID: written again as it is
		return r
	}
	o := new(ownedRow)
	s.rowInto(&o.row, &o.live, e, cp, nparts)
	return &o.row
}

// RowsChangedSince reports whether a row of the connector's partitions
// may have changed since the Store's change count was since (its Stamp
// then, 0: never read), as PartitionsSince would give rows, and the count
// now. A reader that keeps what it made of the rows (the resume poller:
// a million offsets) makes it again only when they changed.
func (s *Store) RowsChangedSince(id model.ConnectorID, since uint64) (bool, uint64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := s.connectors[id]
	switch {
	case c == nil || since == 0 || since > s.stamp || c.whole > since:
		return true, s.stamp
	case s.stamp == since:
		return false, s.stamp
	}
	// A partition of several copies is decided over the Store's other
	// records: it may change whenever the Store did.
	return c.stamp > since || len(s.partsOf(c).multi) > 0, s.stamp
}
