package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// shortHelpLine is the one-line help: as many of the screen's bindings as
// fit, then "? help • q quit", which stay at every width.
func (m *Model) shortHelpLine() string {
	var keep, rest []key.Binding
	for _, b := range m.ShortHelp() {
		if b.Help() == m.km.Help.Help() || b.Help() == m.km.Quit.Help() {
			keep = append(keep, b)
		} else {
			rest = append(rest, b)
		}
	}
	tail := m.help.ShortHelpView(keep)
	sep := m.styles.Help.ShortSeparator.Render(m.help.ShortSeparator)
	for n := len(rest); n > 0; n-- {
		head := m.help.ShortHelpView(rest[:n])
		if line := head + sep + tail; ansi.StringWidth(line) <= m.width {
			return line
		}
	}
	return ansi.Truncate(tail, m.width, "")
}

// fullHelpPages lays the full help out in the width: its columns side by
// side as far as they fit, then below, in pages of at most h lines. ?
// turns the pages; after the last it closes the help. When that takes
// more than one page, the groups are packed tighter (packedHelpPages):
// the help fits on one page whenever it can.
func (m *Model) fullHelpPages(h int) []string {
	groups := m.FullHelp()
	if pages := m.rowHelpPages(groups, h); len(pages) == 1 {
		return pages
	}
	return m.packedHelpPages(groups, h)
}

// rowHelpPages puts groups side by side as far as the width allows, and
// such rows of groups one under the other.
func (m *Model) rowHelpPages(groups [][]key.Binding, h int) []string {
	gap := "    "
	var blocks []string
	for i := 0; i < len(groups); {
		j := i + 1
		for j < len(groups) && lipgloss.Width(m.helpColumns(groups[i:j+1], gap)) <= m.width {
			j++
		}
		blocks = append(blocks, m.helpColumns(groups[i:j], gap))
		i = j
	}
	var pages []string
	page := ""
	for _, b := range blocks {
		next := b
		if page != "" {
			next = page + "\n\n" + b
		}
		if page != "" && strings.Count(next, "\n")+1 > h {
			pages = append(pages, page)
			next = b
		}
		page = next
	}
	return append(pages, page)
}

// packedHelpPages fills columns of h lines with the groups one under the
// other (a group longer than h goes on in the next column), and pages with
// as many columns as the width holds. The groups that change offsets come
// first, so that a key that writes is never behind a page while the first
// has room.
func (m *Model) packedHelpPages(groups [][]key.Binding, h int) []string {
	edits := map[key.Help]bool{}
	for _, b := range m.km.EditBindings() {
		edits[b.Help()] = true
	}
	writes := func(g []key.Binding) bool {
		for _, b := range g {
			if edits[b.Help()] && b.Enabled() {
				return true
			}
		}
		return false
	}
	var ordered [][]key.Binding
	for _, g := range groups {
		if writes(g) {
			ordered = append(ordered, g)
		}
	}
	for _, g := range groups {
		if !writes(g) {
			ordered = append(ordered, g)
		}
	}
	// Columns of at most h lines, a blank line between groups.
	h = max(h, 1)
	var cols [][]string
	var col []string
	for _, g := range ordered {
		lines := m.helpGroupLines(g)
		if len(lines) == 0 {
			continue
		}
		if len(col) > 0 && len(col)+1+len(lines) > h {
			cols, col = append(cols, col), nil
		}
		if len(col) > 0 {
			col = append(col, "")
		}
		for _, l := range lines {
			if len(col) == h {
				cols, col = append(cols, col), nil
			}
			col = append(col, l)
		}
	}
	if len(col) > 0 {
		cols = append(cols, col)
	}
	// Pages of as many columns as fit side by side.
	gap := "    "
	var pages []string
	for i := 0; i < len(cols); {
		j, w := i+1, colWidth(cols[i])
		for j < len(cols) && w+len(gap)+colWidth(cols[j]) <= m.width {
			w += len(gap) + colWidth(cols[j])
			j++
		}
		pages = append(pages, joinColumns(cols[i:j], gap))
		i = j
	}
	if len(pages) == 0 {
		return []string{""}
	}
	return pages
}

func colWidth(col []string) int {
	w := 0
	for _, l := range col {
		w = max(w, ansi.StringWidth(l))
	}
	return w
}

// joinColumns sets columns of lines side by side, gap between them.
func joinColumns(cols [][]string, gap string) string {
	height := 0
	widths := make([]int, len(cols))
	for i, c := range cols {
		height = max(height, len(c))
		widths[i] = colWidth(c)
	}
	lines := make([]string, height)
	for r := range height {
		var b strings.Builder
		for i, c := range cols {
			if i > 0 {
				b.WriteString(gap)
			}
			cell := ""
			if r < len(c) {
				cell = c[r]
			}
			b.WriteString(cell)
			if i < len(cols)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-ansi.StringWidth(cell)))
			}
		}
		lines[r] = strings.TrimRight(b.String(), " ")
	}
	return strings.Join(lines, "\n")
}

// helpGroupLines renders one group: each enabled key, aligned, then its
// description.
func (m *Model) helpGroupLines(g []key.Binding) []string {
	st := m.styles.Help
	kw := 0
	for _, b := range g {
		if b.Enabled() {
			kw = max(kw, ansi.StringWidth(b.Help().Key))
		}
	}
	var col []string
	for _, b := range g {
		if !b.Enabled() {
			continue
		}
		k := b.Help().Key
		col = append(col, st.FullKey.Render(k+strings.Repeat(" ", kw-ansi.StringWidth(k)))+" "+st.FullDesc.Render(b.Help().Desc))
	}
	return col
}

// helpColumns renders binding groups as columns, each key then its
// description, with gap between the columns.
func (m *Model) helpColumns(groups [][]key.Binding, gap string) string {
	var cols [][]string
	for _, g := range groups {
		if col := m.helpGroupLines(g); len(col) > 0 {
			cols = append(cols, col)
		}
	}
	return joinColumns(cols, gap)
}

// fullHelpFooter is the line under the full help: how to turn its pages
// and close it.
func (m *Model) fullHelpFooter() string {
	pages := len(m.fullHelpPages(max(m.height-len(m.headerLines())-1-m.statusLines(), 1)))
	help, back := m.km.Help, m.km.Back
	back.SetHelp(back.Help().Key, "close help")
	if m.helpPage+1 < pages {
		help.SetHelp(help.Help().Key, fmt.Sprintf("next page (%d of %d)", m.helpPage+1, pages))
		return m.help.ShortHelpView([]key.Binding{help, back, m.km.Quit})
	}
	help.SetHelp(help.Help().Key, "close help")
	if pages > 1 {
		help.SetHelp(help.Help().Key, fmt.Sprintf("close help (page %d of %d)", pages, pages))
	}
	return m.help.ShortHelpView([]key.Binding{help, m.km.Quit})
}

// statusLines is how many lines the status bar takes.
func (m *Model) statusLines() int {
	if v := m.statusView(); v != "" {
		return strings.Count(v, "\n") + 1
	}
	return 0
}
