package ui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/table"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
)

// palette is the semantic colour set; styles are built from it and never
// name a colour themselves.
type palette struct {
	fg, muted, subtle   color.Color
	accent, accentSoft  color.Color
	ok, warn, bad, info color.Color
	selFg, selBg        color.Color
	barEmpty            color.Color
}

func newPalette(isDark bool) palette {
	ld := lipgloss.LightDark(isDark)
	c := lipgloss.Color
	return palette{
		fg:         ld(c("#1F2328"), c("#E6E6E6")),
		muted:      ld(c("#6E7781"), c("#8B949E")),
		subtle:     ld(c("#AFB8C1"), c("#484F58")),
		accent:     ld(c("#6F42C1"), c("#B392F0")),
		accentSoft: ld(c("#EDE7F6"), c("#2D2540")),
		ok:         ld(c("#1A7F37"), c("#56D364")),
		warn:       ld(c("#9A6700"), c("#E3B341")),
		bad:        ld(c("#CF222E"), c("#F85149")),
		info:       ld(c("#0969DA"), c("#58A6FF")),
		selFg:      ld(c("#1F2328"), c("#FFFFFF")),
		selBg:      ld(c("#DDF4FF"), c("#30363D")),
		barEmpty:   ld(c("#D0D7DE"), c("#30363D")),
	}
}

// Styles is every style the UI renders with. Meaning never rides on colour
// alone: each styled state also has a glyph or a word, so the screens read
// the same under NO_COLOR.
type Styles struct {
	App       lipgloss.Style // "koff" in the header
	Header    lipgloss.Style
	Muted     lipgloss.Style
	Badge     lipgloss.Style // "read-only"
	Title     lipgloss.Style // a screen's title line
	TitleInfo lipgloss.Style // sort and filter in the title line
	Section   lipgloss.Style // headings in the detail view
	Label     lipgloss.Style
	OK        lipgloss.Style
	Warn      lipgloss.Style
	Bad       lipgloss.Style
	Info      lipgloss.Style

	// Tail states, each paired with a glyph by tailGlyph.
	Connecting, Waiting, CatchingUp, Live, Disconnected lipgloss.Style

	Table      table.Styles
	Help       help.Styles
	Filter     textinput.Styles
	FilterHint lipgloss.Style

	// Dialogs: the offset editor and the confirmation box drawn over the
	// screen. Dialog carries the border and padding.
	Dialog      lipgloss.Style
	DialogTitle lipgloss.Style
	FieldLabel  lipgloss.Style // the focused field's label is FieldFocus
	FieldFocus  lipgloss.Style
	TextArea    textarea.Styles
	Input       textinput.Styles // the name prompt of reset-all
	Spinner     lipgloss.Style

	BarFull, BarEmpty color.Color
}

// NewStyles builds the styles for a dark or light terminal background.
func NewStyles(isDark bool) Styles {
	p := newPalette(isDark)
	s := lipgloss.NewStyle
	st := Styles{
		App:       s().Bold(true).Foreground(p.accent),
		Header:    s().Foreground(p.fg),
		Muted:     s().Foreground(p.muted),
		Badge:     s().Bold(true).Foreground(p.warn),
		Title:     s().Bold(true).Foreground(p.fg),
		TitleInfo: s().Foreground(p.muted),
		Section:   s().Bold(true).Foreground(p.accent),
		Label:     s().Foreground(p.muted),
		OK:        s().Foreground(p.ok),
		Warn:      s().Foreground(p.warn),
		Bad:       s().Bold(true).Foreground(p.bad),
		Info:      s().Foreground(p.info),

		Connecting:   s().Foreground(p.muted),
		Waiting:      s().Foreground(p.warn),
		CatchingUp:   s().Foreground(p.info),
		Live:         s().Foreground(p.ok),
		Disconnected: s().Bold(true).Foreground(p.bad),

		Table: table.Styles{
			Header:   s().Bold(true).Foreground(p.muted).Padding(0, 1, 0, 0),
			Cell:     s().Padding(0, 1, 0, 0),
			Selected: s().Bold(true).Foreground(p.selFg).Background(p.selBg),
		},
		Help:       help.DefaultStyles(isDark),
		Filter:     textinput.DefaultStyles(isDark),
		FilterHint: s().Foreground(p.muted),

		Dialog:      s().Border(lipgloss.RoundedBorder()).BorderForeground(p.accent).Padding(0, 1),
		DialogTitle: s().Bold(true).Foreground(p.accent),
		FieldLabel:  s().Foreground(p.muted),
		FieldFocus:  s().Bold(true).Foreground(p.fg),
		TextArea:    textarea.DefaultStyles(isDark),
		Input:       textinput.DefaultStyles(isDark),
		Spinner:     s().Foreground(p.info),

		BarFull:  p.info,
		BarEmpty: p.barEmpty,
	}
	st.Filter.Focused.Prompt = s().Bold(true).Foreground(p.accent)
	st.Filter.Blurred.Prompt = s().Foreground(p.muted)
	st.TextArea.Focused.Prompt = s().Foreground(p.accent)
	st.TextArea.Focused.CursorLine = s() // the cursor shows where it is; a band of colour adds nothing
	st.TextArea.Blurred.Prompt = s().Foreground(p.subtle)
	st.Input.Focused.Prompt = s().Bold(true).Foreground(p.accent)
	return st
}
