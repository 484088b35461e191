package ui

import (
	"fmt"
	"image/color"
	"regexp"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"koff/keymap"
)

// accentNames are the colour names a context's accent may use. Each is a
// fixed colour rather than the terminal's ANSI red or blue, so a badge
// looks the same in every operator's theme.
var accentNames = map[string]string{
	"red":     "#D1242F",
	"orange":  "#E16F24",
	"yellow":  "#E3B341",
	"green":   "#2DA44E",
	"cyan":    "#1B9AAA",
	"blue":    "#0969DA",
	"purple":  "#8250DF",
	"magenta": "#BF3989",
	"pink":    "#E85AAD",
	"gray":    "#6E7781",
	"grey":    "#6E7781",
	"white":   "#F0F0F0",
	"black":   "#1F2328",
}

const accentList = "red, orange, yellow, green, cyan, blue, purple, magenta, pink, gray, white, black"

var hexColor = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// ParseAccent reads a context's accent colour: a name ("red", "yellow",
// "blue", …), "#rgb" or "#rrggbb", or an ANSI colour number 0–255. "" is
// the default accent (nil, nil).
func ParseAccent(s string) (color.Color, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return nil, nil
	case hexColor.MatchString(s):
		return lipgloss.Color(s), nil
	}
	if hex, ok := accentNames[strings.ToLower(s)]; ok {
		return lipgloss.Color(hex), nil
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < 256 {
		return lipgloss.Color(s), nil
	}
	return nil, fmt.Errorf("accent %q: want a colour name (%s), #rrggbb or an ANSI number 0–255", s, accentList)
}

// maxContextName is how much of a context's name the header shows.
const maxContextName = 24

// contextBadge is the header's "context prod": the word, then the name on
// its accent colour. Without colour (NO_COLOR) the word and the name
// still say which cluster this is.
func (m *Model) contextBadge() string {
	if m.opts.Context == "" {
		return ""
	}
	return m.styles.ContextLabel.Render("context") + m.styles.Context.Render(" "+truncate(clean(m.opts.Context), maxContextName)+" ")
}

// openPicker is ":": the context picker, or where contexts are defined
// when there are none.
func (m *Model) openPicker() tea.Cmd {
	switch {
	case len(m.opts.Contexts) == 0 && m.opts.ContextFile != "":
		m.setStatus(statusInfo, "no contexts to switch to: define them in "+m.opts.ContextFile)
		return nil
	case len(m.opts.Contexts) == 0:
		m.setStatus(statusInfo, "no contexts to switch to: koff was started without a config file of contexts")
		return nil
	case m.busy != "":
		m.setStatus(statusInfo, "busy: "+m.busy+" Wait for it to finish before switching context.")
		return nil
	}
	m.picker = newContextPicker(&m.km, m.styles, m.opts.Contexts, m.opts.Context)
	m.layout()
	return m.picker.input.Focus()
}

// handlePickerKey drives the open picker: enter on another context
// records it and quits, so the caller can start koff again on it.
func (m *Model) handlePickerKey(msg tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	switch {
	case key.Matches(msg, m.km.ForceQuit):
		return tea.Quit
	case key.Matches(msg, m.km.PickerCancel):
		m.closePicker()
	case key.Matches(msg, m.km.PickerUp):
		p.move(-1)
	case key.Matches(msg, m.km.PickerDown):
		p.move(1)
	case key.Matches(msg, m.km.PickerSelect):
		name, ok := p.selected()
		switch {
		case !ok:
			return nil // the box says nothing matches
		case name == m.opts.Context:
			m.closePicker()
			return nil
		}
		m.switchTo = name
		m.closePicker()
		m.setStatus(statusInfo, "switching to context "+name+"…")
		return tea.Quit
	default:
		return p.update(msg)
	}
	return nil
}

func (m *Model) closePicker() {
	m.picker = nil
	m.layout()
}

// SwitchTo is the context the user chose with ":" before the dashboard
// quit, "" when they just quit.
func (m *Model) SwitchTo() string { return m.switchTo }

// contextPicker is ":": a filter input over the context names, the
// selection marked ▶ and the current context marked "● current".
type contextPicker struct {
	km      *keymap.KeyMap
	st      *Styles
	names   []string
	current string
	input   textinput.Model
	help    help.Model

	matches        []string
	cursor, offset int
	sel            string // the selected name, kept while the filter changes

	width, height int // the box's outer width and its most rows
}

func newContextPicker(km *keymap.KeyMap, st *Styles, names []string, current string) *contextPicker {
	p := &contextPicker{km: km, st: st, names: names, current: current, sel: current, help: help.New()}
	p.help.Styles = st.Help
	p.input = textinput.New()
	p.input.Prompt = "› "
	p.input.Placeholder = "type to filter"
	p.input.SetStyles(st.Input)
	p.filter()
	return p
}

// filter keeps the names containing the input, case-insensitively, in the
// config file's order, with the selection on the same name when it still
// matches.
func (p *contextPicker) filter() {
	q := strings.ToLower(strings.TrimSpace(p.input.Value()))
	p.matches = p.matches[:0]
	for _, n := range p.names {
		if strings.Contains(strings.ToLower(n), q) {
			p.matches = append(p.matches, n)
		}
	}
	p.cursor = 0
	for i, n := range p.matches {
		if n == p.sel {
			p.cursor = i
		}
	}
	p.clamp()
}

func (p *contextPicker) move(d int) {
	p.cursor += d
	p.clamp()
}

// clamp keeps the cursor on a match and on screen.
func (p *contextPicker) clamp() {
	p.cursor = min(max(p.cursor, 0), max(len(p.matches)-1, 0))
	rows := p.rows()
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+rows {
		p.offset = p.cursor - rows + 1
	}
	p.offset = min(max(p.offset, 0), max(len(p.matches)-rows, 0))
	if len(p.matches) > 0 {
		p.sel = p.matches[p.cursor]
	}
}

func (p *contextPicker) selected() (string, bool) {
	if len(p.matches) == 0 {
		return "", false
	}
	return p.matches[p.cursor], true
}

// update gives a key or a paste to the input and filters again.
func (p *contextPicker) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	p.filter()
	return cmd
}

// Lines of the box around the list: title, blank, input and blank above
// it, blank and keys below it, and the border.
const pickerChrome = 6 + dialogFrameH

// setSize sizes the box for a w×h screen: as wide as the names need, at
// most as tall as the screen allows.
func (p *contextPicker) setSize(w, h int) {
	need := len("Switch context · 99 of 99")
	for _, n := range p.names {
		need = max(need, 2+len(clean(n))+len("  ● current"))
	}
	p.width = min(max(need+dialogFrameW, 40), w)
	p.height = max(h-2, pickerChrome+1)
	inner := p.width - dialogFrameW
	p.input.SetWidth(max(inner-4, 4))
	p.help.SetWidth(inner)
	p.clamp()
}

// rows is how many names the box shows at once.
func (p *contextPicker) rows() int {
	if p.height == 0 {
		return max(len(p.names), 1)
	}
	return max(min(len(p.names), p.height-pickerChrome), 1)
}

func (p *contextPicker) view() string {
	st, inner := p.st, p.width-dialogFrameW
	title := "Switch context"
	if len(p.matches) != len(p.names) {
		title += fmt.Sprintf(" · %d of %d", len(p.matches), len(p.names))
	}
	var list []string
	if len(p.matches) == 0 {
		list = append(list, st.Muted.Render(truncate(fmt.Sprintf("no context contains %q", p.input.Value()), inner)))
	}
	end := min(p.offset+p.rows(), len(p.matches))
	for i := p.offset; i < end; i++ {
		n := p.matches[i]
		mark, name := "  ", truncate(clean(n), inner-2) // names from the contexts file
		if i == p.cursor {
			mark, name = "▶ ", st.FieldFocus.Render(name)
		}
		line := mark + name
		if n == p.current {
			line += st.Muted.Render("  ● current")
		}
		list = append(list, truncate(line, inner))
	}
	for len(list) < p.rows() {
		list = append(list, "") // the box keeps its height while filtering
	}
	lines := append([]string{st.DialogTitle.Render(title), "", p.input.View(), ""}, list...)
	move := p.km.PickerDown
	move.SetHelp("↑/↓", "move")
	sel := p.km.PickerSelect
	sel.SetEnabled(len(p.matches) > 0)
	if name, ok := p.selected(); ok && name == p.current {
		sel.SetHelp(sel.Help().Key, "stay")
	}
	lines = append(lines, "")
	lines = append(lines, dialogKeys(p.help, st, p.width-dialogFrameW, []key.Binding{move, sel, p.km.PickerCancel}, "")...)
	return renderBox(st, p.width, p.height, lines)
}
