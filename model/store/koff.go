package store

import (
	"time"

	"koff/model"
)

// Records koff's own edits write are no flushes of the connector: a reset
// or a set would otherwise make a stalled or deleted connector look
// "flushing" and shorten its estimated interval. koff's direct writes carry
// a header the Tailer reads (Record.Koff); for a REST edit, which the
// worker writes, the edit tells the Store what is about to come
// (KoffWrites), and the Tailer's record of the same key and value bytes
// (in the same topic-partition, when known) counts as koff's. Either is
// kept as an update of the partition but not as a flush event, nor as a
// gap between the partition's updates.

// koffWrite is one record an edit will write. Topic "" matches any
// topic-partition: a REST edit, which the worker writes where it chooses.
type koffWrite struct {
	tp    model.TopicPartition
	key   string
	value string
	tomb  bool
}

// koffPending caps the writes remembered: an edit whose records never
// arrive (a failed write) must not grow the Store forever.
const koffPending = 1 << 16

// koffKeep is how long an announced write waits for its record.
const koffKeep = 10 * time.Minute

// KoffWrites tells the Store that recs are about to be written for an edit
// of koff (Topic "" where the worker picks the topic-partition).
func (s *Store) KoffWrites(recs []Record, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.koff == nil {
		s.koff = map[koffWrite]koffAnnounced{}
	}
	for w, p := range s.koff {
		if now.Sub(p.at) > koffKeep {
			delete(s.koff, w)
		}
	}
	for _, r := range recs {
		if len(s.koff) >= koffPending {
			return
		}
		w := koffWriteOf(r)
		s.koff[w] = koffAnnounced{at: now, n: s.koff[w].n + 1}
	}
}

// koffAnnounced is when a write was announced, and how many records of it
// are to come (a REST edit may write one to each offsets topic).
type koffAnnounced struct {
	at time.Time
	n  int
}

func koffWriteOf(r Record) koffWrite {
	w := koffWrite{key: string(r.Key), value: string(r.Value), tomb: r.Value == nil}
	if r.Topic != "" {
		w.tp = model.TopicPartition{Topic: r.Topic, Partition: r.Partition}
	}
	return w
}

// takeKoff reports whether r is a record koff announced, and forgets it.
// Callers hold s.mu.
func (s *Store) takeKoff(r *Record) bool {
	if len(s.koff) == 0 {
		return false
	}
	w := koffWriteOf(*r)
	for _, w := range []koffWrite{w, {key: w.key, value: w.value, tomb: w.tomb}} {
		if p, ok := s.koff[w]; ok {
			if p.n--; p.n <= 0 {
				delete(s.koff, w)
			} else {
				s.koff[w] = p
			}
			return true
		}
	}
	return false
}

// koffUpdate notes that e's update from record offset off is koff's.
// Callers hold s.mu.
func (s *Store) koffUpdate(e *entry, off int64) {
	if s.koffUpdates == nil {
		s.koffUpdates = map[*entry][]int64{}
	}
	offs := append(s.koffUpdates[e], off)
	if len(offs) > s.opts.History {
		offs = offs[len(offs)-s.opts.History:]
	}
	s.koffUpdates[e] = offs
}

// gapOf is e's median gap between updates, koff's own updates left out.
// Callers hold s.mu.
func (s *Store) gapOf(e *entry) (time.Duration, int32) {
	if len(s.koffUpdates) == 0 { // nearly always: no map lookup per entry
		return e.medianGap()
	}
	offs := s.koffUpdates[e]
	if len(offs) == 0 {
		return e.medianGap()
	}
	var theirs []model.Update
	for _, u := range e.orderedHistory() {
		own := false
		for _, o := range offs {
			own = own || o == u.RecordOffset
		}
		if !own {
			theirs = append(theirs, u)
		}
	}
	g, n := model.MedianGap(theirs)
	return g, int32(n)
}
