package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"koff/model/text"
	"koff/ui/kit"
)

// statusKind is what a status-bar message is about; each kind has a glyph,
// so it reads without colour.
type statusKind int

const (
	statusNone statusKind = iota
	statusInfo            // why a key did nothing, a cancelled dialog
	statusBusy            // a job in flight: the spinner leads it
	statusOK
	statusWarn
	statusErr
)

// status is the line above the help: progress and the outcome of edits,
// stop and resume, and why a key did nothing.
type status struct {
	kind statusKind
	text string
	// sticky messages (progress, outcomes) stay until another replaces
	// them; the others go at the next key.
	sticky bool
}

// maxStatusLines bounds the status bar: errors are shown word for word,
// wrapped, but must not push the table off a small screen.
const maxStatusLines = 3

func (m *Model) setStatus(kind statusKind, msg string) {
	// Messages carry names and Connect's and the broker's own words.
	m.status = status{kind: kind, text: text.Sanitize(msg), sticky: kind != statusInfo}
}

// statusView renders the status bar, "" when there is nothing to say.
func (m *Model) statusView() string {
	s := m.status
	if s.kind == statusNone || s.text == "" {
		return ""
	}
	var prefix string
	text := s.text
	switch s.kind {
	case statusBusy:
		prefix = m.spinner.View() + " "
	case statusOK:
		prefix = m.styles.OK.Render("✓") + " "
	case statusWarn:
		prefix = m.styles.Warn.Render("⚠") + " "
	case statusErr:
		prefix = m.styles.Bad.Render("✗") + " "
		text = m.styles.Bad.Render(text)
	case statusInfo:
		prefix = m.styles.Info.Render("›") + " "
	}
	w := max(m.width-2, 10)
	lines := strings.Split(ansi.Wrap(text, w, " "), "\n")
	if len(lines) > maxStatusLines {
		lines = lines[:maxStatusLines]
		lines[maxStatusLines-1] = kit.Truncate(lines[maxStatusLines-1]+" …", w)
	}
	for i := range lines {
		if i == 0 {
			lines[i] = prefix + lines[i]
		} else {
			lines[i] = "  " + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// footerView is the bottom of the screen: the status bar when it has
// something to say, then the filter input while typing a filter, otherwise
// the help (one line, or full with ?). While a dialog is open its own keys
// are in its box, so only the status bar shows.
func (m *Model) footerView() string {
	st := m.statusView()
	if m.form != nil || m.confirm != nil || m.state != nil || m.picker != nil {
		return st
	}
	var bottom string
	if m.filtering {
		hint := m.help.ShortHelpView(m.filterHelp())
		input := m.filter.View()
		room := m.width - ansi.StringWidth(hint) - 3
		if room < 12 { // too narrow for both: the input wins
			bottom = ansi.Truncate(input, m.width, "")
		} else {
			bottom = ansi.Truncate(input, room, "") + "   " + hint
		}
	} else if m.help.ShowAll {
		bottom = m.fullHelpFooter()
	} else {
		bottom = m.shortHelpLine()
	}
	if st == "" {
		return bottom
	}
	return st + "\n" + bottom
}

func (m *Model) filterHelp() []key.Binding {
	return []key.Binding{m.km.FilterUp, m.km.FilterDown, m.km.FilterApply, m.km.FilterClear}
}

// ShortHelp makes the root model the help.KeyMap: it shows the active
// screen's bindings.
func (m *Model) ShortHelp() []key.Binding {
	return m.top().ShortHelp()
}

// FullHelp is the active screen's full help, where ? now closes it.
func (m *Model) FullHelp() [][]key.Binding {
	groups := m.top().FullHelp()
	for _, g := range groups {
		for i, b := range g {
			if b.Help() == m.km.Help.Help() {
				g[i].SetHelp(b.Help().Key, "close help")
			}
		}
	}
	return groups
}
