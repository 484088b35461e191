package kit

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"koff/model"
)

// flushGlyph pairs each flush status with a glyph, so it reads without
// colour.
func flushGlyph(s model.FlushStatus) string {
	switch s {
	case model.FlushOK:
		return "✓"
	case model.FlushLate:
		return "◷"
	case model.FlushStalled:
		return "✗"
	case model.FlushIdle:
		return "◌"
	}
	return "?"
}

// flushText is a flush status as shown: "✗ stalled".
func FlushText(s model.FlushStatus) string { return flushGlyph(s) + " " + string(s) }

func (st *Styles) FlushStyle(s model.FlushStatus) lipgloss.Style {
	switch s {
	case model.FlushOK:
		return st.OK
	case model.FlushLate:
		return st.Warn
	case model.FlushStalled:
		return st.Bad
	}
	return st.Muted
}

// JudgeFlush is the row's flush lag at now: ConnectorRow.Flush, the same
// judgement koff status prints and koff metrics exports.
func JudgeFlush(r model.ConnectorRow, now time.Time, interval time.Duration) model.FlushReport {
	return r.Flush(now, interval)
}

// joinFit joins parts with sep in width w, leaving out whole parts from
// the end rather than cutting one.
func JoinFit(w int, sep string, parts ...string) string {
	for n := len(parts); n > 1; n-- {
		if s := strings.Join(parts[:n], sep); ansi.StringWidth(s) <= w {
			return s
		}
	}
	return Truncate(parts[0], w)
}

// shortDur is a duration in its largest sensible unit: "800ms", "5s",
// "90s", "12m", "3h".
func ShortDur(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return fmt.Sprintf("%dms", d/time.Millisecond)
	case d < 100*time.Second:
		return fmt.Sprintf("%ds", int(math.Round(d.Seconds())))
	case d < 100*time.Minute:
		return fmt.Sprintf("%dm", int(math.Round(d.Minutes())))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(math.Round(d.Hours())))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

// durWidth is len(shortDur(d)), without making the string.
func DurWidth(d time.Duration) int {
	switch {
	case d <= 0:
		return 2
	case d < time.Second:
		return digits(int64(d/time.Millisecond)) + 2
	case d < 100*time.Second:
		return digits(int64(math.Round(d.Seconds()))) + 1
	case d < 100*time.Minute:
		return digits(int64(math.Round(d.Minutes()))) + 1
	case d < 48*time.Hour:
		return digits(int64(math.Round(d.Hours()))) + 1
	}
	return digits(int64(d/(24*time.Hour))) + 1
}

// ageWidth is the width of age(now, t) for a t that is not zero, d = now-t.
func AgeWidth(d time.Duration) int {
	switch {
	case d < time.Second:
		return len("just now")
	case d < time.Minute:
		return digits(int64(d/time.Second)) + len("s ago")
	case d < time.Hour:
		return digits(int64(d/time.Minute)) + len("m ago")
	case d < 48*time.Hour:
		return digits(int64(d/time.Hour)) + len("h ago")
	}
	return digits(int64(d/(24*time.Hour))) + len("d ago")
}

// digits is the number of decimal digits of n ≥ 0.
func digits(n int64) int {
	k := 1
	for ; n >= 10; n /= 10 {
		k++
	}
	return k
}

// intervalSources abbreviate FlushReport.IntervalSource for the table.
var intervalSources = map[string]string{"configured": "cfg", "estimated": "est", "default": "def"}

// intervalCell is the flush interval with where it comes from: "5s est".
func IntervalCell(r model.FlushReport) string {
	if r.Interval <= 0 {
		return "–"
	}
	src := intervalSources[r.IntervalSource]
	if src == "" {
		src = r.IntervalSource
	}
	return ShortDur(r.Interval) + " " + src
}

// intervalText says the same in words, for the connector screen.
func IntervalText(r model.FlushReport) string {
	switch r.IntervalSource {
	case "configured":
		return "every " + ShortDur(r.Interval) + " (--flush-interval)"
	case "estimated":
		return "every " + ShortDur(r.Interval) + " (estimated from its flushes)"
	case "default":
		return "every " + ShortDur(r.Interval) + " (Connect's default: too few flushes to estimate)"
	}
	return "every " + ShortDur(r.Interval)
}

// UnflushedCell is the records written to the connector's own topics
// since its last flush, "–" when unknown: a lower bound of what a crash
// would replay, shown "≥N". A worker commits only the offsets of records
// its producer acknowledged, in order (SubmittedRecords), so records it
// sent shortly before a flush may be covered by none; records in topics
// other connectors write too (Shared) may be anyone's and are not counted.
func UnflushedCell(r model.FlushReport) string {
	switch {
	case r.Unflushed < 0:
		return "–"
	case r.Unflushed == 0 && r.Shared == 0:
		return "0"
	}
	return "≥" + Count(r.Unflushed)
}

// shownUnflushed is the unflushed count to show: the report's, or right
// after a flush, until the poller has measured again, the last count
// measured, so the number does not blink to "–" at every flush. The
// flush status is still judged on the report's own count only.
func ShownUnflushed(r model.ConnectorRow, rep model.FlushReport) model.FlushReport {
	if rep.Unflushed < 0 && r.Unflushed != nil && r.Unflushed.Err == "" && !r.Unflushed.At.IsZero() {
		rep.Unflushed, rep.Shared = r.Unflushed.Records, r.Unflushed.Shared
	}
	return rep
}

// Sink lag trends, each with a glyph.
func trendGlyph(trend string) string {
	switch trend {
	case "growing":
		return "↑"
	case "shrinking":
		return "↓"
	case "steady":
		return "→"
	}
	return "?"
}

// sinkStatus is a sink's STATUS cell: its lag trend, or why there is none.
func SinkStatus(s *model.SinkSummary) string {
	switch {
	case s == nil || s.At.IsZero() && s.Err == "":
		return "– no group"
	case s.Err != "":
		return "✗ poll error"
	case s.Trend == "":
		return "? measuring"
	}
	return trendGlyph(s.Trend) + " " + s.Trend
}

func (st *Styles) SinkStyle(s *model.SinkSummary) lipgloss.Style {
	switch {
	case s == nil || s.At.IsZero() && s.Err == "":
		return st.Muted
	case s.Err != "":
		return st.Bad
	case s.Trend == "growing":
		return st.Warn
	case s.Trend == "shrinking", s.Trend == "steady":
		return st.OK
	}
	return st.Muted
}

// lagCell is a sink's total lag, "–" before its group was polled.
func LagCell(s *model.SinkSummary) string {
	if s == nil || s.At.IsZero() {
		return "–"
	}
	return Count(s.TotalLag)
}

// catchUpCell is how long a sink takes to reach zero lag at its current
// rate: "~3m" while the lag shrinks, "never" while it grows, "steady"
// while it holds (the commit saw-tooth would make any estimate jump
// between seconds and hours), "–" when it has none to catch up.
func CatchUpCell(s *model.SinkSummary) string {
	switch {
	case s == nil || s.At.IsZero():
		return "–"
	case s.TotalLag == 0:
		return "caught up"
	case s.Trend == "growing":
		return "never"
	case s.Trend == "steady":
		return "steady"
	case s.CatchUp > 0:
		return "~" + ShortDur(s.CatchUp)
	}
	return "–"
}

// groupCell is the group's state and its number of members.
func GroupCell(s *model.SinkSummary) string {
	if s == nil || s.At.IsZero() {
		return "–"
	}
	state := s.State
	if state == "" {
		state = "?"
	}
	return fmt.Sprintf("%s (%d)", state, s.Members)
}

// rateText is a per-second rate in a few significant digits: "1,250/s",
// "3.5/s", "0.02/s".
func RateText(r float64) string {
	switch {
	case r >= 1000:
		return Count(int64(math.Round(r))) + "/s"
	case r >= 10:
		return fmt.Sprintf("%.0f/s", r)
	case r >= 1:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", r), ".0") + "/s"
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", r), "0"), ".") + "/s"
}

// fieldRate is one numeric offset field's progress, summed over a
// connector's source partitions.
type FieldRate struct {
	Field string
	Rate  float64
}

// sumRates adds up per-partition rates by field, fastest first, leaving
// out fields that did not move.
func SumRates(rates []map[string]float64) []FieldRate {
	sum := map[string]float64{}
	for _, r := range rates {
		for f, v := range r {
			sum[f] += v
		}
	}
	var out []FieldRate
	for f, v := range sum {
		if v > 0 {
			out = append(out, FieldRate{f, v})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Rate != out[j].Rate {
			return out[i].Rate > out[j].Rate
		}
		return out[i].Field < out[j].Field
	})
	return out
}

// committedCell is a committed offset, "– none" when the group has none
// for the partition.
func CommittedCell(c int64) string {
	if c < 0 {
		return "– none"
	}
	return Count(c)
}
