package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"koff/keymap"
)

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

// Lines of the box around the list: title, blank, input and blank above
// it, blank and keys below it, and the border.
const pickerChrome = 6 + dialogFrameH
