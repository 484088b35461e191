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
	next := &connParts{gen: c.gen, parts: cp.parts, of: cp.of, n: cp.n, nparts: tr.partitions, orders: cp.orders, multi: cp.multi}
	if len(cp.multi) == 0 {
		return next
	}
	next.parts, next.of = slices.Clone(cp.parts), slices.Clone(cp.of)
	states := make([]partState, len(cp.multi))
	flushed := flushedWith(next.parts, window)
	for k, i := range cp.multi {
		ps := &states[k]
		ps.entries = cp.parts[i].entries
		ps.decide(c.id.Name, next.orders, tr, flushed, shapes)
		next.parts[i] = ps
		for _, e := range ps.entries {
			next.of[e.idx] = ps
		}
	}
	return next
}
