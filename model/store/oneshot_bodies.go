package store

import (
	"slices"
	"strings"
	"unsafe"

	"koff/model/java"
)

// osRefBits is the bits of a record's number in a sorted item: the rest
// are the top bits of its key's hash.
const osRefBits = 24

// Bodies returns each connector's body, or false when the read was not
// the simple case (Why says why): the caller then hands the records to
// the Store (HandOver). The read must be over.
func (o *OneShotRead) Bodies() (*OneShotBodies, bool) {
	if o.bad.Load() {
		return nil, false
	}
	o.mu.Lock()
	parts := o.parts
	o.mu.Unlock()
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
	if total >= 1<<osRefBits {
		o.fail("more than 16M records")
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
	var far [][]byte
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
			t.keys[pos] = textKey{p: &part[0], n: uint32(len(part)), at: valueAt(p, rc, &far)}
		}
	}
	out := &OneShotBodies{t: t, far: far}
	for g, name := range list {
		out.conns = append(out.conns, osConn{name: name, keys: t.keys[perConn[g]:perConn[g+1]], printable: true}) // plain keys and values are printable ASCII
	}
	slices.SortFunc(out.conns, func(a, b osConn) int { return strings.Compare(a.name, b.name) })
	return out, true
}

// OneShotBodies are the bodies of a OneShotRead, sorted when written.
type OneShotBodies struct {
	buf    []byte // of WriteBody
	copies []byte // of copyRows
	t      textSort
	far    [][]byte // values not just past their key (valueAt)
	conns  []osConn
}

// copyRows copies the texts and values of ks side by side, each text
// followed by a byte and its value, and points ks at the copies (osNear):
// the sort and the writing then read a connector's rows in a few
// megabytes instead of missing the cache on each row, several times, in
// the fetched bytes of all connectors; the copying itself reads each row
// once, in a loop whose loads do not wait on one another. Rows past a
// bound of copies are read where they are.
func (o *OneShotBodies) copyRows(ks []textKey) {
	const bound = 8 << 20
	o.copies = o.copies[:0]
	for i := range ks {
		k := &ks[i]
		v := o.value(k)
		n := int(k.n) + 1 + len(v)
		if len(o.copies)+n > bound || n > 16<<10 {
			continue
		}
		if len(o.copies)+n > cap(o.copies) {
			if len(o.copies) > 0 {
				o.copies = make([]byte, 0, bound) // earlier rows point into the old one
			} else {
				o.copies = make([]byte, 0, min(bound, max(64<<10, 2*n*len(ks))))
			}
		}
		at := len(o.copies)
		o.copies = append(append(append(o.copies, o.t.text(k)...), ']'), v...)
		k.p, k.at = &o.copies[at], osNear|uint32(len(v))
	}
}

// valueAt is where the value of rc is for a textKey's at, whose text ends
// one byte before the end of rc's key: nearly always just past the key,
// where the record has it in the fetched bytes (osNear, how far past and
// how long: written without a cache miss on another line), else the
// number of its bytes in far.
func valueAt(p *OneShotPart, rc *osRec, far *[][]byte) uint32 {
	end := rc.koff + uint32(rc.klen)
	if rc.vblk == rc.kblk && rc.voff >= end && rc.voff-end < 1<<7 && rc.vlen < 1<<24 {
		return osNear | (rc.voff-end)<<24 | uint32(rc.vlen)
	}
	*far = append(*far, p.value(rc))
	return uint32(len(*far) - 1)
}

// osNear marks a textKey's at that says where its value is past its key.
const osNear = 1 << 31

// value is the value of k (valueAt).
func (o *OneShotBodies) value(k *textKey) []byte {
	if k.at&osNear == 0 {
		return o.far[k.at]
	}
	past := uintptr(k.n) + 1 + uintptr(k.at>>24&(1<<7-1)) // the text, the key's ']', what is between
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(k.p), past)), k.at&(1<<24-1))
}

type osConn struct {
	name      string
	keys      []textKey
	printable bool
}

// Connectors are the names of the connectors of the bodies, sorted: a
// connector is there when a key of it was read, even if every partition
// of it was deleted since (its body is then {"offsets":[]}).
func (o *OneShotBodies) Connectors() []string {
	names := make([]string, len(o.conns))
	for i, c := range o.conns {
		names[i] = c.name
	}
	return names
}

// WriteJSON writes the bodies as one object keyed by connector (koff get
// -o json's output without its newline): see WriteBody.
func (o *OneShotBodies) WriteJSON(write func(p []byte, printable bool)) {
	write([]byte{'{'}, true)
	for i, c := range o.conns {
		if i > 0 {
			write([]byte{','}, true)
		}
		write(java.AppendJackson(nil, c.name), false)
		write([]byte{':'}, true)
		o.WriteBody(i, write)
	}
	write([]byte{'}'}, true)
}

// WriteBody writes the body of the i-th of Connectors, Connect's GET
// offsets body as Store.AppendOffsetsBody makes it, to write in pieces of
// whole rows, with whether each is known printable ASCII. It sorts the
// connector's partitions as it goes: each body is written once.
func (o *OneShotBodies) WriteBody(i int, write func(p []byte, printable bool)) {
	c := &o.conns[i]
	ks := c.keys
	o.copyRows(ks)
	o.t.sort(ks)
	if o.buf == nil {
		o.buf = make([]byte, 0, 64<<10)
	}
	b := append(o.buf[:0], `{"offsets":[`...)
	for i := range ks {
		k := &ks[i]
		v := o.value(k)
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
