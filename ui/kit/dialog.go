package kit

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
)

// A dialog is a box drawn over the middle of the screen: a border and one
// column of padding each side.
const (
	DialogFrameW = 4
	DialogFrameH = 2
)

// dialogSize is the outer width of a dialog and the most rows it may take
// on a w×h screen: wide enough for JSON, with the screen showing around it
// when there is room for more than fragments of it.
func DialogSize(w, h int) (width, maxHeight int) {
	width = min(w-8, 112)
	if w < 100 {
		width = w
	}
	maxHeight = h - 2
	if maxHeight < 8 {
		maxHeight = h
	}
	return max(width, DialogFrameW+1), max(maxHeight, DialogFrameH+1)
}

// renderBox frames lines as a dialog of the given outer width. Lines are
// cut to fit, never wrapped; past maxHeight the middle goes, so the title
// and the keys at the bottom stay.
func RenderBox(st *Styles, width, maxHeight int, lines []string) string {
	inner := width - DialogFrameW
	if room := maxHeight - DialogFrameH; len(lines) > room && room >= 2 {
		// The footer (after the last blank line: warnings, keys) stays
		// whole when it can; the body gives up its end.
		foot := 1
		for i := len(lines) - 1; i > 0 && lines[i] != ""; i-- {
			foot = len(lines) - i
		}
		if foot > room-1 {
			foot = 1
		}
		lines = append(append([]string(nil), lines[:room-foot]...), lines[len(lines)-foot:]...)
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, inner, "…")
	}
	return st.Dialog.Width(width).Render(strings.Join(lines, "\n"))
}

// indentWrap wraps text to width w behind indent, at spaces where it can
// and anywhere where it must, in at most maxLines lines (0: no limit), the
// last ending in "…" when cut. Exact values (offsets, commands) wrap rather
// than being cut short: a confirmation must show what it writes.
func IndentWrap(text string, w int, indent string, maxLines int) []string {
	room := max(w-ansi.StringWidth(indent), 1)
	var out []string
	for _, l := range strings.Split(ansi.Wrap(text, room, ""), "\n") {
		out = append(out, indent+l)
	}
	if maxLines > 0 && len(out) > maxLines {
		out = out[:maxLines]
		out[maxLines-1] = ansi.Truncate(out[maxLines-1], w-1, "") + "…"
	}
	return out
}

// overlay draws box over the middle of the screen's lines, which keep what
// is left and right of it.
func Overlay(screen []string, box string, width int) []string {
	rows := strings.Split(box, "\n")
	bw := 0
	for _, r := range rows {
		bw = max(bw, ansi.StringWidth(r))
	}
	x := max((width-bw)/2, 0)
	y := max((len(screen)-len(rows))/2, 0)
	out := append([]string(nil), screen...)
	for i, r := range rows {
		n := y + i
		if n >= len(out) {
			break
		}
		base := out[n]
		left := ansi.Truncate(base, x, "")
		if pad := x - ansi.StringWidth(left); pad > 0 {
			left += strings.Repeat(" ", pad)
		}
		var right string
		if ansi.StringWidth(base) > x+bw {
			right = ansi.TruncateLeft(base, x+bw, "")
		}
		// Reset between the parts so no style runs into the box or out of it.
		out[n] = left + "\x1b[m" + r + "\x1b[m" + right
	}
	return out
}

// dialogKeys lays a dialog's keys out in width w, on as many lines as they
// need: no key is cut, so the last, esc, always shows whole. A note (why
// enter is off) follows the keys on their line when it fits, else below.
func DialogKeys(h help.Model, st *Styles, w int, keys []key.Binding, note string) []string {
	h.SetWidth(0) // a copy: lines are made to fit, not cut
	var lines []string
	var cur []key.Binding
	for _, k := range keys {
		if !k.Enabled() {
			continue
		}
		try := append(cur[:len(cur):len(cur)], k)
		if len(cur) > 0 && ansi.StringWidth(h.ShortHelpView(try)) > w {
			lines = append(lines, h.ShortHelpView(cur))
			cur = []key.Binding{k}
			continue
		}
		cur = try
	}
	if len(cur) > 0 {
		lines = append(lines, h.ShortHelpView(cur))
	}
	if note == "" {
		return lines
	}
	if n := len(lines) - 1; n >= 0 && ansi.StringWidth(lines[n]+keySep+note) <= w {
		lines[n] += st.Muted.Render(keySep + note)
		return lines
	}
	return append(lines, IndentWrap(st.Muted.Render(note), w, "", 0)...)
}

// keySep separates what follows a help line, as help separates its keys.
const keySep = " • "

// labelW is the width of the labels left of the facts (State, Path, …).
const LabelW = 9
