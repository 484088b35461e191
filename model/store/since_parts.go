package store

import (
	"slices"
	"time"
)

// redecide is buildParts for a connector whose entries are those cp was
// built over (a new record of a known key, not a new key) in a topic of
// the same partition count: the grouping into partitions and the field
// orders stand, and so does what the task reads of a partition of one
// copy, which depends on that copy's key alone (live when in the task's
// form, else no offset and why). Only the partitions of several copies
// are decided again: their records, those of the connector's other
// partitions (flushedWith) and a fresh read's partition order (which the
// topic's partitions with records change) choose among them. The states
// are not changed in place: readers of cp may hold them.
func (cp *connParts) redecide(c *connector, tr *topicRead, window time.Duration, shapes []keyShape) *connParts {
	next := &connParts{gen: c.gen, parts: cp.parts, of: cp.of, n: cp.n, nparts: tr.partitions, orders: cp.orders, tally: cp.tally, multi: cp.multi}
	if len(cp.multi) == 0 {
		return next
	}
	next.parts, next.of = slices.Clone(cp.parts), slices.Clone(cp.of)
	next.decideAgain(cp.multi, c.id.Name, tr, window, shapes)
	return next
}

// decideAgain decides the partitions of several copies at places multi
// of cp.parts into new states, in arrays of cp's own: readers of the
// states before may hold them.
func (cp *connParts) decideAgain(multi []int32, name string, tr *topicRead, window time.Duration, shapes []keyShape) {
	states := make([]partState, len(multi))
	flushed := flushedWith(cp.parts, window)
	for k, i := range multi {
		ps := &states[k]
		ps.entries = cp.parts[i].entries
		ps.decide(name, cp.orders, tr, flushed, shapes)
		cp.parts[i] = ps
		for _, e := range ps.entries {
			cp.of[e.idx] = ps
		}
	}
}

// extend is buildParts for a connector that gained only new partitions
// since cp was built over its first cp.n entries (new keys, as a topic
// read from its start brings them), in a topic of the same partition
// count: the partitions cp has keep their copies and what the task reads
// of those of one copy, so only the new ones are grouped, counted in the
// field orders and decided, and those of several copies decided again as
// redecide does. A read of a connector growing by thousands of partitions
// a second then costs what it gained, not all it has. It returns nil when
// a new entry is a copy of a partition cp has: buildParts groups anew.
//
// The new partitions go into cp's arrays past their length, which cp's
// readers never look at, so that extending them again and again costs as
// appending does: partsOf extends only the latest parts of a connector,
// one reader at a time.
func (cp *connParts) extend(c *connector, tr *topicRead, window time.Duration, shapes []keyShape) *connParts {
	added := c.entries[cp.n:]
	heads, chained := 0, 0
	for _, e := range added {
		if e.firstCopy {
			heads++
			// A copy is chained to its first after it, so a new first's
			// copies are new entries too.
			for x := e; x != nil; x = tr.store.entryAt(x.nextCopy) {
				chained++
			}
		}
	}
	if chained != len(added) {
		return nil // a copy of a partition cp has
	}
	next := &connParts{gen: c.gen, n: len(c.entries), nparts: tr.partitions, tally: cp.tally.clone(), multi: cp.multi}
	parts, of := cp.parts, cp.of
	if len(cp.multi) > 0 {
		// Those of several copies are decided again below, into arrays of
		// next's own.
		parts, of = slices.Clone(parts), slices.Clone(of)
	}
	next.parts = slices.Grow(parts, heads)
	next.of = slices.Grow(of, len(added))[:len(c.entries)]
	from := len(next.parts)
	next.group(added, heads, tr.store, shapes)
	next.orders = next.tally.orders()
	next.decideFrom(from, c, tr, window, shapes)
	if len(cp.multi) == 0 {
		return next
	}
	next.decideAgain(cp.multi, c.id.Name, tr, window, shapes)
	return next
}

// group appends to cp the partitions of entries, heads of them (the copies
// of one are chained from its first, see Store.newEntry), each with its
// copies, and counts them in cp's field-order tally. It allocates a few
// blocks, not a few objects per partition.
func (cp *connParts) group(entries []*entry, heads int, s *Store, shapes []keyShape) {
	from := len(cp.parts)
	states := make([]partState, heads)
	flat := make([]*entry, 0, len(entries))
	for _, e := range entries {
		if !e.firstCopy {
			continue
		}
		ps := &states[len(cp.parts)-from]
		start := len(flat)
		for x := e; x != nil; x = s.entryAt(x.nextCopy) {
			flat = append(flat, x)
			cp.of[x.idx] = ps
		}
		ps.entries = flat[start:len(flat):len(flat)]
		if len(ps.entries) > 1 {
			cp.multi = append(cp.multi, int32(len(cp.parts)))
		}
		cp.parts = append(cp.parts, ps)
		cp.tally.add(ps, shapes)
	}
}
