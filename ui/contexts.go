package ui

import (
	"fmt"
	"image/color"
	"regexp"
	"strconv"
	"strings"

	"koff/ui/dialogs"
	"koff/ui/kit"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
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
	return m.styles.ContextLabel.Render("context") + m.styles.Context.Render(" "+kit.Truncate(kit.Clean(m.opts.Context), maxContextName)+" ")
}

// openPicker is ":": the context picker, or where contexts are defined
// when there are none.
func (m *Model) openPicker() tea.Cmd {
	switch {
	case m.opts.Served:
		m.setStatus(statusInfo, "koff serve has no contexts to switch to: its sessions share the cluster it was started on (a local koff switches with --context or :)")
		return nil
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
	m.picker = dialogs.NewContextPicker(&m.km, m.styles, m.opts.Contexts, m.opts.Context)
	m.layout()
	return m.picker.Input.Focus()
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
		p.Move(-1)
	case key.Matches(msg, m.km.PickerDown):
		p.Move(1)
	case key.Matches(msg, m.km.PickerSelect):
		name, ok := p.Selected()
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
		return p.Update(msg)
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
