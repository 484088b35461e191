package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"koff/model"
	"koff/ui/kit"
)

// tailGlyph pairs each tailer state with a glyph, so the state reads
// without colour.
func tailGlyph(s model.TailState) string {
	switch s {
	case model.TailConnecting:
		return "◌"
	case model.TailWaitingForTopic:
		return "○"
	case model.TailCatchingUp:
		return "◐"
	case model.TailLive:
		return "●"
	case model.TailDisconnected:
		return "✕"
	case model.TailStalled:
		return "◇"
	}
	return "?"
}

func (m *Model) tailStyle(s model.TailState) func(...string) string {
	switch s {
	case model.TailWaitingForTopic:
		return m.styles.Waiting.Render
	case model.TailCatchingUp:
		return m.styles.CatchingUp.Render
	case model.TailLive:
		return m.styles.Live.Render
	case model.TailDisconnected, model.TailStalled:
		return m.styles.Disconnected.Render
	}
	return m.styles.Connecting.Render
}

// topics lists the offsets topics: those koff was asked to read, then any
// other the Store knows, each with its partition count when known.
func (m *Model) topics() []string {
	names := slices.Clone(m.opts.Topics)
	var extra []string
	for t := range m.stats.Topics {
		if !slices.Contains(names, t) {
			extra = append(extra, t)
		}
	}
	slices.Sort(extra)
	return append(names, extra...)
}

// headerLines are the identity line (where koff reads from) and the state
// line (what the tailer is doing), plus a line of totals when the state
// line is taken by a reason, and a line about Connect's REST API when koff
// has one.
func (m *Model) headerLines() []string {
	w := m.width
	st := m.stats

	// Identity: koff, the context, bootstrap servers, offsets topics;
	// "⚠ TLS NOT VERIFIED" and "read-only" at right.
	topics := m.topics()
	var ts []string
	for _, t := range topics {
		n := st.Topics[t]
		t := kit.Clean(t) // a connector's own offsets topic comes from Connect's config
		switch {
		case n == 0:
			ts = append(ts, t)
		case len(topics) == 1:
			ts = append(ts, fmt.Sprintf("%s · %s", t, kit.Plural(n, "partition", "partitions")))
		default:
			ts = append(ts, fmt.Sprintf("%s (%d)", t, n))
		}
	}
	// Badges at the right never give way: they say what koff may do here
	// and how far to trust it.
	var badges []string
	if m.opts.Insecure {
		badges = append(badges, m.styles.Insecure.Render("⚠ TLS NOT VERIFIED"))
	}
	if m.opts.ReadOnly {
		badges = append(badges, m.styles.Badge.Render("read-only"))
	}
	right := strings.Join(badges, "  ")
	identity := func(bootstrap string) string {
		left := m.styles.App.Render("koff")
		if ctx := m.contextBadge(); ctx != "" {
			left += "  " + ctx + " " // the badge's padding is the other space
		} else {
			left += "  "
		}
		left += m.styles.Header.Render(bootstrap)
		if len(ts) > 0 {
			left += m.styles.Muted.Render("  ─  ") + m.styles.Header.Render(strings.Join(ts, " · "))
		}
		return left
	}
	left := identity(kit.Clean(m.opts.Bootstrap))
	// A long server list gives way to the topics: show the first server.
	if servers := strings.Split(m.opts.Bootstrap, ","); len(servers) > 1 &&
		ansi.StringWidth(left)+ansi.StringWidth(right)+2 > w {
		left = identity(fmt.Sprintf("%s +%d", kit.Clean(servers[0]), len(servers)-1))
	}
	lines := []string{kit.Spread(left, right, w)}
	if m.opts.Interrupted != nil {
		if n := m.opts.Interrupted(); n != "" {
			lines = append(lines, m.styles.Warn.Render(ansi.Truncate("⚠ "+n, w, "…")))
		}
	}

	state := st.Status.State
	word := state.String()
	if state == model.TailDisconnected && !st.Status.Since.IsZero() {
		word += " since " + model.TimeText(st.Status.Since)
	}
	if !st.Status.Silent.IsZero() {
		// Not stalled yet, but no flush since then could have shown.
		word += ", no answer since " + model.TimeText(st.Status.Silent)
	}
	stateWord := m.tailStyle(state)(tailGlyph(state) + " " + word)
	totals := m.totals()
	if r := m.reloadNote(); r != "" {
		totals = append([]string{r}, totals...)
	}
	switch state {
	case model.TailWaitingForTopic, model.TailDisconnected, model.TailStalled:
		line := stateWord
		if st.Status.Reason != "" {
			line += m.tailStyle(state)(": ") + kit.Clean(st.Status.Reason)
		}
		lines = append(lines, ansi.Truncate(line, w, "…"), m.fitTotals(totals, "", w))
	case model.TailCatchingUp:
		barW := min(max(w/8, 8), 40)
		bar := m.progress
		bar.SetWidth(barW)
		p := st.Status.Progress()
		prefix := stateWord + " " + bar.ViewAs(p) +
			fmt.Sprintf(" %3.0f%% ", p*100) +
			m.styles.Muted.Render(fmt.Sprintf("%s/%s", kit.Count(st.Status.Read), kit.Count(st.Status.Total))) + "   "
		lines = append(lines, m.fitTotals(totals, prefix, w))
	default:
		lines = append(lines, m.fitTotals(totals, stateWord+"   ", w))
	}
	if rest := m.restLine(); rest != "" {
		lines = append(lines, rest)
	}
	return lines
}

// reloadNote says that what was read was thrown away and read again (a
// new cluster, a recreated topic), for a while after it happened.
func (m *Model) reloadNote() string {
	st := m.stats.Status
	if st.Reloaded.IsZero() || m.now.Sub(st.Reloaded) > kit.ReloadShown {
		return ""
	}
	return m.styles.Warn.Render("↻ reloaded " + model.TimeText(st.Reloaded) + ": " + kit.Clean(st.ReloadReason))
}

// totals are the header's counts, most important first: the connectors
// that need a look, then the unparseable records.
func (m *Model) totals() []string {
	st := m.stats
	unparseable := fmt.Sprintf("%s unparseable (%s)", kit.Count(st.Unparseable), m.km.Unparseable.Help().Key)
	if st.Unparseable > 0 {
		unparseable = m.styles.Warn.Render("⚠ " + unparseable)
	}
	return append(m.healthTotals(),
		unparseable,
		kit.Count(st.Records)+" records",
		kit.Plural(st.Connectors, "connector", "connectors"),
		kit.Plural(st.Partitions, "partition", "partitions"),
	)
}

// fitTotals joins as many totals as fit after prefix, dropping from the
// end, so the unparseable count stays visible at 80 columns.
func (m *Model) fitTotals(totals []string, prefix string, w int) string {
	sep := m.styles.Muted.Render(" · ")
	for n := len(totals); n > 0; n-- {
		s := prefix + strings.Join(totals[:n], sep)
		if ansi.StringWidth(s) <= w {
			return s
		}
	}
	return ansi.Truncate(prefix+totals[0], w, "…")
}

// restLine is the header's line about Connect's REST API: where it is and
// its version, or the last poll's error. "" when koff has no REST view.
func (m *Model) restLine() string {
	r := m.rest
	if r.URL == "" && r.Err == "" && r.Connectors == nil {
		return ""
	}
	label := m.styles.Muted.Render("Connect ")
	if r.Err != "" {
		line := label + m.styles.Bad.Render("✗ ") + kit.Clean(kit.OneLine(r.Err))
		if r.Connectors != nil {
			line += m.styles.Muted.Render(" · showing the last states read")
		}
		return kit.Truncate(line, m.width)
	}
	url := r.URL
	if url == "" {
		url = "REST API"
	}
	parts := []string{m.styles.OK.Render("●") + " " + m.styles.Header.Render(url)}
	if r.Version != "" {
		parts = append(parts, "version "+r.Version)
	}
	if r.Connectors != nil {
		parts = append(parts, kit.Plural(len(r.Connectors), "connector", "connectors"))
	}
	return kit.Truncate(label+strings.Join(parts, m.styles.Muted.Render(" · ")), m.width)
}
