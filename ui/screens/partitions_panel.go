package screens

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"koff/model"
	"koff/ui/kit"
)

// timelineSpan is how far back the connector screen's flush timeline and
// progress rates look.
const timelineSpan = 10 * time.Minute

// panelMinHeight is the screen height below which the flush panel gives
// its rows to the table.
const panelMinHeight = 14

// panel is the connector's flush lag above the table: status and why,
// last flush and interval, unflushed records, flushes per minute and
// progress, and a timeline of its flushes. It always takes the same
// number of lines for a size, so the table's height does not jump.
func (s *PartitionsScreen) panel() []string {
	if s.height < panelMinHeight {
		return nil
	}
	st, rep, w := s.st, s.Report, s.width
	sep := st.Muted.Render(" · ")
	status := st.FlushStyle(rep.Status).Render(kit.FlushText(rep.Status)) + st.Muted.Render(": "+kit.Clean(rep.Reason))
	last := "last flush " + kit.Age(s.now, rep.Last)
	interval := kit.IntervalText(rep)
	if ansi.StringWidth(strings.Join([]string{status, last, interval}, sep)) > w { // say it briefly
		interval = "every " + kit.IntervalCell(rep)
	}
	parts := []string{status, last, interval}
	edit, edited := s.Edited[s.ID.Name]
	edited = edited && s.now.Sub(edit) < timelineSpan
	if edited { // its records are not a flush: say so, after the last flush
		parts = append(parts[:2], st.Info.Render("✎ edited "+kit.Age(s.now, edit)), interval)
		if s.inREST && (s.rest.State == "STOPPED" || s.rest.State == "PAUSED") && !rep.Last.Before(edit.Add(-kit.ApplyTimeout)) {
			// No task ran since: the newest records are the edit's.
			parts = []string{status, st.Info.Render("✎ newest records: the edit, " + kit.Age(s.now, edit)), interval}
		}
	}
	line1 := fitParts(w, sep, parts...)

	var unflushed string
	switch {
	case kit.ShownUnflushed(s.conn, rep).Unflushed >= 0:
		u := kit.ShownUnflushed(s.conn, rep)
		unflushed = kit.UnflushedCell(u) + " unflushed"
		if w >= 120 {
			// The worker commits only what its producer acknowledged:
			// records sent just before the flush may be replayed too.
			unflushed += " (a crash replays at least these)"
		}
		if u.Shared > 0 && s.conn.Unflushed != nil {
			unflushed = fmt.Sprintf("%s, and %d in topics shared with %s, whose koff cannot tell", unflushed, u.Shared, strings.Join(s.conn.Unflushed.SharedWith, ", "))
		}
	case len(s.conn.Topics) == 0:
		unflushed = "unflushed: – (its topics are not known)"
	default:
		unflushed = "unflushed: – (not measured yet)"
	}
	perMin := kit.Plural(model.FlushesSince(s.conn.Flushes, s.now.Add(-time.Minute)), "flush/min", "flushes/min")
	progress := "progress –"
	if rates := s.rates.sum; len(rates) > 0 {
		var rs []string
		for _, r := range rates {
			rs = append(rs, r.Field+" "+kit.RateText(r.Rate))
		}
		progress = "progress " + strings.Join(rs, ", ")
		if s.rates.skipped > 0 {
			progress += fmt.Sprintf(" (the %s most recent partitions)", kit.Count(s.rates.counted))
		}
	}
	line2 := kit.Truncate(strings.Join([]string{unflushed, perMin, progress}, sep), w)

	buckets := model.FlushBuckets(s.conn.Flushes, s.now, timelineSpan, max(w, 1))
	cells := []rune(kit.Sparkline(buckets))
	if edited && len(cells) > 0 { // ✎ in the cell of the edit
		cell := timelineSpan / time.Duration(len(cells))
		// An edit made on a screen above this one can be newer than the
		// now this screen last drew at: it is in the newest cell.
		cells[min(max(len(cells)-1-int(s.now.Sub(edit)/cell), 0), len(cells)-1)] = '✎'
	}
	spark := st.Info.Render(string(cells))
	middle := "records per flush, " + kit.ShortDur(timelineSpan/time.Duration(max(w, 1))) + " a cell"
	if sum(buckets) == 0 {
		middle = "no flush in the last " + kit.ShortDur(timelineSpan)
	}
	labels := st.Muted.Render(ends("−"+kit.ShortDur(timelineSpan), middle, "now", w))
	return []string{line1, line2, spark, labels}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// ends lays out a label at each end of a line of width w and one in the
// middle, dropping the middle when there is no room for it.
func ends(left, middle, right string, w int) string {
	lw, mw, rw := ansi.StringWidth(left), ansi.StringWidth(middle), ansi.StringWidth(right)
	if lw+mw+rw+4 > w {
		return kit.Spread(left, right, w)
	}
	gap := w - lw - mw - rw
	return left + strings.Repeat(" ", gap/2) + middle + strings.Repeat(" ", gap-gap/2) + right
}

// fitParts joins parts with sep in width w. When they do not fit, the
// first part (a status and its reason) is cut so the facts after it stay.
func fitParts(w int, sep string, parts ...string) string {
	line := strings.Join(parts, sep)
	if ansi.StringWidth(line) <= w {
		return line
	}
	rest := sep + strings.Join(parts[1:], sep)
	if room := w - ansi.StringWidth(rest); room >= 16 {
		return ansi.Truncate(parts[0], room, "…") + rest
	}
	return ansi.Truncate(line, w, "…")
}
