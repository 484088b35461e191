package store

import "time"

// keptCounts are what Connectors counts over a connector's partitions
// (Partitions, Deleted, NoOffset, Suspect, PartitionInterval), kept from
// read to read: a read after a batch of records counts again the
// partitions of the entries that changed since the last (changedSince)
// and those of several copies (which any record can decide differently,
// see redecide), not all 100,000 of a MirrorMaker connector. Counted
// afresh after a new partition count or on the first read.
type keptCounts struct {
	stamp uint64 // the Store's stamp they were counted at
	// share is each partition's share of the counts, at the place of its
	// first copy (0: none there): what the task reads (shareOffset...)
	// and shareSuspect.
	share []uint8
	// gap and gapN are the median gap and min(gaps, 2) each entry is
	// counted with (gapN 0: not counted).
	gap     []time.Duration
	gapN    []uint8
	reads   [4]int // partitions by what the task reads (share & 3)
	suspect int
	// least is the least gap of the highest class leastN (known: kept up
	// to date).
	least  time.Duration
	leastN uint8
	known  bool
}

const (
	shareOffset = 1 + iota
	shareDeleted
	shareNoOffset
	shareSuspect = 4
)

// interval is PartitionInterval: the shortest median gap of the
// partitions seen updated three times or more, else of those seen twice.
// When the entry it was taken from changes, the kept gaps are looked
// through again (two arrays, not the entries).
func (k *keptCounts) interval() time.Duration {
	if !k.known {
		k.least, k.leastN = 0, 0
		for i, n := range k.gapN {
			k.better(n, k.gap[i])
		}
		k.known = true
	}
	return k.least
}

// better takes a gap of class n (gapN) if it beats the least.
func (k *keptCounts) better(n uint8, d time.Duration) {
	if n > k.leastN || n == k.leastN && n > 0 && d < k.least {
		k.least, k.leastN = d, n
	}
}

// setShare counts place at's share as v.
func (k *keptCounts) setShare(at int32, v uint8) {
	old := k.share[at]
	if old == v {
		return
	}
	if old != 0 {
		k.reads[old&3]--
		if old&shareSuspect != 0 {
			k.suspect--
		}
	}
	k.reads[v&3]++
	if v&shareSuspect != 0 {
		k.suspect++
	}
	k.share[at] = v
}

// setGap counts e with its median gap now.
func (k *keptCounts) setGap(e *entry) {
	var n uint8
	gap, gaps := e.gapOfUpdates()
	if gap > 0 {
		n = uint8(min(gaps, 2))
	}
	if n == k.gapN[e.idx] && gap == k.gap[e.idx] {
		return
	}
	if k.known && k.gapN[e.idx] == k.leastN && k.gap[e.idx] == k.least {
		k.known = false // the least may be gone: looked for again
	}
	k.gap[e.idx], k.gapN[e.idx] = gap, n
	if k.known {
		k.better(n, gap)
	}
}

// shareOf is a partition's share of the counts.
func shareOf(ps *partState, nparts int) uint8 {
	var v uint8
	switch ps.reads() {
	case valueOffset:
		v = shareOffset
	case valueTombstone:
		v = shareDeleted
	default:
		v = shareNoOffset
	}
	for _, e := range ps.entries {
		if flagsIn(e, ps, nparts).Suspect() {
			return v | shareSuspect
		}
	}
	return v
}

// countsOf brings c's kept counts up to the Store's stamp. Callers hold
// s.mu (read) and s.countsMu.
func (s *Store) countsOf(c *connector) *keptCounts {
	k := c.counts
	if k != nil && k.stamp == s.stamp {
		return k
	}
	cp, nparts := s.partsOf(c), s.partitions[c.id.Topic]
	if k == nil || k.stamp < c.whole {
		k = &keptCounts{share: make([]uint8, len(c.entries)), gap: make([]time.Duration, len(c.entries)), gapN: make([]uint8, len(c.entries))}
		for _, ps := range cp.parts {
			k.setShare(ps.entries[0].idx, shareOf(ps, nparts))
		}
		for _, e := range c.entries {
			k.setGap(e)
		}
		k.stamp, c.counts = s.stamp, k
		return k
	}
	for len(k.share) < len(c.entries) { // new entries: all of them changed since
		k.share, k.gap, k.gapN = append(k.share, 0), append(k.gap, 0), append(k.gapN, 0)
	}
	s.changedSince(c, k.stamp, func(e *entry) {
		k.setGap(e)
		if ps := cp.of[e.idx]; len(ps.entries) == 1 {
			k.setShare(e.idx, shareOf(ps, nparts))
		}
	})
	for _, i := range cp.multi {
		ps := cp.parts[i]
		k.setShare(ps.entries[0].idx, shareOf(ps, nparts))
	}
	k.stamp = s.stamp
	return k
}
