package model

import (
	"cmp"
	"slices"
)

// OffsetsBody is OffsetsBody(rows of the connectors ids, in that order)
// without making the rows: at a million source partitions the rows are
// hundreds of megabytes, and only a few of their fields are written.
func (s *Store) OffsetsBody(ids []ConnectorID) []byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var picks []*entry
	var seen map[string]bool
	size := 0
	for _, id := range ids {
		c := s.connectors[id]
		if c == nil {
			continue
		}
		from := len(picks)
		for _, ps := range s.partsOf(c).parts {
			// The rows OffsetsBody keeps: live, an offset the task reads,
			// a partition map.
			if e := ps.live; e != nil && e.state == valueOffset && e.partitionStr != "null" {
				picks = append(picks, e)
				size += len(e.partitionStr) + len(e.value()) + len(`,{"partition":,"offset":}`)
			}
		}
		// The rows' order (Partitions).
		mine := picks[from:]
		sortByPartition(mine)
		if len(ids) > 1 {
			// Copies in several topics: the first topic's wins.
			if seen == nil {
				seen = map[string]bool{}
			}
			kept := mine[:0]
			for _, e := range mine {
				if !seen[e.identity] {
					seen[e.identity] = true
					kept = append(kept, e)
				}
			}
			picks = picks[:from+len(kept)]
		}
	}
	// Equal partition text is an equal identity, so after the above every
	// pick has its own text and the order by (text, identity) is by text.
	if len(ids) > 1 {
		slices.SortStableFunc(picks, func(a, b *entry) int { return cmp.Compare(a.partitionStr, b.partitionStr) })
	}
	// Sized for the stored values: a compacted one is no longer.
	b := make([]byte, 0, size+len(`{"offsets":[]}`))
	b = append(b, `{"offsets":[`...)
	for i, e := range picks {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"partition":`...)
		b = append(b, e.partitionStr...)
		b = append(b, `,"offset":`...)
		if v := e.value(); plainOffset(v) {
			b = append(b, v...) // already compact (valueTexts)
		} else {
			offset, _, _ := valueTexts(v)
			b = append(b, offset...)
		}
		b = append(b, '}')
	}
	return append(b, `]}`...)
}

// sortByPartition sorts entries by partition text, then topic-partition,
// then the order first seen (as a stable sort would).
func sortByPartition(es []*entry) {
	slices.SortFunc(es, func(a, b *entry) int {
		return cmp.Or(cmp.Compare(a.partitionStr, b.partitionStr), cmp.Compare(a.id.Partition, b.id.Partition), cmp.Compare(a.idx, b.idx))
	})
}
