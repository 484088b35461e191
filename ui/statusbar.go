package ui

import (
	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
)

// footerView is the bottom of the screen: the filter input while typing a
// filter, otherwise the help (one line, or full with ?).
func (m *Model) footerView() string {
	if m.filtering {
		hint := m.help.ShortHelpView(m.filterHelp())
		input := m.filter.View()
		room := m.width - ansi.StringWidth(hint) - 3
		if room < 12 { // too narrow for both: the input wins
			return ansi.Truncate(input, m.width, "")
		}
		return ansi.Truncate(input, room, "") + "   " + hint
	}
	return m.help.View(m)
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
