package screens

import (
	"container/heap"
	"math"
	"sort"
	"time"

	"koff/model"
	"koff/ui/kit"
)

// maxRatePartitions bounds the histories read for the progress rate on a
// reload: a connector can have many thousands of source partitions.
const maxRatePartitions = 500

// rateCache keeps each source partition's progress rates, recomputed only
// for partitions that got a new record since the last reload (reading a
// partition's history copies it), and their sum by field.
type RateCache struct {
	byID             map[string]rateEntry
	sum              []kit.FieldRate
	counted, skipped int
}

// newestRows is a min-heap of row indices by update time (upd).
type newestRows struct {
	upd []int64
	idx []int
}

func (h *newestRows) Len() int { return len(h.idx) }

func (h *newestRows) Less(a, b int) bool { return h.upd[h.idx[a]] < h.upd[h.idx[b]] }

func (h *newestRows) Swap(a, b int) { h.idx[a], h.idx[b] = h.idx[b], h.idx[a] }

func (h *newestRows) Push(x any) { h.idx = append(h.idx, x.(int)) }

func (h *newestRows) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

type rateEntry struct {
	recordOffset int64
	rates        map[string]float64
}

// update sums the rates of the partitions updated within the timeline:
// an older rate says nothing about progress now.
func (c *RateCache) Update(src kit.Source, rows []Prow, now time.Time) {
	*c = c.Next(src, rows, now, nil, nil)
}

// rowTimes are the update times of rows, Unix ns, and which are
// tombstones, in arrays of their own: the rates' walk of 100,000 rows
// then reads two arrays, not 100,000 rows scattered over the heap.
type rowTimes struct {
	Updates []int64
	Deleted []bool
}

// unixNano is t in Unix ns, in the same order as the times: those before
// 1678 or after 2262, which UnixNano cannot give, are the least and the
// most int64 (a record's timestamp is any int64 of milliseconds).
func UnixNano(t time.Time) int64 {
	switch {
	case t.Before(MinUnixNano):
		return math.MinInt64
	case t.After(MaxUnixNano):
		return math.MaxInt64
	}
	return t.UnixNano()
}

var MinUnixNano, MaxUnixNano = time.Unix(0, math.MinInt64+1), time.Unix(0, math.MaxInt64-1)

func TimesOf(rows []Prow) rowTimes {
	t := rowTimes{Updates: make([]int64, len(rows)), Deleted: make([]bool, len(rows))}
	for i, r := range rows {
		t.Updates[i], t.Deleted[i] = UnixNano(r.Updated), r.Deleted
	}
	return t
}

// next is update's result as a new cache, c left as it is (a reload off
// the UI goroutine works it out while the screen shows c).
// times are those of rows (nil: made of them).
func (c RateCache) Next(src kit.Source, rows []Prow, now time.Time, y *kit.Yielder, times *rowTimes) RateCache {
	if times == nil || len(times.Updates) != len(rows) {
		t := TimesOf(rows)
		times = &t
	}
	// The newest maxRatePartitions updated within the timeline, newest
	// first: kept in a min-heap of that size, not by sorting every row.
	upd, del := times.Updates, times.Deleted
	cut := UnixNano(now.Add(-timelineSpan))
	h := &newestRows{upd: upd}
	n := 0
	for i := range rows {
		y.Step()
		if del[i] || upd[i] < cut {
			continue
		}
		n++
		switch {
		case len(h.idx) < maxRatePartitions:
			heap.Push(h, i)
		case upd[i] > upd[h.idx[0]]:
			h.idx[0] = i
			heap.Fix(h, 0)
		}
	}
	sort.Slice(h.idx, func(a, b int) bool { return upd[h.idx[a]] > upd[h.idx[b]] })
	c.skipped = max(n-maxRatePartitions, 0)
	recent := make([]model.PartitionRow, len(h.idx))
	for k, i := range h.idx {
		recent[k] = *rows[i]
	}
	next := make(map[string]rateEntry, len(recent))
	all := make([]map[string]float64, 0, len(recent))
	// The histories of the partitions with a new record, read together.
	var stale []model.PartitionID
	for _, r := range recent {
		if e, ok := c.byID[partitionIdentity(r)]; !ok || e.recordOffset != r.RecordOffset {
			stale = append(stale, r.ID)
		}
	}
	var histories [][]model.Update
	if len(stale) > 0 {
		histories = src.Histories(stale)
	}
	for _, r := range recent {
		id := partitionIdentity(r)
		e, ok := c.byID[id]
		if !ok || e.recordOffset != r.RecordOffset {
			h := histories[0]
			histories = histories[1:]
			if h == nil {
				continue
			}
			e = rateEntry{recordOffset: r.RecordOffset, rates: model.Rates(h)}
		}
		next[id] = e
		all = append(all, e.rates)
	}
	c.byID, c.counted, c.sum = next, len(recent), kit.SumRates(all)
	return c
}
