package store

import (
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"koff/model"
)

// A one-shot read without the Store's index or entries, for koff get -o
// json and koff export: at a million source partitions the Store's index
// and entries are read and written at random, a cache miss each, where
// this read touches memory in order. Each partition's
// reader appends its records (keys and values left in the fetched bytes or
// copied back to back, and a few facts worked out while they are in the
// cache) to arrays in arrival order; Bodies then groups each key's records
// by a radix sort of their hashes, keeps the latest, and writes the
// bodies in the Store's order.
//
// It takes only what it prints as the Store does: offsets topics whose
// every key and value is in the plain form (plainSortedKey, plainKeyFacts,
// plainOffset). Anything else makes the read give up; no record is read
// twice: each partition's reader hands what it kept to the Store (Part's
// ingest: the Tailer's Handler) at its next chunk, and goes on into the
// Store, and HandOver hands the rest once the read is over. What is
// handed is what the Store would hold had it read every record: the last
// record of each key bytes of a partition, in the order their keys came,
// each at its place among the partition's records (see handOver).

// OneShotRead collects the records of a one-shot read.
type OneShotRead struct {
	mu    sync.Mutex
	parts []*OneShotPart
	bad   atomic.Bool
	why   atomic.Pointer[string] // the first thing met that is not the simple case
}

// fail notes that the read is not the simple case, and why.
func (o *OneShotRead) fail(why string) {
	o.why.CompareAndSwap(nil, &why)
	o.bad.Store(true)
}

// Why is what made the read give up ("" while it has not).
func (o *OneShotRead) Why() string {
	if w := o.why.Load(); w != nil {
		return *w
	}
	return ""
}

// Reset forgets every part and what made the read give up: the Tailer
// reads again from scratch (a recreated topic), into a Store it reset.
func (o *OneShotRead) Reset() {
	o.mu.Lock()
	for _, p := range o.parts {
		p.mu.Lock()
		p.handed = true // a reader of the last generation, still running, goes on into the Store
		p.release()
		p.mu.Unlock()
	}
	o.parts = nil
	o.why.Store(nil)
	o.bad.Store(false)
	o.mu.Unlock()
}

// OneShotPart is what one topic-partition's reader appends.
type OneShotPart struct {
	r      *OneShotRead
	tp     model.TopicPartition
	ingest func([]Record) // the Store's, for the records handed over
	hist   int            // the Store's history depth (Part)
	// mu is taken by AppendFrom and by HandOver: once the read is over
	// (the Tailer stopped) only HandOver takes it.
	mu     sync.Mutex
	handed bool // the records went to the Store, and so do those read after
	blocks [][]byte
	recs   []osRec
	// seen and bytes are the records appended and their key and value
	// bytes, each superseded one too: the Store's count of the
	// partition's records, from which a worker's polls are worked out
	// (FreshRead).
	seen, bytes int64
	base        int64 // the offset of the first record appended
	shapes      keyShapes
	keep        arena
	conns       []string // by local number
	idBuf       []byte
	// cur is the block stored bytes are appended to; fetched the bytes of
	// the fetch being appended, kept as blocks[tookBlk] once a key or
	// value in it is.
	cur, tookBlk int
	fetched      []byte
	slots        []uint64 // open addressing by the key bytes' hash: its top bits, and 1 + the record's index
	used         int
	chunks       int // appended
	// chunkSlots are repeats' table of one chunk.
	chunkSlots []int32
	hashes     []uint64 // of each key of a chunk
	last       int32    // local number of the last connector met, -1 none
	// over are the records of an indexed part's key bytes written over
	// in place, by the record's index (made once one is): what a handover
	// gives the Store of them (their times decide which of a partition's
	// forms a task wrote, flushedWith).
	over []osOver
}

// osOver is what a record written over in place superseded: how many
// records, the latest of their times, and the times and offsets of the
// last History-1 of them, a ring whose oldest is at head once full.
type osOver struct {
	count, head int32
	newest      int64
	last        []osUpdate
}

// osUpdate is a superseded record's time (Unix milliseconds) and offset.
type osUpdate struct{ ms, offset int64 }

// osRec is a record kept: where its key and value are, what the bodies
// need of its key, and what the Store needs of it if the read gives up.
type osRec struct {
	hash       uint64
	ms         int64  // its time, in Unix milliseconds
	offset     uint32 // its offset, past the part's first record's (OneShotPart.base)
	ord        uint32 // its place among the partition's records (OneShotPart.seen)
	koff, voff uint32 // key at blocks[kblk][koff:], value at blocks[vblk][voff:]
	vlen       int32  // -1: a tombstone
	kblk, vblk uint16
	klen       uint16
	vcap       uint16 // the room at voff: a later value of the key fitting in it is written there
	conn       uint16 // local number of the connector
	cend       uint8  // the connector name ends at key[cend-1] (the closing quote)
	flags      uint8
}

const (
	osNull = 1 << iota // the partition is JSON null
	osKoff             // Record.Koff
)

// Part returns the part of tp, made for up to n records (the offsets
// between the partition's start and end); ingest takes the records it
// hands over if the read gives up (the Store's Ingest), each with the
// times and offsets of up to history-1 records it superseded (the Store's
// History, as a Latest keeps them).
func (o *OneShotRead) Part(tp model.TopicPartition, n int64, history int, ingest func([]Record)) *OneShotPart {
	p := &OneShotPart{r: o, tp: tp, ingest: ingest, hist: max(history, 1), last: -1, cur: -1, tookBlk: -1}
	// Made at its size once, not grown to it (twice the memory), up to
	// 128k records: a compacted partition's offsets can be a hundred
	// times its records, and a bigger one grows as it fills.
	if n > 0 {
		p.recs = make([]osRec, 0, min(n, osMade))
	}
	o.mu.Lock()
	o.parts = append(o.parts, p)
	o.mu.Unlock()
	return p
}

const osBlock = 1 << 20

// osMade is the most records a part's records are made for at first.
const osMade = 1 << 17

// Append appends recs, in offset order: a record of a key the partition
// held before takes its place (its value written over the last when it
// fits), so that a key read again and again is kept once. Once the read
// has given up, it hands what the part kept to the Store instead, and
// returns the records of recs the caller must hand on itself.
func (p *OneShotPart) Append(recs []Record) ([]Record, bool) { return p.AppendFrom(recs, nil) }

// AppendFrom is Append of records whose keys and values may be in fetched,
// the bytes of a fetch response: while the partition is not indexed
// (nearly every record kept), they are kept there, not copied, and Took
// tells the reader to read the next fetch into new memory.
func (p *OneShotPart) AppendFrom(recs []Record, fetched []byte) ([]Record, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.handed && !p.r.bad.Load() {
		p.fetched = fetched
		n := p.appendFrom(recs)
		p.fetched = nil
		if n == len(recs) {
			return nil, true
		}
		recs = recs[n:]
	}
	p.handOver()
	return recs, false
}

// Took reports whether the part keeps bytes of fetched.
func (p *OneShotPart) Took(fetched []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(fetched) > 0 && p.tookBlk >= 0 && p.tookBlk < len(p.blocks) && unsafe.SliceData(p.blocks[p.tookBlk]) == unsafe.SliceData(fetched)
}

// within is where b is in the fetched bytes, when it is there and kept
// there.
func (p *OneShotPart) within(b []byte) (blk, off uint32, ok bool) {
	if p.slots != nil || len(p.fetched) == 0 || len(b) == 0 {
		return 0, 0, false
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(p.fetched)))
	at := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if at < base || at+uintptr(len(b)) > base+uintptr(len(p.fetched)) {
		return 0, 0, false
	}
	if p.tookBlk < 0 || unsafe.SliceData(p.blocks[p.tookBlk]) != unsafe.SliceData(p.fetched) {
		p.blocks = append(p.blocks, p.fetched)
		p.tookBlk = len(p.blocks) - 1
	}
	return uint32(p.tookBlk), uint32(at - base), true
}

// appendFrom appends recs, and returns how many it took: fewer when it
// met one that is not the simple case (the read then gives up).
func (p *OneShotPart) appendFrom(recs []Record) int {
	p.hashes = grow(p.hashes, len(recs))
	for i := range recs {
		p.hashes[i] = hashBytes(keySeed, recs[i].Key)
	}
	// Checked on every fourth chunk: a partition whose keys repeat is
	// indexed a few chunks later at most (until then Bodies keeps the
	// latest of each key).
	if p.chunks++; p.slots == nil && len(recs) >= 256 && p.chunks%4 == 1 && p.repeats(recs) > len(recs)/8 {
		p.index()
	}
	for i := range recs {
		r := &recs[i]
		k, v := r.Key, r.Value
		if len(k) > 1<<16-1 || r.Key == nil || len(p.recs) >= osSlotRef || p.seen >= 1<<31-1 || len(p.blocks) > 1<<16-3 || p.seen > 0 && r.Offset-p.base >= 1<<32 {
			p.r.fail("a null key, a key of 64 KB, or too many records")
			return i
		}
		if v != nil && !plainOffset(v) {
			p.r.fail("a value not in the plain form")
			return i
		}
		kh := p.hashes[i]
		slot, at := -1, -1
		if p.slots != nil {
			slot, at = p.find(kh, k)
		}
		if at >= 0 {
			p.writeOver(int32(at))
			p.setValue(&p.recs[at], r)
			continue
		}
		kblk, koff, in := p.within(k)
		key := k
		if !in {
			key = p.store(k)
			kblk, koff = uint32(p.cur), uint32(len(p.blocks[p.cur])-len(k))
		}
		f, ok := plainSortedKey(unsafeString(key))
		if !ok {
			f, ok = plainKeyFacts(unsafeString(key), &p.shapes, &p.keep)
		}
		if !ok || len(f.connector) == 0 {
			p.r.fail("a key not in the plain form")
			return i
		}
		if len(f.connector) > 250 {
			p.r.fail("a connector name of more than 250 bytes")
			return i
		}
		// Records are grouped by the hash of their partition's identity
		// under the connector: a key's records, and any copy of its
		// partition under other bytes, come together.
		idHash := kh
		if f.identity != f.partition {
			id := append(append(append(append(p.idBuf[:0], `["`...), f.connector...), `",`...), f.identity...)
			id = append(id, ']')
			p.idBuf = id
			idHash = hashBytes(keySeed, id)
			if p.keep.b.Len() > 1<<20 {
				p.keep = arena{} // the identities are hashed, not kept
			}
		}
		rec := osRec{hash: idHash, kblk: uint16(kblk), koff: koff, klen: uint16(len(k)),
			vlen: -1, cend: uint8(2 + len(f.connector) + 1), conn: uint16(p.connRef(f.connector))}
		if f.null {
			rec.flags |= osNull
		}
		p.setValue(&rec, r)
		p.recs = append(p.recs, rec)
		if slot >= 0 {
			p.slots[slot] = kh&^osSlotRef | uint64(len(p.recs))
			if p.used++; p.used > len(p.slots)/2 {
				p.rehash()
			}
		}
	}
	return len(recs)
}

// osSlotRef is the bits of a slot that number its record (1 + index).
const osSlotRef = 1<<24 - 1

// repeats counts the records of recs whose key bytes an earlier one of
// recs has: a partition whose keys repeat within a chunk is indexed from
// then on, so that it keeps each key once; one of new keys (a cold read
// of many source partitions) appends without an index, whose every probe
// would be a cache miss.
func (p *OneShotPart) repeats(recs []Record) int {
	size := 16
	for size < 2*len(recs) {
		size *= 2
	}
	p.chunkSlots = grow(p.chunkSlots, size)
	clear(p.chunkSlots)
	mask := size - 1
	n := 0
	for i := range recs {
		h := p.hashes[i]
		for j := int(h) & mask; ; j = (j + 1) & mask {
			s := p.chunkSlots[j]
			if s == 0 {
				p.chunkSlots[j] = int32(i + 1)
				break
			}
			if string(recs[s-1].Key) == string(recs[i].Key) {
				n++
				break
			}
		}
	}
	return n
}

// index makes the index of the records appended so far (the latest of
// each key bytes: the others are left for Bodies to drop).
func (p *OneShotPart) index() {
	size := 1024
	for size < 2*len(p.recs) {
		size *= 2
	}
	p.slots = make([]uint64, size)
	mask := size - 1
	for at := range p.recs {
		k := p.key(&p.recs[at])
		kh := hashBytes(keySeed, k)
		for i := int(kh>>32) & mask; ; i = (i + 1) & mask {
			s := p.slots[i]
			if s == 0 {
				p.slots[i] = kh&^osSlotRef | uint64(at+1)
				p.used++
				break
			}
			if s&^osSlotRef == kh&^osSlotRef && string(p.key(&p.recs[int(s&osSlotRef)-1])) == string(k) {
				p.slots[i] = kh&^osSlotRef | uint64(at+1)
				break
			}
		}
	}
}

// find is the record of key (hash kh), or -1 and the empty slot for it.
func (p *OneShotPart) find(kh uint64, key []byte) (slot int, at int) {
	if p.slots == nil {
		p.slots = make([]uint64, 1024)
	}
	mask := len(p.slots) - 1
	for i := int(kh>>32) & mask; ; i = (i + 1) & mask {
		s := p.slots[i]
		if s == 0 {
			return i, -1
		}
		if s&^osSlotRef == kh&^osSlotRef {
			if at := int(s&osSlotRef) - 1; string(p.key(&p.recs[at])) == string(key) {
				return i, at
			}
		}
	}
}

func (p *OneShotPart) rehash() {
	old := p.slots
	p.slots = make([]uint64, 2*len(old))
	mask := len(p.slots) - 1
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := int(s>>32) & mask // the hash's bits find uses
		for p.slots[i] != 0 {
			i = (i + 1) & mask
		}
		p.slots[i] = s
	}
}

// store copies b into the blocks, at the end of blocks[cur].
func (p *OneShotPart) store(b []byte) []byte {
	if p.cur < 0 || cap(p.blocks[p.cur])-len(p.blocks[p.cur]) < len(b) {
		p.blocks = append(p.blocks, make([]byte, 0, max(osBlock, len(b))))
		p.cur = len(p.blocks) - 1
	}
	blk := p.blocks[p.cur]
	off := len(blk)
	blk = append(blk, b...)
	p.blocks[p.cur] = blk
	return blk[off:]
}

// writeOver notes that the record at index at is superseded by the one
// about to be written over it.
func (p *OneShotPart) writeOver(at int32) {
	if int(at) >= len(p.over) {
		p.over = append(p.over, make([]osOver, max(len(p.recs), 2*len(p.over))-len(p.over))...)
	}
	v := &p.over[at]
	rc := &p.recs[at]
	if v.count == 0 {
		v.newest = zeroMs
	}
	v.count++
	v.newest = max(v.newest, rc.ms)
	u := osUpdate{rc.ms, p.base + int64(rc.offset)}
	switch keep := p.hist - 1; {
	case len(v.last) < keep:
		v.last = append(v.last, u)
	case keep > 0:
		v.last[v.head] = u
		v.head = (v.head + 1) % int32(keep)
	}
}

// updates appends the superseded records v keeps to seq, oldest first.
func (v *osOver) updates(seq []model.Update) []model.Update {
	for _, u := range append(v.last[v.head:len(v.last):len(v.last)], v.last[:v.head]...) {
		seq = append(seq, model.Update{Time: msTime(u.ms), RecordOffset: u.offset})
	}
	return seq
}

// setValue makes r rc's record: its value (checked plain by the caller),
// offset, time and place.
func (p *OneShotPart) setValue(rc *osRec, r *Record) {
	v := r.Value
	if p.seen == 0 {
		p.base = r.Offset
	}
	rc.offset, rc.ms, rc.ord = uint32(r.Offset-p.base), r.Time.UnixMilli(), uint32(p.seen)
	rc.flags &^= osKoff
	if r.Koff {
		rc.flags |= osKoff
	}
	p.seen++
	p.bytes += int64(len(r.Key) + len(v))
	if v == nil {
		rc.vlen = -1
		return
	}
	if blk, off, in := p.within(v); in {
		rc.vblk, rc.voff, rc.vcap = uint16(blk), off, uint16(min(len(v), 1<<16-1))
	} else if len(v) <= int(rc.vcap) {
		copy(p.blocks[rc.vblk][rc.voff:], v)
	} else {
		p.store(v)
		rc.vblk, rc.voff, rc.vcap = uint16(p.cur), uint32(len(p.blocks[p.cur])-len(v)), uint16(min(len(v), 1<<16-1))
	}
	rc.vlen = int32(len(v))
}

func (p *OneShotPart) connRef(name string) int32 {
	if p.last >= 0 && p.conns[p.last] == name {
		return p.last
	}
	for i, n := range p.conns {
		if n == name {
			p.last = int32(i)
			return p.last
		}
	}
	if len(p.conns) == 1<<16-1 {
		p.r.fail("too many connectors in one partition")
		return 0
	}
	p.conns = append(p.conns, strings.Clone(name))
	p.last = int32(len(p.conns) - 1)
	return p.last
}

func (p *OneShotPart) key(r *osRec) []byte {
	return p.blocks[r.kblk][r.koff : r.koff+uint32(r.klen)]
}

func (p *OneShotPart) value(r *osRec) []byte {
	return p.blocks[r.vblk][r.voff : r.voff+uint32(r.vlen)]
}

func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// plainSortedKey is plainKeyFacts' connector, partition, identity and
// null of a plain key whose partition's fields are in sorted order (its
// identity is its text), or false (for any other: plainKeyFacts tells).
func plainSortedKey(key string) (keyFacts, bool) {
	if len(key) < 7 || key[0] != '[' || key[1] != '"' || key[len(key)-1] != ']' {
		return keyFacts{}, false
	}
	end := plainString(key, 1)
	if end < 0 || end >= len(key) || key[end] != ',' {
		return keyFacts{}, false
	}
	f := keyFacts{connector: key[2 : end-1]}
	p := key[end+1 : len(key)-1]
	if p == "null" {
		f.partition, f.identity, f.null = p, p, true
		return f, true
	}
	n, ok := plainSortedObject(p)
	if !ok {
		return keyFacts{}, false
	}
	f.partition, f.identity, f.fields = p, p, n
	return f, true
}

// plainSortedObject is plainObject of an object whose field names are in
// increasing order (so none repeats), and its count of fields: each name
// is compared with the one before as it is read.
func plainSortedObject(raw string) (int, bool) {
	if len(raw) < 2 || raw[0] != '{' {
		return 0, false
	}
	if raw[1] == '}' {
		return 0, len(raw) == 2
	}
	n, i, prev := 0, 1, ""
	for {
		if i >= len(raw) || raw[i] != '"' {
			return 0, false
		}
		end := plainString(raw, i)
		if end < 0 || n == plainMaxFields {
			return 0, false
		}
		name := raw[i+1 : end-1]
		if n > 0 && prev >= name {
			return 0, false
		}
		prev, i = name, end
		if i+1 >= len(raw) || raw[i] != ':' {
			return 0, false
		}
		i++
		switch c := raw[i]; {
		case c == '"':
			i = plainString(raw, i)
		case c == '-' || c >= '0' && c <= '9':
			i = plainInteger(raw, i)
		case c == 't':
			i = plainWord(raw, i, "true")
		case c == 'f':
			i = plainWord(raw, i, "false")
		case c == 'n':
			i = plainWord(raw, i, "null")
		default:
			return 0, false
		}
		if i < 0 || i >= len(raw) {
			return 0, false
		}
		n++
		switch raw[i] {
		case ',':
			i++
		case '}':
			return n, i+1 == len(raw)
		default:
			return 0, false
		}
	}
}
