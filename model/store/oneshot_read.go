package store

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"koff/model"
	"koff/model/java"
)

// A feasibility prototype, not wired in unless KOFF_ONESHOT_PROTO is set:
// koff get -o json of offsets topics whose every key is in the plain form,
// read without the Store's index or entries. Each partition's reader
// appends its records (key and value bytes copied back to back, and a few
// facts worked out while they are in the cache) to arrays in arrival
// order; Bodies then groups each key's records by a radix sort of their
// hashes, keeps the latest, and writes the bodies in the Store's order.
// Anything that is not the simple case (a key in several topic-partitions
// or several topics, a key not plain, a partition whose identity is not
// its text, a value not plain) makes Bodies report false: the caller reads
// again into a Store.

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

// Why is what made Bodies report false, when it was met while reading.
func (o *OneShotRead) Why() string {
	if w := o.why.Load(); w != nil {
		return *w
	}
	return ""
}

// OneShotPart is what one topic-partition's reader appends.
type OneShotPart struct {
	r      *OneShotRead
	tp     model.TopicPartition
	blocks [][]byte
	recs   []osRec
	shapes keyShapes
	keep   arena
	conns  []string // by local number
	idBuf  []byte
	// cur is the block stored bytes are appended to; fetched the bytes of
	// the fetch being appended, kept as blocks[tookBlk] once a key or
	// value in it is.
	cur, tookBlk int
	fetched      []byte
	slots        []uint64 // open addressing by the key bytes' hash: its top bits, and 1 + the record's index
	used         int
	// chunkSlots are repeats' table of one chunk.
	chunkSlots []int32
	hashes     []uint64 // of each key of a chunk
	last       int32    // local number of the last connector met, -1 none
}

type osRec struct {
	hash       uint64
	kblk, koff uint32 // key at blocks[kblk][koff:]
	vblk, voff uint32 // value at blocks[vblk][voff:]
	vlen       int32  // -1: a tombstone
	vcap       int32  // the room at voff: a later value of the key fitting in it is written there
	klen       uint16
	cend       uint16 // the connector name ends at key[cend-1] (the closing quote)
	conn       uint16 // local number of the connector
	flags      uint8
}

const (
	osNull = 1 << iota // the partition is JSON null
)

// Part returns the part of tp, made for about n records.
func (o *OneShotRead) Part(tp model.TopicPartition, n int64) *OneShotPart {
	p := &OneShotPart{r: o, tp: tp, last: -1, cur: -1, tookBlk: -1}
	if n > 0 && n < 1<<26 {
		p.recs = make([]osRec, 0, n)
	}
	o.mu.Lock()
	o.parts = append(o.parts, p)
	o.mu.Unlock()
	return p
}

const osBlock = 1 << 20

// Append appends recs, in offset order: a record of a key the partition
// held before takes its place (its value written over the last when it
// fits), so that a key read again and again is kept once.
func (p *OneShotPart) Append(recs []Record) { p.AppendFrom(recs, nil) }

// AppendFrom is Append of records whose keys and values may be in fetched,
// the bytes of a fetch response: while the partition is not indexed
// (nearly every record kept), they are kept there, not copied, and Took
// tells the reader to read the next fetch into new memory.
func (p *OneShotPart) AppendFrom(recs []Record, fetched []byte) {
	p.fetched = fetched
	defer func() { p.fetched = nil }()
	p.appendFrom(recs)
}

// Took reports whether the part keeps bytes of fetched.
func (p *OneShotPart) Took(fetched []byte) bool {
	return len(fetched) > 0 && p.tookBlk >= 0 && unsafe.SliceData(p.blocks[p.tookBlk]) == unsafe.SliceData(fetched)
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

func (p *OneShotPart) appendFrom(recs []Record) {
	if p.r.bad.Load() {
		return
	}
	p.hashes = grow(p.hashes, len(recs))
	for i := range recs {
		p.hashes[i] = hashBytes(keySeed, recs[i].Key)
	}
	if p.slots == nil && len(recs) >= 256 && p.repeats(recs) > len(recs)/8 {
		p.index()
	}
	for i := range recs {
		r := &recs[i]
		k, v := r.Key, r.Value
		if len(k) > 1<<16-1 || r.Key == nil || len(p.recs) >= osSlotRef {
			p.r.fail("a null key, a key of 64 KB, or too many records")
			return
		}
		kh := p.hashes[i]
		slot, at := -1, -1
		if p.slots != nil {
			slot, at = p.find(kh, k)
		}
		if at >= 0 {
			rc := &p.recs[at]
			if !p.setValue(rc, v) {
				return
			}
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
			return
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
		rec := osRec{hash: idHash, kblk: kblk, koff: koff, klen: uint16(len(k)),
			vlen: -1, cend: uint16(2 + len(f.connector) + 1), conn: uint16(p.connRef(f.connector))}
		if f.null {
			rec.flags |= osNull
		}
		if !p.setValue(&rec, v) {
			return
		}
		p.recs = append(p.recs, rec)
		if slot >= 0 {
			p.slots[slot] = kh&^osSlotRef | uint64(len(p.recs))
			if p.used++; p.used > len(p.slots)/2 {
				p.rehash()
			}
		}
	}
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

// setValue makes v rc's value; false when it is not the simple case.
func (p *OneShotPart) setValue(rc *osRec, v []byte) bool {
	if v == nil {
		rc.vlen = -1
		return true
	}
	if !plainOffset(v) {
		p.r.fail("a value not in the plain form")
		return false
	}
	if blk, off, in := p.within(v); in {
		rc.vblk, rc.voff, rc.vcap = blk, off, int32(len(v))
	} else if len(v) <= int(rc.vcap) {
		copy(p.blocks[rc.vblk][rc.voff:], v)
	} else {
		p.store(v)
		rc.vblk, rc.voff, rc.vcap = uint32(p.cur), uint32(len(p.blocks[p.cur])-len(v)), int32(len(v))
	}
	rc.vlen = int32(len(v))
	return true
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
		p.r.fail("a null key, a key of 64 KB, or too many records")
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

// osRefBits is the bits of a record's number in a sorted item: the rest
// are the top bits of its key's hash.
const osRefBits = 24

// Bodies returns each connector's body, by name, or false when the read
// was not the simple case.
func (o *OneShotRead) Bodies() (*OneShotBodies, bool) {
	if o.bad.Load() {
		return nil, false
	}
	parts := o.parts
	topic := ""
	base := make([]uint32, len(parts)+1) // global number of each part's first record
	for i, p := range parts {
		base[i+1] = base[i] + uint32(len(p.recs))
		if len(p.recs) == 0 {
			continue
		}
		if topic != "" && p.tp.Topic != topic {
			o.fail("several offsets topics")
			return nil, false // several offsets topics: the Store decides
		}
		topic = p.tp.Topic
	}
	total := int(base[len(parts)])
	if total >= 1<<osRefBits || len(parts) > 255 {
		return nil, false
	}
	partOf := func(ref uint32) int {
		i, _ := slices.BinarySearch(base, ref+1)
		return i - 1
	}
	rec := func(ref uint32) (*OneShotPart, *osRec) {
		pi := partOf(ref)
		return parts[pi], &parts[pi].recs[ref-base[pi]]
	}
	// Global connector numbers.
	names := map[string]uint32{}
	var list []string
	local := make([][]uint32, len(parts))
	for i, p := range parts {
		local[i] = make([]uint32, len(p.conns))
		for j, n := range p.conns {
			g, ok := names[n]
			if !ok {
				g = uint32(len(list))
				names[n] = g
				list = append(list, n)
			}
			local[i][j] = g
		}
	}
	// By hash: one scatter on the top 16 bits, then insertion within each
	// bucket; an item is the hash's top bits and the record's number, so
	// that a key's records stay in arrival order.
	const topBits = 16
	var counts [1<<topBits + 1]int32
	for _, p := range parts {
		for i := range p.recs {
			counts[p.recs[i].hash>>(64-topBits)+1]++
		}
	}
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	items := make([]uint64, total)
	fill := counts
	for pi, p := range parts {
		for i := range p.recs {
			h := p.recs[i].hash
			b := h >> (64 - topBits)
			items[fill[b]] = h>>osRefBits<<osRefBits | uint64(base[pi]+uint32(i))
			fill[b]++
		}
	}
	for b := 0; b < 1<<topBits; b++ {
		ks := items[counts[b]:counts[b+1]]
		for i := 1; i < len(ks); i++ {
			k, j := ks[i], i
			for ; j > 0 && k < ks[j-1]; j-- {
				ks[j] = ks[j-1]
			}
			ks[j] = k
		}
	}
	// The latest of each key: a bit by record number.
	kept := make([]uint64, (total+63)/64)
	const refMask = 1<<osRefBits - 1
	var keys [][]byte // of one run of equal hash bits
	var lasts []uint32
	for i := 0; i < len(items); {
		j := i + 1
		for j < len(items) && items[j]>>osRefBits == items[i]>>osRefBits {
			j++
		}
		if j-i == 1 {
			r := uint32(items[i] & refMask)
			kept[r/64] |= 1 << (r % 64)
			i = j
			continue
		}
		// Several records: of one key, nearly always.
		keys, lasts = keys[:0], lasts[:0]
		for _, it := range items[i:j] {
			r := uint32(it & refMask)
			p, rc := rec(r)
			k := p.key(rc)
			x := 0
			for x < len(keys) && string(keys[x]) != string(k) {
				x++
			}
			if x == len(keys) {
				if len(keys) > 0 {
					if _, r0 := rec(lasts[0]); r0.hash == rc.hash {
						o.fail("copies of one partition under other bytes")
						return nil, false // copies of one partition under other bytes
					}
				}
				keys, lasts = append(keys, k), append(lasts, r)
				continue
			}
			if partOf(lasts[x]) != partOf(r) {
				o.fail("a key in several topic-partitions")
				return nil, false // a copy in another topic-partition
			}
			lasts[x] = r
		}
		for _, r := range lasts {
			kept[r/64] |= 1 << (r % 64)
		}
		i = j
	}
	// The kept records in arrival order, by connector.
	perConn := make([]int32, len(list)+1)
	for pi, p := range parts {
		for i := range p.recs {
			r := base[pi] + uint32(i)
			if kept[r/64]&(1<<(r%64)) != 0 && p.recs[i].vlen >= 0 && p.recs[i].flags&osNull == 0 {
				perConn[local[pi][p.recs[i].conn]+1]++
			}
		}
	}
	for i := 1; i < len(perConn); i++ {
		perConn[i] += perConn[i-1]
	}
	var t textSort
	t.keys = make([]textKey, perConn[len(list)])
	at := slices.Clone(perConn)
	for pi, p := range parts {
		for i := range p.recs {
			rc := &p.recs[i]
			r := base[pi] + uint32(i)
			if kept[r/64]&(1<<(r%64)) == 0 || rc.vlen < 0 || rc.flags&osNull != 0 {
				continue
			}
			g := local[pi][rc.conn]
			key := p.key(rc)
			part := key[rc.cend+1 : len(key)-1]
			pos := at[g]
			at[g]++
			t.keys[pos] = textKey{p: &part[0], n: uint32(len(part)), at: uint32(pi)<<24 | uint32(i)} // the value is read where it is
		}
	}
	out := &OneShotBodies{t: t, parts: parts}
	for g, name := range list {
		out.conns = append(out.conns, osConn{name: name, keys: t.keys[perConn[g]:perConn[g+1]], printable: true}) // plain keys and values are printable ASCII
	}
	slices.SortFunc(out.conns, func(a, b osConn) int { return strings.Compare(a.name, b.name) })
	return out, true
}

// OneShotBodies are the bodies of a OneShotRead, sorted when written.
type OneShotBodies struct {
	t     textSort
	parts []*OneShotPart // of the keys' at: part<<24 | record
	conns []osConn
}

type osConn struct {
	name      string
	keys      []textKey
	printable bool
}

// WriteJSON writes koff get -o json's output (without its newline) to
// write in pieces of whole rows, with whether each is known printable.
func (o *OneShotBodies) WriteJSON(write func(p []byte, printable bool)) {
	buf := make([]byte, 0, 64<<10)
	write([]byte{'{'}, true)
	for i, c := range o.conns {
		if i > 0 {
			write([]byte{','}, true)
		}
		write(java.AppendJackson(nil, c.name), false)
		write([]byte{':'}, true)
		ks := c.keys
		o.t.sort(ks)
		b := append(buf[:0], `{"offsets":[`...)
		for i := range ks {
			k := &ks[i]
			p := o.parts[k.at>>24]
			v := p.value(&p.recs[k.at&(1<<24-1)])
			if len(b) > cap(b)-int(k.n)-len(v)-32 {
				write(b, c.printable)
				b = b[:0]
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"partition":`...)
			b = append(b, o.t.text(k)...)
			b = append(b, `,"offset":`...)
			b = append(b, v...)
			b = append(b, '}')
		}
		write(append(b, `]}`...), c.printable)
	}
	write([]byte{'}'}, true)
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
	var sp plainSpans
	if !plainObject(p, &sp) {
		return keyFacts{}, false
	}
	for i := 1; i < sp.n; i++ {
		if p[sp.names[i-1][0]:sp.names[i-1][1]] >= p[sp.names[i][0]:sp.names[i][1]] {
			return keyFacts{}, false
		}
	}
	f.partition, f.identity, f.fields = p, p, sp.n
	return f, true
}
