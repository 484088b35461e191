package model

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"
)

// FlushStatus judges how fresh a source connector's committed offsets are.
type FlushStatus string

const (
	FlushOK      FlushStatus = "ok"      // flushed within 1.5× its interval
	FlushLate    FlushStatus = "late"    // within 3×
	FlushStalled FlushStatus = "stalled" // older, while it runs or its topics grow
	FlushIdle    FlushStatus = "idle"    // older, and nothing was produced
	FlushUnknown FlushStatus = "unknown" // older, and no evidence either way; or no flush seen
)

// DefaultFlushInterval is Connect's offset.flush.interval.ms default.
const DefaultFlushInterval = time.Minute

// FlushInputs are what koff knows beyond the offsets topic.
type FlushInputs struct {
	// Configured is --flush-interval (0: estimate from the flushes seen).
	Configured time.Duration
	// Estimate, when set, is used instead of the median gap between flush
	// events (ConnectorRow.PartitionInterval).
	Estimate time.Duration
	// State is the connector's state from REST ("" unknown).
	State string
	// Unflushed is the number of records written to the connector's topics
	// since its last flush; -1 when its topics are unknown. Shared counts
	// those in topics other source connectors (SharedWith) write too, and
	// is not in Unflushed: they may be anyone's.
	Unflushed  int64
	Shared     int64
	SharedWith []string
	// Pending is when the unflushed records were first seen, after a
	// measurement since the same flush that saw none (zero: they may be
	// as old as the flush). A connector that commits only when it has
	// produced something owes its next flush an interval after that.
	Pending time.Time
	// BlindSince is since when koff has read nothing of the offsets topics
	// (zero while it reads them), Blind why: a flush since then is one koff
	// cannot have seen.
	BlindSince time.Time
	Blind      string
}

// FlushReport is a source connector's flush lag.
type FlushReport struct {
	Last     time.Time // end of the newest flush
	Age      time.Duration
	Interval time.Duration
	// IntervalSource is "configured" (--flush-interval), "estimated" (the
	// median gap between recent flushes) or "default" (Connect's 60s, with
	// fewer than two flushes seen).
	IntervalSource string
	Status         FlushStatus
	// Reason says why, in a few words, for tables and `koff status`.
	Reason    string
	Unflushed int64
	// Shared is the records since the last flush in topics other
	// connectors also write (not in Unflushed).
	Shared int64
}

// EstimateInterval is the median gap between the starts of the last nine
// flush events, or 0 with fewer than two. Only recent ones count: what a
// compacted topic keeps of older flushes is scattered and says little.
func EstimateInterval(events []FlushEvent) time.Duration {
	if len(events) > 9 {
		events = events[len(events)-9:]
	}
	var gaps []time.Duration
	for i := 1; i < len(events); i++ {
		if g := events[i].Start.Sub(events[i-1].Start); g > 0 {
			gaps = append(gaps, g)
		}
	}
	if len(gaps) == 0 {
		return 0
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	m := len(gaps) / 2
	if len(gaps)%2 == 0 {
		return (gaps[m-1] + gaps[m]) / 2
	}
	return gaps[m]
}

// AssessFlush judges a source connector's flush events at time now.
func AssessFlush(events []FlushEvent, now time.Time, in FlushInputs) FlushReport {
	r := FlushReport{Status: FlushUnknown, Unflushed: in.Unflushed, Shared: in.Shared}
	est := in.Estimate
	if est <= 0 {
		est = EstimateInterval(events)
	}
	switch {
	case in.Configured > 0:
		r.Interval, r.IntervalSource = in.Configured, "configured"
	case est > 0:
		r.Interval, r.IntervalSource = est, "estimated"
	default:
		// One flush says nothing about cadence: assume Connect's default
		// offset.flush.interval.ms until there are two.
		r.Interval, r.IntervalSource = DefaultFlushInterval, "default"
	}
	if len(events) == 0 {
		r.Reason = "no flush seen"
		return r
	}
	r.Last = events[len(events)-1].End
	r.Age = max(now.Sub(r.Last), 0)
	ratio := float64(r.Age) / float64(r.Interval)
	switch {
	case ratio <= 1.5:
		r.Status, r.Reason = FlushOK, "flushing"
	case in.State == "PAUSED" || in.State == "STOPPED":
		// Its tasks are told not to run: not flushing is what they should do.
		r.Status, r.Reason = FlushIdle, "connector is "+in.State
		if in.Unflushed > 0 {
			r.Reason += fmt.Sprintf(", %d records written since its last flush", in.Unflushed)
		}
	case !in.BlindSince.IsZero():
		// koff is blind, not the connector: a flush since then would not
		// show, nor would the records its topics received.
		r.Status, r.Reason = FlushUnknown, in.Blind
	case in.Unflushed > 0:
		// Late counts from when the records were written, not from the last
		// flush: a connector idle for an hour that just produced is not
		// an hour late.
		owed, since := r.Last, ""
		if in.Pending.After(owed) {
			owed, since = in.Pending, fmt.Sprintf(", seen %s ago", shortAge(now.Sub(in.Pending)))
		}
		switch wait := float64(max(now.Sub(owed), 0)) / float64(r.Interval); {
		case wait <= 1.5:
			r.Status, r.Reason = FlushOK, fmt.Sprintf("%d records to flush%s", in.Unflushed, since)
		case wait <= 3:
			r.Status, r.Reason = FlushLate, fmt.Sprintf("%d records written since its last flush%s: %.1f× its interval", in.Unflushed, since, wait)
		default:
			r.Status, r.Reason = FlushStalled, fmt.Sprintf("%d records written since its last flush%s", in.Unflushed, since)
		}
	case in.Unflushed == 0 && in.Shared > 0:
		// Records in a topic several connectors write could be the others':
		// not enough to call this one stalled, too many to call it idle.
		r.Status, r.Reason = FlushLate, fmt.Sprintf("no flush for %.0f× its interval; %d records since in topics shared with %s: koff cannot tell whose", ratio, in.Shared, strings.Join(in.SharedWith, ", "))
	case in.Unflushed == 0:
		// A task commits only what it produced (a real worker writes no
		// offsets when nothing is pending; Debezium on an idle database):
		// running or not, it is idle, however short its interval.
		r.Status, r.Reason = FlushIdle, "nothing produced since its last flush"
	case ratio <= 3:
		r.Status, r.Reason = FlushLate, fmt.Sprintf("%.1f× its interval", ratio)
	case in.State == "RUNNING":
		r.Status, r.Reason = FlushStalled, "RUNNING but not flushing"
	case in.State != "":
		r.Status, r.Reason = FlushIdle, "connector is "+in.State
	default:
		r.Reason = fmt.Sprintf("no flush for %.0f× its interval; state unknown", ratio)
	}
	return r
}

// shortAge is a duration in whole seconds, or minutes past 100s.
func shortAge(d time.Duration) string {
	if d < 100*time.Second {
		return fmt.Sprintf("%ds", int(d/time.Second))
	}
	return fmt.Sprintf("%dm", int(d/time.Minute))
}

// UnknownTooLong: a connector whose flush status is unknown and whose
// last flush is older than 3× its interval may have stopped committing,
// and koff cannot tell: `koff status` pages on it.
func (r FlushReport) UnknownTooLong() bool {
	return r.Status == FlushUnknown && !r.Last.IsZero() && r.Age > 3*r.Interval
}

// Rates is the progress per second of each numeric field of a partition's
// offset over its recent updates (fields that are not integers, or that
// went backwards, are left out).
func Rates(history []Update) map[string]float64 {
	var first, last *Update
	for i := range history {
		if history[i].Value == nil {
			first, last = nil, nil // a reset restarts the count
			continue
		}
		if first == nil {
			first = &history[i]
		}
		last = &history[i]
	}
	if first == nil || last == first {
		return nil
	}
	secs := last.Time.Sub(first.Time).Seconds()
	if secs <= 0 {
		return nil
	}
	a, err1 := ParseOffset(first.Value)
	b, err2 := ParseOffset(last.Value)
	if err1 != nil || err2 != nil {
		return nil
	}
	out := map[string]float64{}
	for _, f := range b {
		from, ok := a.Get(f.Name)
		if !ok {
			continue
		}
		d, ok := NumberDelta(from, f.Value)
		if !ok || d < 0 {
			continue
		}
		out[f.Name] = d / secs
	}
	return out
}

// NumberDelta is b−a for two integer JSON numbers, as a float64 for rates.
// It is exact in big.Int before the conversion, so huge offsets (LSNs near
// 2^63) with small differences give exact small deltas.
func NumberDelta(a, b any) (float64, bool) {
	x, ok1 := a.(json.Number)
	y, ok2 := b.(json.Number)
	if !ok1 || !ok2 {
		return 0, false
	}
	bx, ok1 := new(big.Int).SetString(string(x), 10)
	by, ok2 := new(big.Int).SetString(string(y), 10)
	if !ok1 || !ok2 {
		return 0, false
	}
	f, _ := new(big.Float).SetInt(by.Sub(by, bx)).Float64()
	return f, true
}

// StalePartitions lists source partitions whose offset has not moved for
// more than three flush intervals while their connector kept flushing:
// idle sources, or tasks that lost track of a partition.
func StalePartitions(rows []PartitionRow, report FlushReport, now time.Time) []PartitionRow {
	if report.Status != FlushOK || report.Interval == 0 {
		return nil
	}
	var out []PartitionRow
	for _, r := range rows {
		if !r.Deleted && now.Sub(r.Updated) > 3*report.Interval {
			out = append(out, r)
		}
	}
	return out
}

// medianGap is the median time between consecutive updates in a history,
// and the number of gaps it is taken over. It runs on every ingested
// record, so it sorts on the stack.
func MedianGap(h []Update) (time.Duration, int) {
	return MedianGapRing(h, 0)
}

// medianGapRing is medianGap over a ring whose oldest update is at head.
func MedianGapRing(h []Update, head int) (time.Duration, int) {
	var buf [32]time.Duration
	gaps := buf[:0]
	n := len(h)
	for i := 1; i < n && len(gaps) < len(buf); i++ {
		cur, prev := (head+i)%n, (head+i-1)%n
		if g := WallSub(h[cur].Time, h[prev].Time); g > 0 {
			// insertion sort: at most a few dozen elements
			j := len(gaps)
			gaps = append(gaps, g)
			for ; j > 0 && gaps[j-1] > g; j-- {
				gaps[j] = gaps[j-1]
			}
			gaps[j] = g
		}
	}
	if len(gaps) == 0 {
		return 0, 0
	}
	return gaps[len(gaps)/2], len(gaps)
}

// wallSub is a.Sub(b) by the wall clock, without Sub's overflow checks
// (which cost more than the rest of medianGap) unless the two are
// centuries apart.
func WallSub(a, b time.Time) time.Duration {
	ds := a.Unix() - b.Unix()
	if ds > 6e9 || ds < -6e9 {
		return a.Round(0).Sub(b.Round(0))
	}
	return time.Duration(ds)*time.Second + time.Duration(a.Nanosecond()-b.Nanosecond())
}
