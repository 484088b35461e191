package store

import (
	"bytes"
	"slices"
	"sync"
	"unsafe"

	"koff/model"
	"koff/model/text"
)

// OffsetsBody is OffsetsBody(rows of the connectors ids, in that order)
// without making the rows: at a million source partitions the rows are
// hundreds of megabytes, and only a few of their fields are written.
func (s *Store) OffsetsBody(ids []model.ConnectorID) []byte { return s.AppendOffsetsBody(nil, ids) }

// AppendOffsetsBody appends OffsetsBody(ids) to dst: a caller writing
// many bodies one after another (koff get) makes them in the same few
// buffers, not in a hundred megabytes of new memory, which is as costly
// to fault in as to fill.
func (s *Store) AppendOffsetsBody(dst []byte, ids []model.ConnectorID) []byte {
	b, _ := s.AppendOffsetsBodyChecked(dst, ids)
	return b
}

// AppendOffsetsBodyChecked is AppendOffsetsBody, and whether what it
// appends is all printable ASCII (text.PrintableASCII), which an output
// guard leaves as it is: told from each text as it is picked and the
// offsets' form, not from a pass over the body.
func (s *Store) AppendOffsetsBodyChecked(dst []byte, ids []model.ConnectorID) (body []byte, printable bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p := bodyScratch.Get().(*bodyPicks)
	defer p.release()
	var seen map[string]bool
	for _, id := range ids {
		c := s.connectors[id]
		if c == nil {
			continue
		}
		from := len(p.keys)
		if !p.singleCopy(c) {
			for _, ps := range s.partsOf(c).parts {
				// The rows OffsetsBody keeps: live, an offset the task
				// reads, a partition map.
				if e := ps.live; e != nil && e.state == valueOffset && e.partitionStr() != "null" {
					p.add(e)
				}
			}
		}
		// The rows' order (Partitions).
		mine := p.keys[from:]
		p.es = p.picks
		p.sort(mine)
		if len(ids) > 1 {
			// Copies in several topics: the first topic's wins.
			if seen == nil {
				seen = map[string]bool{}
			}
			kept := mine[:0]
			for _, k := range mine {
				if e := p.picks[k.at]; !seen[e.identity()] {
					seen[e.identity()] = true
					kept = append(kept, k)
				} else {
					p.size -= k.size(p)
				}
			}
			p.keys = p.keys[:from+len(kept)]
		}
	}
	// Equal partition text is an equal identity, so after the above every
	// pick has its own text and the order by (text, identity) is by text.
	if len(ids) > 1 {
		slices.SortStableFunc(p.keys, func(a, b textKey) int { return bytes.Compare(p.text(&a), p.text(&b)) })
	}
	// Sized for the picks, and a quarter more when new: the next bodies
	// made in it (koff get's, one connector after another) are often a
	// little bigger.
	b := dst
	if need := len(dst) + p.size + len(`{"offsets":[]}`); cap(dst) < need {
		b = append(make([]byte, 0, need+need/4), dst...)
	}
	printable = p.printable
	b = append(b, `{"offsets":[`...)
	for i := range p.keys {
		k := &p.keys[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"partition":`...)
		b = append(b, p.text(k)...)
		b = append(b, `,"offset":`...)
		b = append(b, p.offsets[k.at]...)
		b = append(b, '}')
	}
	return append(b, `]}`...), printable
}

// bodyPicks are the entries a body is made of (picks, the entries of the
// sort's keys), each one's partition text to sort on and the offset it
// writes (offsets): an entry is read once, then the sort and the writing
// read the texts and offsets, not the entries again.
type bodyPicks struct {
	textSort
	picks   []*entry
	offsets []string
	size    int // the bytes the picks' rows take in the body
	// printable: every offset is printable ASCII (the plain form is).
	printable bool
	// copies holds the picks' texts and offsets side by side, in the
	// order picked, which the sort and the writing read again.
	copies bodyCopy
}

// bodyScratch holds AppendOffsetsBody's picks between calls.
var bodyScratch = sync.Pool{New: func() any { return &bodyPicks{printable: true} }}

// release hands p back, holding no text or entry of the Store.
func (p *bodyPicks) release() {
	clear(p.picks)
	clear(p.offsets)
	p.reset()
	p.copies.reset()
	p.picks, p.offsets, p.size, p.printable = p.picks[:0], p.offsets[:0], 0, true
	bodyScratch.Put(p)
}

// add picks e, which has an offset the task reads.
func (p *bodyPicks) add(e *entry) {
	v := e.value()                                       // of one update, as it nearly always is here, the entry's own: no ring read
	offset := unsafe.String(unsafe.SliceData(v), len(v)) // already compact (valueTexts); stored bytes do not change
	if !e.plain {
		offset, _, _ = valueTexts(v)
		p.printable = p.printable && text.PrintableASCII(offset)
	}
	part := e.partitionStr()
	if bodyCopies {
		part, offset = p.copies.keep(part, offset)
	}
	p.textSort.add(part, len(p.picks))
	p.printable = p.printable && text.PrintableASCII(part)
	p.picks = append(p.picks, e)
	p.offsets = append(p.offsets, offset)
	p.size += len(part) + len(offset) + len(`,{"partition":,"offset":}`)
}

// size is the bytes k's row takes in the body.
func (k *textKey) size(p *bodyPicks) int {
	return int(k.n) + len(p.offsets[k.at]) + len(`,{"partition":,"offset":}`)
}

// singleCopy picks what partsOf(c) would give the body when every
// partition of c has one copy, in the task's form (a task reads that copy,
// buildParts decides nothing), without working out the partitions: at a
// million of them that is a hundred megabytes, made for one read. It is
// false, and p as it was, when c has another kind of partition, or its
// partitions are worked out already.
func (p *bodyPicks) singleCopy(c *connector) bool {
	if c.parts.Load() != nil {
		return false
	}
	from, keys, was, printable := len(p.picks), len(p.keys), p.size, p.printable
	// Grown once: a read keeps what doubling leaves behind.
	p.picks, p.offsets, p.keys = slices.Grow(p.picks, len(c.entries)), slices.Grow(p.offsets, len(c.entries)), slices.Grow(p.keys, len(c.entries))
	for _, e := range c.entries {
		if !e.firstCopy || e.nextCopy != 0 || !e.taskForm {
			clear(p.picks[from:])
			clear(p.offsets[from:])
			p.picks, p.offsets, p.keys, p.size, p.printable = p.picks[:from], p.offsets[:from], p.keys[:keys], was, printable
			return false
		}
		if e.state == valueOffset && e.partitionStr() != "null" {
			p.add(e)
		}
	}
	return true
}
