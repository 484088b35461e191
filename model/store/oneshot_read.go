package store

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"koff/model"
	"koff/model/java"
	"koff/model/text"
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
	last   int32    // local number of the last connector met, -1 none
}

type osRec struct {
	hash     uint64
	blk, off uint32 // key at blocks[blk][off:], value after it
	vlen     int32  // -1: a tombstone
	klen     uint16
	cend     uint16 // the connector name ends at key[cend-1] (the closing quote)
	conn     uint16 // local number of the connector
	flags    uint8
}

const (
	osNull      = 1 << iota // the partition is JSON null
	osPrintable             // the key and value are printable ASCII
)

// Part returns the part of tp, made for about n records.
func (o *OneShotRead) Part(tp model.TopicPartition, n int64) *OneShotPart {
	p := &OneShotPart{r: o, tp: tp, last: -1}
	if n > 0 && n < 1<<26 {
		p.recs = make([]osRec, 0, n)
	}
	o.mu.Lock()
	o.parts = append(o.parts, p)
	o.mu.Unlock()
	return p
}

const osBlock = 1 << 20

// Append appends recs, in offset order.
func (p *OneShotPart) Append(recs []Record) {
	if p.r.bad.Load() {
		return
	}
	for i := range recs {
		r := &recs[i]
		k, v := r.Key, r.Value
		if len(k) > 1<<16-1 || r.Key == nil {
			p.r.bad.Store(true)
			return
		}
		need := len(k) + len(v)
		nb := len(p.blocks)
		if nb == 0 || cap(p.blocks[nb-1])-len(p.blocks[nb-1]) < need {
			p.blocks = append(p.blocks, make([]byte, 0, max(osBlock, need)))
			nb++
		}
		b := p.blocks[nb-1]
		off := len(b)
		b = append(append(b, k...), v...)
		p.blocks[nb-1] = b
		key := b[off : off+len(k)]
		f, ok := plainKeyFacts(unsafeString(key), &p.shapes, &p.keep)
		if !ok || len(f.connector) == 0 {
			p.r.bad.Store(true)
			return
		}
		// Records are grouped by the hash of their partition's identity
		// under the connector: a key's records, and any copy of its
		// partition under other bytes, come together.
		id := key
		if f.identity != f.partition {
			id = append(append(append(append(p.idBuf[:0], `["`...), f.connector...), `",`...), f.identity...)
			id = append(id, ']')
			p.idBuf = id
			if p.keep.b.Len() > 1<<20 {
				p.keep = arena{} // the identities are hashed, not kept
			}
		}
		cend := uint16(2 + len(f.connector) + 1)
		rec := osRec{hash: hashBytes(keySeed, id), blk: uint32(nb - 1), off: uint32(off), klen: uint16(len(k)),
			vlen: -1, cend: cend, conn: uint16(p.connRef(f.connector))}
		if f.null {
			rec.flags |= osNull
		}
		if v != nil {
			rec.vlen = int32(len(v))
			if !plainOffset(v) {
				p.r.bad.Store(true)
				return
			}
		}
		if text.PrintableASCII(b[off:]) {
			rec.flags |= osPrintable
		}
		p.recs = append(p.recs, rec)
	}
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
		p.r.bad.Store(true)
		return 0
	}
	p.conns = append(p.conns, strings.Clone(name))
	p.last = int32(len(p.conns) - 1)
	return p.last
}

func (p *OneShotPart) key(r *osRec) []byte {
	return p.blocks[r.blk][r.off : r.off+uint32(r.klen)]
}

func (p *OneShotPart) value(r *osRec) []byte {
	at := r.off + uint32(r.klen)
	return p.blocks[r.blk][at : at+uint32(r.vlen)]
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
			return nil, false // several offsets topics: the Store decides
		}
		topic = p.tp.Topic
	}
	total := int(base[len(parts)])
	if total >= 1<<osRefBits {
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
						return nil, false // copies of one partition under other bytes
					}
				}
				keys, lasts = append(keys, k), append(lasts, r)
				continue
			}
			if partOf(lasts[x]) != partOf(r) {
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
	offsets := make([]string, len(t.keys))
	at := slices.Clone(perConn)
	printable := make([]bool, len(list))
	for i := range printable {
		printable[i] = true
	}
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
			t.keys[pos] = textKey{p: &part[0], n: uint32(len(part)), at: uint32(pos)}
			offsets[pos] = unsafeString(p.value(rc))
			printable[g] = printable[g] && rc.flags&osPrintable != 0
		}
	}
	out := &OneShotBodies{t: t, offsets: offsets}
	for g, name := range list {
		out.conns = append(out.conns, osConn{name: name, keys: t.keys[perConn[g]:perConn[g+1]], printable: printable[g]})
	}
	slices.SortFunc(out.conns, func(a, b osConn) int { return strings.Compare(a.name, b.name) })
	return out, true
}

// OneShotBodies are the bodies of a OneShotRead, sorted when written.
type OneShotBodies struct {
	t       textSort
	offsets []string
	conns   []osConn
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
			if len(b) > cap(b)-int(k.n)-len(o.offsets[k.at])-32 {
				write(b, c.printable)
				b = b[:0]
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"partition":`...)
			b = append(b, o.t.text(k)...)
			b = append(b, `,"offset":`...)
			b = append(b, o.offsets[k.at]...)
			b = append(b, '}')
		}
		write(append(b, `]}`...), c.printable)
	}
	write([]byte{'}'}, true)
}

func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
