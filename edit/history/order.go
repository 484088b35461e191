package history

import (
	"slices"

	"koff/model"
)

// A history is read topic-partition after topic-partition, each in log
// order; an operator reads it as a timeline. The commits shown are kept
// in a spool anyway (which copy each is is known only once the read is
// done), so their order is worked out from a small reference to each
// (spoolRef, 16 bytes): each topic-partition's commits are one run,
// nearly always in time order already (a run that is not is sorted on its
// own), and the runs are merged by time, ties in read order.

// timeline notes each spooled commit's place and the runs they come in.
type timeline struct {
	refs []spoolRef
	// runs are where each topic-partition's commits begin in refs.
	runs     []int
	tp       model.TopicPartition
	unsorted []int // runs whose times go back somewhere
	sorted   bool  // refs are in time order as read
}

func (tl *timeline) add(tp model.TopicPartition, ref spoolRef) {
	n := len(tl.refs)
	switch {
	case n == 0:
		tl.runs, tl.sorted = append(tl.runs, 0), true
	case tp != tl.tp:
		tl.runs = append(tl.runs, n)
	}
	if n > 0 && ref.ms < tl.refs[n-1].ms {
		tl.sorted = false
		if tp == tl.tp && (len(tl.unsorted) == 0 || tl.unsorted[len(tl.unsorted)-1] != len(tl.runs)-1) {
			tl.unsorted = append(tl.unsorted, len(tl.runs)-1)
		}
	}
	tl.tp = tp
	tl.refs = append(tl.refs, ref)
}

// inTime returns the commits' references in time order, ties in the
// order read.
func (tl *timeline) inTime() []spoolRef {
	if tl.sorted || len(tl.runs) < 2 && len(tl.unsorted) == 0 {
		return tl.refs
	}
	end := func(r int) int {
		if r+1 < len(tl.runs) {
			return tl.runs[r+1]
		}
		return len(tl.refs)
	}
	for _, r := range tl.unsorted {
		slices.SortStableFunc(tl.refs[tl.runs[r]:end(r)], func(a, b spoolRef) int { return cmpInt(a.ms, b.ms) })
	}
	if len(tl.runs) == 1 {
		return tl.refs
	}
	// A heap of the runs by their next commit's time, then run number.
	next := make([]int, len(tl.runs))
	copy(next, tl.runs)
	heap := make([]int, 0, len(tl.runs))
	less := func(a, b int) bool {
		ta, tb := tl.refs[next[a]].ms, tl.refs[next[b]].ms
		return ta < tb || ta == tb && a < b
	}
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(heap) {
				return
			}
			if c+1 < len(heap) && less(heap[c+1], heap[c]) {
				c++
			}
			if !less(heap[c], heap[i]) {
				return
			}
			heap[i], heap[c] = heap[c], heap[i]
			i = c
		}
	}
	for r := range tl.runs {
		if next[r] < end(r) {
			heap = append(heap, r)
		}
	}
	for i := len(heap)/2 - 1; i >= 0; i-- {
		down(i)
	}
	out := make([]spoolRef, 0, len(tl.refs))
	for len(heap) > 0 {
		r := heap[0]
		out = append(out, tl.refs[next[r]])
		if next[r]++; next[r] == end(r) {
			heap[0] = heap[len(heap)-1]
			heap = heap[:len(heap)-1]
		}
		down(0)
	}
	return out
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
