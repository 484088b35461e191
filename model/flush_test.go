package model

import (
	"math/rand"
	"reflect"
	"testing"
	"time"
)

// addFlushReference is addFlush as first written, with time arithmetic per
// event: the optimised one must give the same events for any input.
func addFlushReference(events []FlushEvent, t time.Time, window time.Duration, max int) []FlushEvent {
	for i := len(events) - 1; i >= 0; i-- {
		e := &events[i]
		within := !t.Before(e.Start.Add(-window)) && !t.After(e.End.Add(window))
		if within && (t.Sub(e.Start) > maxFlushSpan || e.End.Sub(t) > maxFlushSpan) {
			within = false
		}
		if within {
			if t.Before(e.Start) {
				e.Start = t
			}
			if t.After(e.End) {
				e.End = t
			}
			e.Records++
			return events
		}
		if t.After(e.End) {
			events = append(events, FlushEvent{})
			copy(events[i+2:], events[i+1:])
			events[i+1] = FlushEvent{Start: t, End: t, Records: 1}
			return trimFlushes(events, max)
		}
	}
	if len(events) >= max {
		return events
	}
	events = append(events, FlushEvent{})
	copy(events[1:], events)
	events[0] = FlushEvent{Start: t, End: t, Records: 1}
	return events
}

// TestAddFlushSameAsReference feeds both versions the same record times:
// in order, interleaved from several partitions as a catch-up reads them,
// bursts longer than the span cap, and times at the ends of Kafka's range.
func TestAddFlushSameAsReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	base := time.UnixMilli(1_796_000_000_000)
	for run := 0; run < 100; run++ {
		var got, want, hinted []FlushEvent
		hint := -1
		streams := 1 + rng.Intn(25)
		pos := make([]time.Time, streams)
		for i := range pos {
			pos[i] = base.Add(time.Duration(rng.Intn(600)) * time.Second)
		}
		window := time.Duration(1+rng.Intn(300)) * time.Millisecond
		max := 1 + rng.Intn(70)
		for n := 0; n < 1000; n++ {
			s := rng.Intn(streams)
			switch rng.Intn(10) {
			case 0:
				pos[s] = pos[s].Add(time.Duration(rng.Intn(120_000)) * time.Millisecond)
			case 1:
				pos[s] = pos[s].Add(-time.Duration(rng.Intn(3000)) * time.Millisecond)
			default:
				pos[s] = pos[s].Add(time.Duration(rng.Intn(40)) * time.Millisecond)
			}
			ts := pos[s]
			if rng.Intn(500) == 0 {
				ts = time.UnixMilli([]int64{-1, 0, 1<<63 - 1, -1 << 63}[rng.Intn(4)])
			}
			got = addFlush(got, ts, window, max)
			want = addFlushReference(want, ts, window, max)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("run %d record %d (t=%v): events differ\n got %v\nwant %v", run, n, ts, got, want)
			}
			// With the hint of the record before, as the Store calls it.
			hinted, hint = AddFlushAt(hinted, hint, ts, window, max)
			if !reflect.DeepEqual(hinted, want) {
				t.Fatalf("run %d record %d (t=%v), hint: events differ\n got %v\nwant %v", run, n, ts, hinted, want)
			}
		}
	}
}
