package store

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// sortByPartition sorts entries by partition text, then topic-partition,
// then the order first seen (as a stable sort would).
func sortByPartition(es []*entry) {
	if len(es) < 2 {
		return
	}
	sc := sortScratch.Get().(*textScratch)
	ks := slices.Grow(sc.keys[:0], len(es))[:len(es)]
	for i, e := range es {
		ks[i] = keyOf(e.partitionStr(), i)
	}
	sc.tmp = sortKeys(ks, sc.tmp, es)
	sorted := slices.Grow(sc.es[:0], len(es))
	for _, k := range ks {
		sorted = append(sorted, es[k.at])
	}
	copy(es, sorted)
	clear(sorted)
	clear(ks)
	clear(sc.tmp[:cap(sc.tmp)])
	sc.keys, sc.es = ks[:0], sorted[:0]
	sortScratch.Put(sc)
}

// sortScratch holds sortByPartition's keys between calls.
var sortScratch = sync.Pool{New: func() any { return new(textScratch) }}

type textScratch struct {
	keys, tmp []textKey
	es        []*entry
}

// textKey is one entry's partition text in a sort by text (sortKeys).
//
// A million partition texts of one connector share most of their bytes
// ({"cluster":"primary","partition":…,"topic":"orders.region-0.topic-…"}),
// so comparing them whole costs a pass over the shared bytes and a cache
// miss per comparison. They are sorted instead a byte at a time from past
// the prefix the texts being sorted share (a radix sort from the first
// byte), the next 8 bytes of each held as a number beside the text: most
// bytes that decide are read from there, the text itself only every 8
// bytes, and the entry only to tell equal texts apart.
type textKey struct {
	word uint64 // 8 bytes of the text from the place sorted on, big-endian, zeros past its end
	p    *byte  // the text (text): 12 bytes where a string takes 16
	n    uint32
	at   uint32 // the entry's place in the entries sorted
}

func keyOf(text string, at int) textKey {
	return textKey{p: unsafe.StringData(text), n: uint32(len(text)), at: uint32(at)}
}

func (k *textKey) text() string { return unsafe.String(k.p, k.n) }

// smallSort is the size under which keys are sorted by comparison: a
// radix pass costs its 256 buckets whatever the keys.
const smallSort = 32

// sortKeys sorts ks by text, equal texts by sameText of their entries in
// es; tmp is room for the sort, returned grown to len(ks) for the next.
func sortKeys(ks, tmp []textKey, es []*entry) []textKey {
	if len(ks) < 2 {
		return tmp
	}
	tmp = slices.Grow(tmp[:0], len(ks))[:len(ks)]
	pos := commonPrefix(ks, 0)
	for i := range ks {
		ks[i].word = textWord(ks[i].text(), pos)
	}
	sortTexts(ks, tmp, es, pos)
	return tmp[:0]
}

// sortTexts sorts ks, whose texts agree on their first pos bytes and whose
// words are their bytes from pos; tmp is room for as many keys.
func sortTexts(ks, tmp []textKey, es []*entry, pos int) {
	for len(ks) > 1 {
		if len(ks) <= smallSort {
			slices.SortFunc(ks, func(a, b textKey) int { return compareKeys(a, b, pos, es) })
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
				return cmp.Or(cmp.Compare(a.n, b.n), sameText(es[a.at], es[b.at]))
			})
			if ks = ks[short:]; len(ks) < 2 {
				return
			}
			pos = next + commonPrefix(ks, next)
			for i := range ks {
				ks[i].word = textWord(ks[i].text(), pos)
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
		tmp = tmp[:len(ks)]
		for i := range ks {
			b := byte(ks[i].word >> shift)
			tmp[ends[b]] = ks[i]
			ends[b]++
		}
		copy(ks, tmp)
		from := 0
		for _, to := range ends {
			if to-from > 1 {
				sortTexts(ks[from:to], tmp, es, pos) // they share one more byte: the words tell
			}
			from = to
		}
		return
	}
}

// compareKeys orders a and b, whose texts agree on their first pos bytes
// and whose words are their bytes from pos.
func compareKeys(a, b textKey, pos int, es []*entry) int {
	if a.word != b.word {
		return cmp.Compare(a.word, b.word)
	}
	at, bt, next := a.text(), b.text(), pos+8
	return cmp.Or(strings.Compare(at[min(next, len(at)):], bt[min(next, len(bt)):]),
		cmp.Compare(len(at), len(bt)), sameText(es[a.at], es[b.at]))
}

// sameText orders entries of equal partition text.
func sameText(a, b *entry) int {
	return cmp.Or(cmp.Compare(a.partition, b.partition), cmp.Compare(a.idx, b.idx))
}

// commonPrefix is how many bytes from from on the texts of ks share.
func commonPrefix(ks []textKey, from int) int {
	first := ks[0].text()
	if len(first) <= from {
		return 0
	}
	n := len(first) - from
	for i := range ks[1:] {
		t := ks[i+1].text()
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
