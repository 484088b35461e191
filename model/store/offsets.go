package store

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"

	"koff/model"
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
	s.mu.RLock()
	defer s.mu.RUnlock()
	scratch := bodyScratch.Get().(*[]*entry)
	picks := (*scratch)[:0]
	defer func() {
		clear(picks)
		*scratch = picks[:0]
		bodyScratch.Put(scratch)
	}()
	var seen map[string]bool
	size := 0
	for _, id := range ids {
		c := s.connectors[id]
		if c == nil {
			continue
		}
		from := len(picks)
		var ok bool
		if picks, size, ok = singleCopyPicks(c, picks, size); !ok {
			for _, ps := range s.partsOf(c).parts {
				// The rows OffsetsBody keeps: live, an offset the task
				// reads, a partition map.
				if e := ps.live; e != nil && e.state == valueOffset && e.partitionStr() != "null" {
					picks = append(picks, e)
					size += len(e.partitionStr()) + len(e.value()) + len(`,{"partition":,"offset":}`)
				}
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
				if !seen[e.identity()] {
					seen[e.identity()] = true
					kept = append(kept, e)
				}
			}
			picks = picks[:from+len(kept)]
		}
	}
	// Equal partition text is an equal identity, so after the above every
	// pick has its own text and the order by (text, identity) is by text.
	if len(ids) > 1 {
		slices.SortStableFunc(picks, func(a, b *entry) int { return cmp.Compare(a.partitionStr(), b.partitionStr()) })
	}
	// Sized for the stored values: a compacted one is no longer.
	b := slices.Grow(dst, size+len(`{"offsets":[]}`))
	b = append(b, `{"offsets":[`...)
	for i, e := range picks {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"partition":`...)
		b = append(b, e.partitionStr()...)
		b = append(b, `,"offset":`...)
		if v := e.value(); e.plain {
			b = append(b, v...) // already compact (valueTexts)
		} else {
			offset, _, _ := valueTexts(v)
			b = append(b, offset...)
		}
		b = append(b, '}')
	}
	return append(b, `]}`...)
}

// singleCopyPicks appends to picks what partsOf(c) would give the body
// when every partition of c has one copy, in the task's form (a task reads
// that copy, buildParts decides nothing), without working out the
// partitions: at a million of them that is a hundred megabytes, made for
// one read. ok is false, and picks as it was, when c has another kind of
// partition, or its partitions are worked out already.
func singleCopyPicks(c *connector, picks []*entry, size int) ([]*entry, int, bool) {
	if c.parts.Load() != nil {
		return picks, size, false
	}
	from, was := len(picks), size
	for _, e := range c.entries {
		if !e.firstCopy || e.nextCopy != 0 || !e.taskForm {
			return picks[:from], was, false
		}
		if e.state == valueOffset && e.partitionStr() != "null" {
			picks = append(picks, e)
			size += len(e.partitionStr()) + len(e.value()) + len(`,{"partition":,"offset":}`)
		}
	}
	return picks, size, true
}

// bodyScratch holds AppendOffsetsBody's picks between calls.
var bodyScratch = sync.Pool{New: func() any { return new([]*entry) }}

// sortByPartition sorts entries by partition text, then topic-partition,
// then the order first seen (as a stable sort would).
//
// A million partition texts of one connector share most of their bytes
// ({"cluster":"primary","partition":…,"topic":"orders.region-0.topic-…"}),
// so comparing them whole costs a pass over the shared bytes and a cache
// miss per comparison. They are sorted instead by 8 of their bytes at a
// time, from past the prefix the texts being sorted share, as numbers
// held beside the entries (sortTexts).
func sortByPartition(es []*entry) {
	if len(es) < 2 {
		return
	}
	sc := sortScratch.Get().(*textScratch)
	ks := slices.Grow(sc.keys[:0], len(es))[:len(es)]
	tmp := slices.Grow(sc.tmp[:0], len(es))[:len(es)]
	for i, e := range es {
		ks[i].text, ks[i].e = e.partitionStr(), e
	}
	sortTexts(ks, tmp, 0)
	for i := range ks {
		es[i] = ks[i].e
	}
	clear(ks)
	clear(tmp)
	sc.keys, sc.tmp = ks[:0], tmp[:0]
	sortScratch.Put(sc)
}

// sortScratch holds sortByPartition's keys between calls.
var sortScratch = sync.Pool{New: func() any { return new(textScratch) }}

type textScratch struct{ keys, tmp []textKey }

type textKey struct {
	word uint64 // 8 bytes of the text, big-endian, zero past its end
	text string // e.partitionStr(): read without a cache miss on e
	e    *entry
}

// sortTexts sorts ks whose texts agree on their first from bytes; tmp is
// room for as many keys.
func sortTexts(ks, tmp []textKey, from int) {
	for len(ks) > 1 {
		from += commonPrefix(ks, from)
		for i := range ks {
			ks[i].word = textWord(ks[i].text, from)
		}
		sortWords(ks, tmp)
		next := from + 8
		rest := []textKey(nil) // a run that is all of ks: sorted on here, not deeper
		for i := 0; i < len(ks); {
			j := i + 1
			for j < len(ks) && ks[j].word == ks[i].word {
				j++
			}
			if j-i > 1 {
				run := ks[i:j]
				// Texts ending within the word (equal up to there) are
				// prefixes of the longer ones: first, by length, then by
				// topic-partition and the order first seen.
				short := 0
				for x := range run {
					if len(run[x].text) <= next {
						run[x], run[short] = run[short], run[x]
						short++
					}
				}
				slices.SortFunc(run[:short], func(a, b textKey) int {
					return cmp.Or(cmp.Compare(len(a.text), len(b.text)), sameText(a.e, b.e))
				})
				if j-i == len(ks) {
					rest = run[short:]
				} else {
					sortTexts(run[short:], tmp, next)
				}
			}
			i = j
		}
		if rest == nil {
			return
		}
		ks, from = rest, next
	}
}

// sortWords sorts ks by word, tmp being room for as many keys: a radix
// sort a byte at a time from the lowest, which skips the bytes all the
// words share (most of them, past a shared prefix) and calls no
// comparison function.
func sortWords(ks, tmp []textKey) {
	if len(ks) < 64 {
		slices.SortFunc(ks, func(a, b textKey) int { return cmp.Compare(a.word, b.word) })
		return
	}
	var counts [8][256]int
	for i := range ks {
		w := ks[i].word
		for d := range 8 {
			counts[d][byte(w>>(8*d))]++
		}
	}
	src, dst := ks, tmp[:len(ks)]
	for d := range 8 {
		c := &counts[d]
		if c[byte(src[0].word>>(8*d))] == len(src) {
			continue // every word has this byte
		}
		at := 0
		for b := range c {
			c[b], at = at, at+c[b]
		}
		for i := range src {
			b := byte(src[i].word >> (8 * d))
			dst[c[b]] = src[i]
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &ks[0] {
		copy(ks, src)
	}
}

// sameText orders entries of equal partition text.
func sameText(a, b *entry) int {
	return cmp.Or(cmp.Compare(a.partition, b.partition), cmp.Compare(a.idx, b.idx))
}

// commonPrefix is how many bytes from from on the texts of ks share.
func commonPrefix(ks []textKey, from int) int {
	first := ks[0].text
	if len(first) <= from {
		return 0
	}
	n := len(first) - from
	for _, k := range ks[1:] {
		t := k.text
		if len(t) <= from {
			return 0
		}
		if n = sharedBytes(first[from:from+n], t[from:min(len(t), from+n)]); n == 0 {
			return 0
		}
	}
	return n
}

// sharedBytes is how many bytes b shares with the start of a, no
// shorter: 8 at a time as words, the first byte told apart by the
// lowest bit the words differ in, with no call to compare strings.
func sharedBytes(a, b string) int {
	m := 0
	for ; m+8 <= len(b); m += 8 {
		if x := binary.LittleEndian.Uint64([]byte(a[m:m+8])) ^ binary.LittleEndian.Uint64([]byte(b[m:m+8])); x != 0 {
			return m + bits.TrailingZeros64(x)/8
		}
	}
	for m < len(b) && a[m] == b[m] {
		m++
	}
	return m
}

// textWord is the 8 bytes of s from i as a big-endian number, zeros past
// its end: numbers compare as the bytes do.
func textWord(s string, i int) uint64 {
	if i+8 <= len(s) {
		return binary.BigEndian.Uint64([]byte(s[i : i+8]))
	}
	var b [8]byte
	if i < len(s) {
		copy(b[:], s[i:])
	}
	return binary.BigEndian.Uint64(b[:])
}
