package store

import (
	"time"
)

// HandOver hands every part's records to the Store, once the read is
// over: Bodies gave up, or the Store must print for another reason (see
// the caller). Parts that handed theirs over while reading are done.
func (o *OneShotRead) HandOver() {
	o.fail("handed to the Store")
	o.mu.Lock()
	parts := o.parts
	o.mu.Unlock()
	for _, p := range parts {
		p.mu.Lock()
		p.handOver()
		p.mu.Unlock()
	}
}

// zeroMs is the Unix milliseconds of a zero time.Time.
var zeroMs = time.Time{}.UnixMilli()

// handOver hands the part's records to the Store (p.ingest) in one batch,
// as the Store holds them having read every record: the last record of
// each key bytes, where the first of them came among the others, at the
// place of the last among the partition's records (ordinal: the polls a
// worker reads the topic in are worked out from it), with the count and
// bytes of every record read. That is what a Latest hands over of a chunk
// (Latest.Keep); the chunk here is the whole partition, and each kept
// record stands for itself alone (the Store's counts of superseded
// records and the times in its history rings, which koff get and export
// do not print, are left out). Values are copied: the part's blocks,
// fetched bytes among them, are let go. p.mu is held.
func (p *OneShotPart) handOver() {
	if p.handed {
		return
	}
	p.handed = true
	defer p.release()
	if len(p.recs) == 0 || p.ingest == nil {
		return
	}
	// The last of each key bytes, in the order of the first: a part that
	// was not indexed from its start holds a key once for each time it
	// was read before.
	at := make(map[string]int32, len(p.recs))
	kept := make([]*osRec, 0, len(p.recs))
	for i := range p.recs {
		rc := &p.recs[i]
		k := unsafeString(p.key(rc))
		if j, ok := at[k]; ok {
			kept[j] = rc // later: in the order appended, or written over in place
			continue
		}
		at[k] = int32(len(kept))
		kept = append(kept, rc)
	}
	n := int(p.seen)
	c := &latestChunk{hist: 1, offsets: make([]int64, n), bytes: make([]int64, n+1), count: make([]int32, n), key: make([]int32, n)}
	c.bytes[n] = p.bytes // offsets all 0: counted from the start (the Store read nothing of the partition before)
	var vals []byte
	recs := make([]Record, len(kept))
	for i, rc := range kept {
		r := &recs[i]
		*r = Record{Topic: p.tp.Topic, Partition: p.tp.Partition, Offset: p.base + int64(rc.offset), Key: p.key(rc), Koff: rc.flags&osKoff != 0}
		if rc.ms != zeroMs {
			r.Time = time.Unix(rc.ms/1000, rc.ms%1000*int64(time.Millisecond)) // as the Tailer's decoder makes it
		}
		if rc.vlen >= 0 {
			v := p.value(rc)
			if cap(vals)-len(vals) < len(v) {
				vals = make([]byte, 0, max(64<<10, len(v)))
			}
			vals = append(vals, v...)
			r.Value = vals[len(vals)-len(v) : len(vals) : len(vals)]
		}
		r.prep = prepared{done: true, plain: r.Value != nil, hash: hashBytes(keySeed, r.Key), chunk: c, pos: int32(rc.ord)}
	}
	p.ingest(recs)
}

// release lets the part's memory go.
func (p *OneShotPart) release() {
	p.blocks, p.recs, p.slots, p.chunkSlots, p.hashes, p.conns = nil, nil, nil, nil, nil, nil
	p.keep, p.shapes, p.tookBlk, p.cur = arena{}, keyShapes{}, -1, -1
}
