package store

import (
	"bytes"
	"math/bits"
	"slices"
	"strings"
	"time"

	"koff/model"
	"koff/model/java"
)

// A one-shot read (koff get) needs what a restarted task would read, as
// KafkaBasedLog's consumedCallback keeps it: the last value of each key
// bytes. Of a fetched chunk of one topic-partition, a record superseded by
// a later record of the same key bytes changes nothing of that but the
// times and offsets in the history ring (which the flush evidence of
// flushedWith reads) and the counts. Latest drops such records before
// their value is checked or copied and before the Store's lock, and hands
// their times and offsets on with the record that supersedes them.

// Latest keeps the latest record of each key bytes of a chunk (see Keep).
// Its buffers are reused from one chunk to the next: one per partition
// reader.
type Latest struct {
	hist  int      // updates the Store keeps per source partition
	slots []int32  // open addressing: 1 + index into the chunk, 0 empty
	hash  []uint64 // of each record's key
	by    []int32  // the index of the record superseding each, -1 when kept
	seen  []int32  // superseded records of each kept one met so far
	// A key new to the partition is analysed here, on the partition's
	// reader, rather than under the Store's lock: at a million source
	// partitions that is most of the Store's work. met has a bit set for
	// the hash of each key met before (one shared by another key makes it
	// look met: the Store then analyses it itself, as always). keys and
	// shapes keep what the analysis makes (the Store numbers the shapes
	// again, as it meets them).
	met    []uint64
	metSum uint64 // of the words peekMet read, so that reading them is not left out
	keys   arena
	shapes keyShapes
	conns  latestConns
	chunk  latestChunk
}

// latestConns numbers the connector names of the keys a Latest analyses,
// so that the Store finds a key's connector by that number (keptKey.cref,
// then latestChunk.conns) and not by the bytes of its name, which are
// no longer in the cache by then. A number is never another name's.
type latestConns struct {
	names []string // by number-1
	slots []int32  // open addressing by connHash: a number, 0 empty
}

// latestConnsMax is how many names a Latest numbers: the connectors of
// one partition of the offsets topic are far fewer. Names past it are
// looked up by their bytes.
const latestConnsMax = 4096

// ref is the number of name, 0 when the Latest numbers no more names.
func (l *latestConns) ref(name string) int32 {
	if l.slots == nil {
		l.slots = make([]int32, 2*latestConnsMax) // at most half full
	}
	mask := uint64(len(l.slots) - 1)
	for i := connHash(name) & mask; ; i = (i + 1) & mask {
		n := l.slots[i]
		if n == 0 {
			if len(l.names) == latestConnsMax {
				return 0
			}
			l.names = append(l.names, strings.Clone(name)) // not the key's block
			l.slots[i] = int32(len(l.names))
			return l.slots[i]
		}
		if l.names[n-1] == name {
			return n
		}
	}
}

// latestChunk is what the Store reads of a chunk Latest kept records of,
// by each kept record's place in the chunk (prepared.pos): kept out of the
// records themselves, which the decoders hold thousands of.
type latestChunk struct {
	// offsets of the chunk's records, in order, and the key and value
	// bytes of those before each (bytes[i]; bytes[len] all of them).
	offsets []int64
	bytes   []int64
	count   []int32        // records of its key bytes each kept one supersedes
	from    []int32        // where its older updates start in older
	newest  []time.Time    // the latest time of those
	key     []int32        // 1 + its key's index in kept, 0: not analysed
	older   []model.Update // the superseded records' times and offsets, hist-1 at most of each
	kept    []keptKey
	hist    int32
	// conns are the connectors of the names the Latest numbered
	// (latestConns), by number-1, for the Store marked connsOwner: the
	// Store's look-ahead alone reads and writes them, under its lock.
	// They live in the Latest so that a Store keeps nothing of a Latest
	// once done with it.
	conns      []*connector
	connsOwner *aheadOwner
}

// nameConnector notes c as the connector of the name numbered ref.
func (c *latestChunk) nameConnector(ref int32, conn *connector) {
	if int(ref) > len(c.conns) {
		c.conns = append(c.conns, make([]*connector, int(ref)-len(c.conns))...)
	}
	c.conns[ref-1] = conn
}

// counted is the place of the first record at or after offset from, the
// records before it having been read before, and how many records and
// bytes there are from there on.
func (c *latestChunk) counted(from int64) (first int, records, bytes int64) {
	n := len(c.offsets)
	first, _ = slices.BinarySearch(c.offsets, from)
	return first, int64(n - first), c.bytes[n] - c.bytes[first]
}

// superseded is how many records the kept record at pos superseded, and
// the times and offsets of the last of them, oldest first.
func (c *latestChunk) superseded(pos int) (int, []model.Update) {
	n := c.count[pos]
	m := min(n, c.hist-1)
	return int(n), c.older[c.from[pos] : c.from[pos]+m : c.from[pos]+m]
}

// keyAt is the key analysed of the kept record at pos, or nil.
func (c *latestChunk) keyAt(pos int) *keptKey {
	if k := c.key[pos]; k > 0 {
		return &c.kept[k-1]
	}
	return nil
}

// keptKey is a key analysed by Latest: its bytes, kept for the Store, and
// their facts, whose field order is shape (none: fields < 2).
type keptKey struct {
	key    string
	facts  keyFacts
	shape  keyShape
	murmur int32
	// conn is the Store's connector of the key, when the Store's
	// look-ahead found it (under the Store's lock, for its pass after);
	// cref the number of its name, when a Latest analysed it (0: none).
	conn *connector
	cref int32
}

// NewLatest returns a Latest for a Store keeping history updates per
// source partition (Store.History).
func NewLatest(history int) *Latest { return &Latest{hist: max(history, 1)} }

// Keep compacts recs, records of one topic-partition in offset order, to
// the latest record of each key bytes, in their order, Prepared, and
// returns them (recs[:n]). With each goes what the Store needs of the
// records of its key bytes it superseded: their count, their latest time,
// and the times and offsets of as many as the history ring keeps; and the
// count and bytes of the whole chunk. A Store ingesting the chunk so kept
// holds what it holds ingesting the whole chunk, except: the superseded
// records' values are not in the history (nil), and a superseded record
// whose key or value is unreadable is not among UnparseableRecords. What
// the kept records refer to is in l's buffers until the next Keep.
func (l *Latest) Keep(recs []Record) []Record {
	n := len(recs)
	if n == 0 {
		return recs
	}
	size := 16
	for size < 2*n {
		size *= 2
	}
	mask := uint64(size - 1)
	l.slots = grow(l.slots, size)
	clear(l.slots)
	c := &l.chunk
	c.hist = int32(l.hist)
	l.hash, l.by, c.count, c.from = grow(l.hash, n), grow(l.by, n), grow(c.count, n), grow(c.from, n)
	c.offsets, c.bytes = grow(c.offsets, n), grow(c.bytes, n+1)
	c.newest, c.key = grow(c.newest, n), grow(c.key, n)
	c.bytes[0] = 0
	for i := range recs {
		c.offsets[i] = recs[i].Offset
		c.bytes[i+1] = c.bytes[i] + int64(len(recs[i].Key)+len(recs[i].Value))
	}
	// Newest first: the first record of each key bytes met is the one kept.
	superseded := 0
	for i := n - 1; i >= 0; i-- {
		h := hashBytes(keySeed, recs[i].Key)
		l.hash[i], l.by[i], c.count[i] = h, -1, 0
		for j := h & mask; ; j = (j + 1) & mask {
			s := l.slots[j]
			if s == 0 {
				l.slots[j] = int32(i + 1)
				break
			}
			if k := s - 1; l.hash[k] == h && bytes.Equal(recs[k].Key, recs[i].Key) && (recs[k].Key == nil) == (recs[i].Key == nil) {
				l.by[i] = k
				c.count[k]++
				superseded++
				break
			}
		}
	}
	c.kept = grow(c.kept, n)[:0] // room for all: not grown chunk by chunk
	l.peekMet(n)
	if superseded == 0 {
		// Every key new to the chunk (a cold read of many partitions):
		// each record is kept, with nothing older.
		c.older = c.older[:0]
		for i := range recs {
			l.prepare(&recs[i], i)
		}
		return recs
	}
	// Each kept record's older updates, oldest first: the last hist-1.
	keep := int32(l.hist - 1)
	total := int32(0)
	for i := range n {
		if l.by[i] < 0 {
			c.from[i] = total
			total += min(c.count[i], keep)
			c.newest[i] = time.Time{}
		}
	}
	c.older = grow(c.older, int(total))
	l.seen = grow(l.seen, n)
	clear(l.seen)
	// A kept record takes the place of the first record of its key bytes:
	// the Store then meets new keys in the order the full chunk has them
	// (the order of a connector's entries, which breaks ties in its sort
	// and among copies of a partition). Records before that place are
	// all read by then (w <= i).
	w := 0
	for i := range n {
		k := l.by[i]
		if k < 0 {
			if c.count[i] == 0 {
				if w != i {
					recs[w] = recs[i]
				}
				l.prepare(&recs[w], i)
				w++
			}
			continue
		}
		u := model.Update{Time: recs[i].Time, RecordOffset: recs[i].Offset}
		if l.seen[k] == 0 {
			recs[w] = recs[k] // w <= i: every record before i is read
			l.prepare(&recs[w], int(k))
			w++
		}
		// The j-th of the count records k supersedes is kept from
		// count-keep on.
		if at := l.seen[k] - max(c.count[k]-keep, 0); at >= 0 {
			c.older[c.from[k]+at] = u
		}
		if u.Time.After(c.newest[k]) {
			c.newest[k] = u.Time
		}
		l.seen[k]++
	}
	return recs[:w]
}

// peekMet reads the words of met that prepare will test for the kept
// records of the chunk's n, in a loop of loads only: the CPU has many of
// them under way at once, where prepare would wait for each in turn (at a
// million keys each is a cache miss).
func (l *Latest) peekMet(n int) {
	if l.met == nil {
		l.met = newPages[uint64](metBits / 64) // each bit is read before it is set
	}
	sum := l.metSum
	for i := range n {
		if l.by[i] < 0 {
			sum += l.met[l.hash[i]%metBits/64]
		}
	}
	l.metSum = sum
}

// prepare works out what Record.Prepare does of r, the kept record at i
// in the chunk, and the facts of its key if the partition has not held it
// before.
func (l *Latest) prepare(r *Record, i int) {
	h := l.hash[i]
	r.prep = prepared{done: true, plain: r.Value != nil && plainOffset(r.Value), hash: h, chunk: &l.chunk, pos: int32(i)}
	c := &l.chunk
	c.key[i] = 0
	bit := h % metBits // met is made by peekMet, which Keep calls first
	if l.met[bit/64]&(1<<(bit%64)) != 0 {
		return
	}
	l.met[bit/64] |= 1 << (bit % 64)
	// Analysed in place: Keep gave kept the room.
	n := len(c.kept)
	c.kept = c.kept[:n+1]
	if k := &c.kept[n]; analyzePlain(r.Key, &l.keys, &l.shapes, k) {
		k.cref = l.conns.ref(k.facts.connector)
		c.key[i] = int32(n + 1)
	} else {
		c.kept = c.kept[:n]
	}
}

// analyzePlain is analyzeKey of a key in the plain form, into k, for the
// Store to take later (Store.analyze): the key's bytes kept in keep, their
// facts, murmur2 and the hash of the identity, its field order numbered in
// shapes (which the Store numbers again, as it meets them). It reports
// whether the key is plain (k is then written). Only the plain form,
// which nearly every key has, and a glance first: bytes kept for a key
// that turns out not to be plain, or that the Store holds already, are
// lost (the Store keeps its own).
func analyzePlain(raw []byte, keep *arena, shapes *keyShapes, k *keptKey) bool {
	n := len(raw)
	if n < 7 || raw[0] != '[' || raw[1] != '"' || raw[n-1] != ']' {
		return false
	}
	key := keep.keep(raw)
	f, ok := plainKeyFacts(key, shapes, keep)
	if !ok {
		return false
	}
	*k = keptKey{key: key, facts: f, murmur: java.Murmur2(raw)}
	if f.shape >= 0 {
		k.shape = shapes.list[f.shape]
	}
	return true
}

// metBits is the size of Latest.met: 128 KB a partition, a few keys in a
// hundred looking met at 40,000 keys a partition (a million in 25).
const metBits = 1 << 20

// grow returns s holding n, made anew if it has not the room: its pages
// are written to first, since the chunk fills them by index while the
// collector may read them first (WritePages). It is made for a power of
// two: chunks cut short by the end of a fetch come in all sizes, and each
// bigger one must not make them all again.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		s = newPages[T](1 << bits.Len(uint(n-1)))
	}
	return s[:n]
}
