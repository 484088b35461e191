package kit

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
	Insecure  lipgloss.Style // "⚠ TLS NOT VERIFIED" (--insecure-skip-verify)
	Title     lipgloss.Style // a screen's title line
	TitleInfo lipgloss.Style // sort and filter in the title line
	Section   lipgloss.Style // headings in the detail view
	Label     lipgloss.Style
	OK        lipgloss.Style
	Warn      lipgloss.Style
	Bad       lipgloss.Style
	Info      lipgloss.Style

	// Context is the current context's name on its accent colour, so
	// production looks different; ContextLabel is the word before it.
	Context, ContextLabel lipgloss.Style

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
		Insecure:  s().Bold(true).Foreground(p.bad),
		Title:     s().Bold(true).Foreground(p.fg),
		TitleInfo: s().Foreground(p.muted),
		Section:   s().Bold(true).Foreground(p.accent),
		Label:     s().Foreground(p.muted),
		OK:        s().Foreground(p.ok),
		Warn:      s().Foreground(p.warn),
		Bad:       s().Bold(true).Foreground(p.bad),
		Info:      s().Foreground(p.info),

		ContextLabel: s().Foreground(p.muted), // Context: setAccent

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
		Help:       helpStyles(p),
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
	// A blinking cursor redraws twice a second for nothing: over SSH
	// every frame is bytes on the wire.
	st.Filter.Cursor.Blink = false
	st.Input.Cursor.Blink = false
	st.TextArea.Cursor.Blink = false
	st.SetAccent(p.accent)
	return st
}

// setAccent colours the context badge: the accent as background, with
// black or white text, whichever reads on it.
func (st *Styles) SetAccent(c color.Color) {
	st.Context = lipgloss.NewStyle().Bold(true).Background(c).Foreground(textOn(c))
}

// textOn is black on a light colour, white on a dark one.
func textOn(c color.Color) color.Color {
	r, g, b, _ := c.RGBA() // 16 bits each
	lum := (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
	if lum > 0.5 {
		return lipgloss.Color("#000000")
	}
	return lipgloss.Color("#FFFFFF")
}

// helpStyles are the footer's and the help's: bubbles' default greys
// (#4A4A4A on black, about 2:1) are hard to read on a laptop at 3 a.m., so
// keys take the text colour and their descriptions the muted one (about
// 6:1 on a dark or a light background).
func helpStyles(p palette) help.Styles {
	s := lipgloss.NewStyle
	key, desc, sep := s().Foreground(p.fg), s().Foreground(p.muted), s().Foreground(p.subtle)
	return help.Styles{Ellipsis: sep, ShortKey: key, ShortDesc: desc, ShortSeparator: sep,
		FullKey: key, FullDesc: desc, FullSeparator: sep}
}
