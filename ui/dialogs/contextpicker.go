package dialogs

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"koff/keymap"
	"koff/ui/kit"
)

// contextPicker is ":": a filter input over the context names, the
// selection marked ▶ and the current context marked "● current".
type ContextPicker struct {
	km      *keymap.KeyMap
	st      *kit.Styles
	names   []string
	current string
	Input   textinput.Model
	help    help.Model

	Matches        []string
	cursor, offset int
	sel            string // the selected name, kept while the filter changes

	width, height int // the box's outer width and its most rows
}

func NewContextPicker(km *keymap.KeyMap, st *kit.Styles, names []string, current string) *ContextPicker {
	p := &ContextPicker{km: km, st: st, names: names, current: current, sel: current, help: help.New()}
	p.help.Styles = st.Help
	p.Input = textinput.New()
	p.Input.Prompt = "› "
	p.Input.Placeholder = "type to filter"
	p.Input.SetStyles(st.Input)
	p.filter()
	return p
}

// filter keeps the names containing the input, case-insensitively, in the
// config file's order, with the selection on the same name when it still
// matches.
func (p *ContextPicker) filter() {
	q := strings.ToLower(strings.TrimSpace(p.Input.Value()))
	p.Matches = p.Matches[:0]
	for _, n := range p.names {
		if strings.Contains(strings.ToLower(n), q) {
			p.Matches = append(p.Matches, n)
		}
	}
	p.cursor = 0
	for i, n := range p.Matches {
		if n == p.sel {
			p.cursor = i
		}
	}
	p.clamp()
}

func (p *ContextPicker) Move(d int) {
	p.cursor += d
	p.clamp()
}

// clamp keeps the cursor on a match and on screen.
func (p *ContextPicker) clamp() {
	p.cursor = min(max(p.cursor, 0), max(len(p.Matches)-1, 0))
	rows := p.Rows()
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+rows {
		p.offset = p.cursor - rows + 1
	}
	p.offset = min(max(p.offset, 0), max(len(p.Matches)-rows, 0))
	if len(p.Matches) > 0 {
		p.sel = p.Matches[p.cursor]
	}
}

func (p *ContextPicker) Selected() (string, bool) {
	if len(p.Matches) == 0 {
		return "", false
	}
	return p.Matches[p.cursor], true
}

// update gives a key or a paste to the input and filters again.
func (p *ContextPicker) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	p.Input, cmd = p.Input.Update(msg)
	p.filter()
	return cmd
}

// setSize sizes the box for a w×h screen: as wide as the names need, at
// most as tall as the screen allows.
func (p *ContextPicker) SetSize(w, h int) {
	need := len("Switch context · 99 of 99")
	for _, n := range p.names {
		need = max(need, 2+len(kit.Clean(n))+len("  ● current"))
	}
	p.width = min(max(need+kit.DialogFrameW, 40), w)
	p.height = max(h-2, pickerChrome+1)
	inner := p.width - kit.DialogFrameW
	p.Input.SetWidth(max(inner-4, 4))
	p.help.SetWidth(inner)
	p.clamp()
}

// rows is how many names the box shows at once.
func (p *ContextPicker) Rows() int {
	if p.height == 0 {
		return max(len(p.names), 1)
	}
	return max(min(len(p.names), p.height-pickerChrome), 1)
}

func (p *ContextPicker) View() string {
	st, inner := p.st, p.width-kit.DialogFrameW
	title := "Switch context"
	if len(p.Matches) != len(p.names) {
		title += fmt.Sprintf(" · %d of %d", len(p.Matches), len(p.names))
	}
	var list []string
	if len(p.Matches) == 0 {
		list = append(list, st.Muted.Render(kit.Truncate(fmt.Sprintf("no context contains %q", p.Input.Value()), inner)))
	}
	end := min(p.offset+p.Rows(), len(p.Matches))
	for i := p.offset; i < end; i++ {
		n := p.Matches[i]
		mark, name := "  ", kit.Truncate(kit.Clean(n), inner-2) // names from the contexts file
		if i == p.cursor {
			mark, name = "▶ ", st.FieldFocus.Render(name)
		}
		line := mark + name
		if n == p.current {
			line += st.Muted.Render("  ● current")
		}
		list = append(list, kit.Truncate(line, inner))
	}
	for len(list) < p.Rows() {
		list = append(list, "") // the box keeps its height while filtering
	}
	lines := append([]string{st.DialogTitle.Render(title), "", p.Input.View(), ""}, list...)
	move := p.km.PickerDown
	move.SetHelp("↑/↓", "move")
	sel := p.km.PickerSelect
	sel.SetEnabled(len(p.Matches) > 0)
	if name, ok := p.Selected(); ok && name == p.current {
		sel.SetHelp(sel.Help().Key, "stay")
	}
	lines = append(lines, "")
	lines = append(lines, kit.DialogKeys(p.help, st, p.width-kit.DialogFrameW, []key.Binding{move, sel, p.km.PickerCancel}, "")...)
	return kit.RenderBox(st, p.width, p.height, lines)
}

// Lines of the box around the list: title, blank, input and blank above
// it, blank and keys below it, and the border.
const pickerChrome = 6 + kit.DialogFrameH
