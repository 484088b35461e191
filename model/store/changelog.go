package store

import "sort"

// changeLog is the places (entry.idx) of a connector's entries in the
// order of their latest change, each with the Store's stamp of that
// change: a read of what changed since a stamp (PartitionsSince, the kept
// counts) finds it without looking at the 100,000 entries that did not
// change. A place is appended at each new stamp of its entry, and the
// appearances a later one superseded are dropped when the log holds half
// again as many as there are entries, so it costs a constant per record
// and at most 18 bytes per entry.
type changeLog struct {
	at    []int32
	stamp []uint64
}

// logChange notes that e changes at the Store's stamp now. One-shot
// Stores keep no log: nothing reads what changed since a read.
func (s *Store) logChange(c *connector, e *entry) {
	if e.stamp == s.stamp || s.opts.OneShot {
		return
	}
	l := &c.changes
	if n := len(c.entries); len(l.at) >= n+n/2+64 {
		l.compact(c.entries)
	}
	l.at = append(l.at, e.idx)
	l.stamp = append(l.stamp, s.stamp)
}

// compact keeps the latest appearance of each place, in order.
func (l *changeLog) compact(entries []*entry) {
	k := 0
	for i, at := range l.at {
		if entries[at].stamp == l.stamp[i] {
			l.at[k], l.stamp[k] = at, l.stamp[i]
			k++
		}
	}
	l.at, l.stamp = l.at[:k], l.stamp[:k]
}

// changedSince calls f with each of c's entries changed since stamp,
// once each. Callers hold s.mu.
func (s *Store) changedSince(c *connector, stamp uint64, f func(*entry)) {
	if c.stamp <= stamp {
		return
	}
	if s.opts.OneShot { // no log: every entry is looked at
		for _, e := range c.entries {
			if e.stamp > stamp {
				f(e)
			}
		}
		return
	}
	l := &c.changes
	from := sort.Search(len(l.stamp), func(i int) bool { return l.stamp[i] > stamp })
	for i := from; i < len(l.at); i++ {
		// An entry appears once per stamp: its latest appearance is the
		// one of its stamp now.
		if e := c.entries[l.at[i]]; e.stamp == l.stamp[i] {
			f(e)
		}
	}
}
