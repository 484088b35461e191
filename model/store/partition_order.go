package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"
	"unsafe"
)

// sortByPartition sorts entries by partition text, then topic-partition,
// then the order first seen (as a stable sort would).
func sortByPartition(es []*entry) {
	if len(es) < 2 {
		return
	}
	t := sortScratch.Get().(*textSort)
	for i, e := range es {
		t.add(e.partitionStr(), i)
	}
	t.es = es
	t.sort(t.keys)
	sorted := slices.Grow(t.sorted[:0], len(es))
	for _, k := range t.keys {
		sorted = append(sorted, es[k.at])
	}
	copy(es, sorted)
	clear(sorted)
	t.sorted = sorted[:0]
	t.reset()
	sortScratch.Put(t)
}

// sortScratch holds sortByPartition's keys between calls.
var sortScratch = sync.Pool{New: func() any { return new(textSort) }}

// textSort sorts entries by partition text (sort), equal texts by
// sameText.
//
// A million partition texts of one connector share most of their bytes
// ({"cluster":"primary","partition":…,"topic":"orders.region-0.topic-…"}),
// so comparing them whole costs a pass over the shared bytes and a cache
// miss per comparison. They are sorted instead a byte at a time from past
// the prefix the texts being sorted share (a radix sort from the first
// byte), the next 8 bytes of each held as a number in its key: most bytes
// that decide are read from there, the text itself only every 8 bytes,
// and the entry only to tell equal texts apart. (A copy of the texts side
// by side, read without a cache miss, cost as much CPU to make as it saved
// and 20 MB.)
type textSort struct {
	keys, tmp []textKey
	es        []*entry // the entries of the keys' at
	sorted    []*entry // sortByPartition's
}

type textKey struct {
	word uint64 // 8 bytes of the text from the place sorted on, big-endian, zeros past its end
	p    *byte  // the text (text): 12 bytes where a string takes 16
	n    uint32
	at   uint32 // the entry's place in es
}

// add adds text, of the entry at es[at], to the keys.
func (t *textSort) add(text string, at int) {
	t.keys = append(t.keys, textKey{p: unsafe.StringData(text), n: uint32(len(text)), at: uint32(at)})
}

func (t *textSort) text(k *textKey) []byte { return unsafe.Slice(k.p, k.n) } // read only

// reset empties t, holding no entry.
func (t *textSort) reset() {
	clear(t.keys[:cap(t.keys)])
	clear(t.tmp[:cap(t.tmp)])
	t.keys, t.tmp, t.es = t.keys[:0], t.tmp[:0], nil
}

// smallSort is the size under which keys are sorted by comparison: a
// radix pass costs its 256 buckets whatever the keys.
const smallSort = 32

// sort sorts ks, keys of t, by text.
func (t *textSort) sort(ks []textKey) {
	if len(ks) < 2 {
		return
	}
	t.tmp = slices.Grow(t.tmp[:0], len(ks))[:len(ks)]
	pos := t.commonPrefix(ks, 0)
	for i := range ks {
		ks[i].word = textWord(t.text(&ks[i]), pos)
	}
	t.sortFrom(ks, pos)
}

// sortFrom sorts ks, whose texts agree on their first pos bytes and whose
// words are their bytes from pos.
func (t *textSort) sortFrom(ks []textKey, pos int) {
	for len(ks) > 1 {
		if len(ks) <= smallSort {
			// By insertion, on the words where they differ.
			for i := 1; i < len(ks); i++ {
				k, j := ks[i], i
				for ; j > 0 && (k.word < ks[j-1].word || k.word == ks[j-1].word && t.compare(&k, &ks[j-1], pos) < 0); j-- {
					ks[j] = ks[j-1]
				}
				ks[j] = k
			}
			return
		}
		w0, diff := ks[0].word, uint64(0)
		for i := range ks {
			diff |= ks[i].word ^ w0
		}
		if diff == 0 {
			// Equal words: texts ending within them are prefixes of the
			// longer ones (or equal), first by length; the others go on
			// past what they share from there.
			next := pos + 8
			short := 0
			for x := range ks {
				if int(ks[x].n) <= next {
					ks[x], ks[short] = ks[short], ks[x]
					short++
				}
			}
			slices.SortFunc(ks[:short], func(a, b textKey) int {
				if c := cmp.Compare(a.n, b.n); c != 0 {
					return c
				}
				return sameText(t.es[a.at], t.es[b.at]) // equal texts only: a OneShotRead has none
			})
			if ks = ks[short:]; len(ks) < 2 {
				return
			}
			pos = next + t.commonPrefix(ks, next)
			for i := range ks {
				ks[i].word = textWord(t.text(&ks[i]), pos)
			}
			continue
		}
		// The first byte of the words that is not the same in all.
		shift := 56 - bits.LeadingZeros64(diff)&^7
		var ends [256]int
		for i := range ks {
			ends[byte(ks[i].word>>shift)]++
		}
		at := 0
		for b, n := range ends {
			ends[b], at = at, at+n
		}
		tmp := t.tmp[:len(ks)]
		for i := range ks {
			b := byte(ks[i].word >> shift)
			tmp[ends[b]] = ks[i]
			ends[b]++
		}
		copy(ks, tmp)
		from := 0
		for _, to := range ends {
			if to-from > 1 {
				t.sortFrom(ks[from:to], pos) // they share one more byte: the words tell
			}
			from = to
		}
		return
	}
}

// compare orders a and b, whose texts agree on their first pos bytes and
// whose words are their bytes from pos.
func (t *textSort) compare(a, b *textKey, pos int) int {
	if a.word != b.word {
		return cmp.Compare(a.word, b.word)
	}
	at, bt, next := t.text(a), t.text(b), pos+8
	if c := cmp.Or(bytes.Compare(at[min(next, len(at)):], bt[min(next, len(bt)):]), cmp.Compare(len(at), len(bt))); c != 0 {
		return c
	}
	return sameText(t.es[a.at], t.es[b.at]) // equal texts only: a OneShotRead has none
}

// sameText orders entries of equal partition text.
func sameText(a, b *entry) int {
	return cmp.Or(cmp.Compare(a.partition, b.partition), cmp.Compare(a.idx, b.idx))
}

// commonPrefix is how many bytes from from on the texts of ks share.
func (t *textSort) commonPrefix(ks []textKey, from int) int {
	first := t.text(&ks[0])
	if len(first) <= from {
		return 0
	}
	n := len(first) - from
	for i := range ks[1:] {
		s := t.text(&ks[i+1])
		if len(s) <= from {
			return 0
		}
		if n = sharedBytes(first[from:from+n], s[from:min(len(s), from+n)]); n == 0 {
			return 0
		}
	}
	return n
}

// sharedBytes is how many bytes b shares with the start of a, no
// shorter: 8 at a time as words, the first byte told apart by the
// lowest bit the words differ in, with no call to compare strings.
func sharedBytes(a, b []byte) int {
	m := 0
	for ; m+8 <= len(b); m += 8 {
		if x := binary.LittleEndian.Uint64(a[m:m+8]) ^ binary.LittleEndian.Uint64(b[m:m+8]); x != 0 {
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
func textWord(s []byte, i int) uint64 {
	if i+8 <= len(s) {
		return binary.BigEndian.Uint64(s[i : i+8])
	}
	var b [8]byte
	if i < len(s) {
		copy(b[:], s[i:])
	}
	return binary.BigEndian.Uint64(b[:])
}
