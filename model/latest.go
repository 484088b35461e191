package model

import (
	"bytes"
	"slices"
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
	count []int32  // records each kept one supersedes
	from  []int32  // where each kept record's older updates start in older
	met   []int32  // superseded records of each kept one met so far
	at    []int32  // where each kept record is in the compacted chunk
	older []Update
	// A key likely new to the Store is analysed here, on the partition's
	// reader, rather than under the Store's lock: at a million source
	// partitions that is most of the Store's work. keys and shapes keep
	// what the analysis makes (the Store numbers the shapes again, as it
	// meets them).
	keys   arena
	shapes keyShapes
	kept   []keptKey
	chunk  latestChunk
}

// latestChunk is what the Store counts of a chunk Latest kept records of:
// the offsets of its records, in order, and the key and value bytes of
// those before each (bytes[i]; bytes[len] all of them).
type latestChunk struct {
	offsets []int64
	bytes   []int64
}

// counted is the place of the first record at or after offset from, the
// records before it having been read before, and how many records and
// bytes there are from there on.
func (c *latestChunk) counted(from int64) (first int, records, bytes int64) {
	n := len(c.offsets)
	first, _ = slices.BinarySearch(c.offsets, from)
	return first, int64(n - first), c.bytes[n] - c.bytes[first]
}

// keptKey is a key analysed by Latest: its bytes, kept for the Store, and
// their facts, whose field order is shape (none: fields < 2).
type keptKey struct {
	key    string
	facts  keyFacts
	shape  keyShape
	murmur int32
}

// NewLatest returns a Latest for a Store keeping history updates per
// source partition (Store.History).
func NewLatest(history int) *Latest { return &Latest{hist: max(history, 1)} }

// Keep compacts recs, records of one topic-partition in offset order, to
// the latest record of each key bytes, in their order, Prepared, and
// returns them (recs[:n]). Each carries the times and offsets of the
// records of its key bytes it superseded, as many as the history ring
// keeps, and their count. A Store ingesting the chunk so kept holds what
// it holds ingesting the whole chunk, except: the superseded records'
// values are not in the history (nil), and a superseded record whose key
// or value is unreadable is not among UnparseableRecords. The kept
// records' older updates are in l's buffer until the next Keep.
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
	l.hash, l.by, l.count, l.from = grow(l.hash, n), grow(l.by, n), grow(l.count, n), grow(l.from, n)
	l.chunk.offsets, l.chunk.bytes = grow(l.chunk.offsets, n), grow(l.chunk.bytes, n+1)
	l.chunk.bytes[0] = 0
	for i := range recs {
		l.chunk.offsets[i] = recs[i].Offset
		l.chunk.bytes[i+1] = l.chunk.bytes[i] + int64(len(recs[i].Key)+len(recs[i].Value))
	}
	// Newest first: the first record of each key bytes met is the one kept.
	for i := n - 1; i >= 0; i-- {
		h := hashBytes(keySeed, recs[i].Key)
		l.hash[i], l.by[i], l.count[i] = h, -1, 0
		for j := h & mask; ; j = (j + 1) & mask {
			s := l.slots[j]
			if s == 0 {
				l.slots[j] = int32(i + 1)
				break
			}
			if k := s - 1; l.hash[k] == h && bytes.Equal(recs[k].Key, recs[i].Key) && (recs[k].Key == nil) == (recs[i].Key == nil) {
				l.by[i] = k
				l.count[k]++
				break
			}
		}
	}
	// Each kept record's older updates, oldest first: the last hist-1.
	keep := int32(l.hist - 1)
	total := int32(0)
	for i := range n {
		if l.by[i] < 0 {
			l.from[i] = total
			total += min(l.count[i], keep)
		}
	}
	l.older = grow(l.older, int(total))
	l.met, l.at = grow(l.met, n), grow(l.at, n)
	clear(l.met)
	l.kept = grow(l.kept, n)[:0]
	// A kept record takes the place of the first record of its key bytes:
	// the Store then meets new keys in the order the full chunk has them
	// (the order of a connector's entries, which breaks ties in its sort
	// and among copies of a partition). Records before that place are
	// all read by then (w <= i).
	w := 0
	for i := range n {
		k := l.by[i]
		if k < 0 {
			if l.count[i] == 0 {
				recs[w] = l.prepare(recs[i], i, true)
				w++
			}
			continue
		}
		u := Update{Time: recs[i].Time, RecordOffset: recs[i].Offset}
		if l.met[k] == 0 {
			r := l.prepare(recs[k], int(k), false)
			m := min(l.count[k], keep)
			r.prep.older = l.older[l.from[k] : l.from[k]+m : l.from[k]+m]
			r.prep.superseded = int(l.count[k])
			l.at[k] = int32(w)
			recs[w] = r // w <= i: every record before i is read
			w++
		}
		// The j-th of the count records k supersedes is kept from
		// count-keep on.
		if at := l.met[k] - max(l.count[k]-keep, 0); at >= 0 {
			l.older[l.from[k]+at] = u
		}
		if p := &recs[l.at[k]].prep; u.Time.After(p.newest) {
			p.newest = u.Time
		}
		l.met[k]++
	}
	clear(recs[w:])
	return recs[:w]
}

// prepare works out what Record.Prepare does of the kept record recs[i];
// alone says no other record of its key bytes was in the chunk. Such a
// key is likely new to the Store (a topic of many source partitions, each
// written once or twice), and one of many records likely known (a busy
// partition, analysed when first met): only the former is analysed here,
// the Store analysing the rest itself.
func (l *Latest) prepare(r Record, i int, alone bool) Record {
	r.prep = prepared{done: true, plain: r.Value != nil && plainOffset(r.Value), hash: l.hash[i], chunk: &l.chunk, pos: i}
	// Only the plain form, which nearly every key has, and a glance first:
	// bytes kept for a key that turns out not to be plain, or to be known
	// already, are lost (the Store keeps its own).
	if n := len(r.Key); alone && n >= 7 && r.Key[0] == '[' && r.Key[1] == '"' && r.Key[n-1] == ']' {
		key := l.keys.keep(r.Key)
		if f, ok := plainKeyFacts(key, &l.shapes, &l.keys); ok {
			k := keptKey{key: key, facts: f, murmur: Murmur2(r.Key)}
			if f.shape >= 0 {
				k.shape = l.shapes.list[f.shape]
			}
			l.kept = append(l.kept, k) // cap n: never moves within a chunk
			r.prep.key = &l.kept[len(l.kept)-1]
		}
	}
	return r
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
