package store

import (
	"time"

	"koff/model"
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
// bytes of every record read, and with each kept record what it
// superseded: their count, the latest of their times, and the times and
// offsets of as many as the Store's history keeps. That is what a Latest
// hands over of a chunk (Latest.Keep); the chunk here is the whole
// partition. The times matter to what is printed: they say which of a
// partition's field orders a task wrote in one flush with its other
// partitions (flushedWith). Values are copied: the part's blocks,
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
	// was read before; prev chains each record to the one of its key
	// bytes before it.
	at := make(map[string]int32, len(p.recs))
	kept := make([]int32, 0, len(p.recs))
	var prev []int32
	for i := range p.recs {
		k := unsafeString(p.key(&p.recs[i]))
		if j, ok := at[k]; ok {
			if prev == nil {
				prev = make([]int32, len(p.recs))
				for x := range prev {
					prev[x] = -1
				}
			}
			prev[i] = kept[j]
			kept[j] = int32(i) // later: in the order appended
			continue
		}
		at[k] = int32(len(kept))
		kept = append(kept, int32(i))
	}
	n := int(p.seen)
	hist := int32(p.hist)
	c := &latestChunk{hist: hist, offsets: make([]int64, n), bytes: make([]int64, n+1), count: make([]int32, n), key: make([]int32, n)}
	c.bytes[n] = p.bytes // offsets all 0: counted from the start (the Store read nothing of the partition before)
	if prev != nil || len(p.over) > 0 {
		p.superseded(c, kept, prev)
	}
	var vals []byte
	recs := make([]Record, len(kept))
	for i, x := range kept {
		rc := &p.recs[x]
		r := &recs[i]
		*r = Record{Topic: p.tp.Topic, Partition: p.tp.Partition, Offset: p.base + int64(rc.offset), Key: p.key(rc), Koff: rc.flags&osKoff != 0}
		if rc.ms != zeroMs {
			r.Time = msTime(rc.ms) // as the Tailer's decoder makes it
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

// superseded fills c's counts, newest times and older updates of the
// kept records (indexes into p.recs; prev their keys' chains): the
// records of each key bytes before the kept one, oldest first, each
// after what was written over it in place (p.over).
func (p *OneShotPart) superseded(c *latestChunk, kept, prev []int32) {
	keep := int(c.hist - 1)
	c.from, c.newest = make([]int32, len(c.count)), make([]time.Time, len(c.count))
	var chain []int32
	var seq []model.Update
	for _, x := range kept {
		chain = append(chain[:0], x)
		for prev != nil && prev[chain[len(chain)-1]] >= 0 {
			chain = append(chain, prev[chain[len(chain)-1]])
		}
		count, newest := int32(0), zeroMs
		seq = seq[:0]
		for k := len(chain) - 1; k >= 0; k-- { // oldest first
			i := chain[k]
			if int(i) < len(p.over) && p.over[i].count > 0 {
				v := &p.over[i]
				count += v.count
				newest = max(newest, v.newest)
				seq = v.updates(seq)
			}
			if i != x {
				rc := &p.recs[i]
				count++
				newest = max(newest, rc.ms)
				seq = append(seq, model.Update{Time: msTime(rc.ms), RecordOffset: p.base + int64(rc.offset)})
			}
		}
		if count == 0 {
			continue
		}
		pos := p.recs[x].ord
		c.count[pos] = count
		c.newest[pos] = msTime(newest)
		c.from[pos] = int32(len(c.older))
		c.older = append(c.older, seq[max(len(seq)-keep, 0):]...)
	}
}

// msTime is a record time of Unix milliseconds as the Tailer's decoder
// makes it (the zero time for zeroMs).
func msTime(ms int64) time.Time {
	if ms == zeroMs {
		return time.Time{}
	}
	return time.Unix(ms/1000, ms%1000*int64(time.Millisecond))
}

// release lets the part's memory go.
func (p *OneShotPart) release() {
	p.blocks, p.recs, p.slots, p.chunkSlots, p.hashes, p.conns, p.over = nil, nil, nil, nil, nil, nil, nil
	p.keep, p.shapes, p.tookBlk, p.cur = arena{}, keyShapes{}, -1, -1
}
