package ui

import (
	"fmt"
	"time"

	"koff/model"
	"koff/model/resume"
	"koff/ui/kit"
	"koff/ui/screens"
)

// health counts the connectors that need a look, for the header: it
// shows them on every screen, so a stalled connector or a suspect key is
// seen whatever the width and whichever screen is open.
type health struct {
	stalled, failed, late, suspect int
	// gap and replay count the connectors whose restart would skip
	// data or read it again (the resume check).
	gap, replay int
}

// countHealth judges every connector at now. The connectors screen has
// just read and judged them when it is on top; otherwise they are read
// again only when the Source changed.
func (m *Model) countHealth(src kit.Source, now time.Time, reload bool) {
	var h health
	if c, ok := m.top().(*screens.ConnectorsScreen); ok {
		for _, r := range c.List.Items {
			h.add(r.ConnectorRow, r.Judged)
		}
		m.health = h
		return
	}
	if reload || m.conns == nil && !m.big() { // a big Source: from the next snapshot
		m.conns = src.Connectors()
	}
	for _, r := range m.conns {
		var rep model.FlushReport
		if r.Type != "sink" {
			rep = kit.JudgeFlush(r, now, m.opts.FlushInterval)
		}
		h.add(r, rep)
	}
	m.health = h
}

func (h *health) add(r model.ConnectorRow, rep model.FlushReport) {
	if r.Type != "sink" && r.ID.Topic != "" {
		switch rep.Status {
		case model.FlushStalled:
			h.stalled++
		case model.FlushLate:
			h.late++
		}
	}
	if r.InREST && (r.REST.State == "FAILED" || kit.FailedTasks(r.REST) > 0) {
		h.failed++
	}
	if r.Suspect > 0 {
		h.suspect++
	}
	if r.Resume != nil {
		switch r.Resume.State {
		case resume.Gap:
			h.gap++
		case resume.Replay:
			h.replay++
		}
	}
}

// healthTotals are the header's counts of connectors that need a look,
// worst first, each with its glyph: "✗ 1 stalled · ⚠ 1 suspect".
func (m *Model) healthTotals() []string {
	h, st := m.health, m.styles
	var out []string
	if h.stalled > 0 {
		out = append(out, st.Bad.Render(fmt.Sprintf("✗ %d stalled", h.stalled)))
	}
	if h.failed > 0 {
		out = append(out, st.Bad.Render(fmt.Sprintf("✗ %d failed", h.failed)))
	}
	if h.gap > 0 {
		out = append(out, st.Bad.Render(fmt.Sprintf("✗ %d gap", h.gap)))
	}
	if h.late > 0 {
		out = append(out, st.Warn.Render(fmt.Sprintf("◷ %d late", h.late)))
	}
	if h.replay > 0 {
		out = append(out, st.Warn.Render(fmt.Sprintf("⚠ %d replay", h.replay)))
	}
	if h.suspect > 0 {
		out = append(out, st.Warn.Render(fmt.Sprintf("⚠ %d suspect", h.suspect)))
	}
	return out
}
