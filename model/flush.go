package model

import "time"

// FlushEvent is one commit of a connector's offsets: the records of that
// connector whose timestamps fall within a short window of each other
// (a task writes all its changed partitions in one burst).
type FlushEvent struct {
	Start, End time.Time
	Records    int
}

// maxFlushSpan caps one flush event, so that a connector committing
// continuously (exactly-once, a transaction per poll) still shows separate
// commits rather than one endless event.
const maxFlushSpan = time.Second

// addFlush merges a record timestamp into a bounded, time-ordered list of
// flush events. Records of different partitions arrive in any order while
// catching up, so an event can be extended at either end.
func addFlush(events []FlushEvent, t time.Time, window time.Duration, max int) []FlushEvent {
	events, _ = AddFlushAt(events, -1, t, window, max)
	return events
}

// addFlushAt is addFlush that first tries the event at hint (the one the
// record before went to: while catching up, a partition's records come in
// runs of one time) and returns the event t went to, or -1.
func AddFlushAt(events []FlushEvent, hint int, t time.Time, window time.Duration, max int) ([]FlushEvent, int) {
	// The bounds of "within", moved from each event to t once, as (seconds,
	// nanoseconds) pairs: comparing those is cheap, time arithmetic per
	// event is not, and every record lands here.
	ts, tn := t.Unix(), t.Nanosecond()
	es, en := ShiftInstant(ts, tn, -window)
	ls, ln := ShiftInstant(ts, tn, window)
	ses, sen := ShiftInstant(ts, tn, -maxFlushSpan)
	sls, sln := ShiftInstant(ts, tn, maxFlushSpan)
	within := func(e *FlushEvent) bool {
		ss, sn, xs, xn := e.Start.Unix(), e.Start.Nanosecond(), e.End.Unix(), e.End.Nanosecond()
		// t ≥ Start-window, t ≤ End+window, t-Start ≤ span, End-t ≤ span.
		return !instantAfter(ss, sn, ls, ln) && !instantAfter(es, en, xs, xn) && !instantAfter(ses, sen, ss, sn) && !instantAfter(xs, xn, sls, sln)
	}
	merge := func(i int) ([]FlushEvent, int) {
		e := &events[i]
		if t.Before(e.Start) {
			e.Start = t
		}
		if t.After(e.End) {
			e.End = t
		}
		e.Records++
		return events, i
	}
	// The scan below takes the newest event t is within: the hint is that
	// one when no newer event starts by t+window (they start later still).
	if hint >= 0 && hint < len(events) && within(&events[hint]) &&
		(hint == len(events)-1 || instantAfter(events[hint+1].Start.Unix(), events[hint+1].Start.Nanosecond(), ls, ln)) {
		return merge(hint)
	}
	for i := len(events) - 1; i >= 0; i-- {
		e := &events[i]
		xs, xn := e.End.Unix(), e.End.Nanosecond()
		if within(e) {
			return merge(i)
		}
		if instantAfter(ts, tn, xs, xn) {
			// Insert after i: events stay sorted by Start.
			events = append(events, FlushEvent{})
			copy(events[i+2:], events[i+1:])
			events[i+1] = FlushEvent{Start: t, End: t, Records: 1}
			at := i + 1
			if len(events) > max {
				at -= len(events) - max
			}
			return trimFlushes(events, max), at
		}
	}
	if len(events) >= max {
		return events, -1 // older than everything kept
	}
	events = append(events, FlushEvent{})
	copy(events[1:], events)
	events[0] = FlushEvent{Start: t, End: t, Records: 1}
	return events, 0
}

// shiftInstant is an instant given as Unix seconds and nanoseconds moved
// by d, as t.Add(d) would move it (without its cost).
func ShiftInstant(sec int64, nsec int, d time.Duration) (int64, int) {
	sec += int64(d / time.Second)
	nsec += int(d % time.Second)
	switch {
	case nsec >= 1e9:
		sec, nsec = sec+1, nsec-1e9
	case nsec < 0:
		sec, nsec = sec-1, nsec+1e9
	}
	return sec, nsec
}

// instantAfter compares two instants given as Unix seconds and nanoseconds.
func instantAfter(as int64, an int, bs int64, bn int) bool { return as > bs || as == bs && an > bn }

func trimFlushes(events []FlushEvent, max int) []FlushEvent {
	if len(events) <= max {
		return events
	}
	n := copy(events, events[len(events)-max:])
	return events[:n]
}

// FlushesSince counts flush events that ended after t.
func FlushesSince(events []FlushEvent, t time.Time) int {
	n := 0
	for i := len(events) - 1; i >= 0 && events[i].End.After(t); i-- {
		n++
	}
	return n
}

// FlushBuckets spreads the records of flush events over n equal buckets
// covering (now-span, now], oldest first: the data of a flush sparkline.
func FlushBuckets(events []FlushEvent, now time.Time, span time.Duration, n int) []int {
	b := make([]int, n)
	if n == 0 || span <= 0 {
		return b
	}
	start := now.Add(-span)
	for _, e := range events {
		if !e.End.After(start) || e.End.After(now) {
			continue
		}
		i := int(int64(e.End.Sub(start)) * int64(n) / int64(span))
		if i >= n {
			i = n - 1
		}
		b[i] += e.Records
	}
	return b
}
