package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"koff/keymap"
	"koff/model"
)

// unparseableDetail shows one unparseable record whole: where it is,
// when it was written, why koff (and Connect's worker) cannot read it, and
// its key and value escaped (a terminal never gets its control bytes).
type unparseableDetail struct {
	km            *keymap.KeyMap
	st            *Styles
	u             model.Unparseable
	now           time.Time
	vp            viewport.Model
	width, height int
}

func newUnparseableDetail(km *keymap.KeyMap, st *Styles, u model.Unparseable) *unparseableDetail {
	return &unparseableDetail{km: km, st: st, u: u, vp: viewport.New()}
}

func (s *unparseableDetail) refresh(_ Source, now time.Time, _ bool) {
	s.now = now
	s.sync()
}

func (s *unparseableDetail) SetSize(width, height int) {
	s.width, s.height = width, height
	s.vp.SetWidth(width)
	s.vp.SetHeight(max(height-1, 1))
	s.sync()
}

func (s *unparseableDetail) sync() { s.vp.SetContentLines(s.content()) }

func (s *unparseableDetail) content() []string {
	u, st, w := s.u, s.st, max(s.width, 10)
	var out []string
	fact := func(label, value string) {
		out = append(out, st.Label.Render(fmt.Sprintf("%-*s", labelW+2, label))+value)
	}
	fact("Record", clean(u.TopicPartition.String())+" @ "+count(u.Offset))
	fact("Written", u.Time.In(s.now.Location()).Format("2006-01-02 15:04:05.000 MST")+st.Muted.Render(" ("+age(s.now, u.Time)+")"))
	out = append(out, indentWrap(st.Label.Render(fmt.Sprintf("%-*s", labelW+2, "Reason"))+clean(u.Reason), w, "", 0)...)
	bytesOf := func(label string, raw []byte, n int, null bool) {
		out = append(out, "")
		head := fmt.Sprintf("%s · %s", label, plural(n, "byte", "bytes"))
		if null {
			head = label + " · null (a tombstone)"
		}
		out = append(out, st.Section.Render(head)+st.Muted.Render("  escaped (\\xNN: not UTF-8, or a control byte)"))
		if null {
			return
		}
		text := cleanBytes(raw, model.UnparseableRaw)
		if n > len(raw) {
			text += st.Muted.Render(fmt.Sprintf(" …(%s more bytes not kept)", count(n-len(raw))))
		}
		out = append(out, indentWrap(text, w, "  ", 0)...)
	}
	bytesOf("Key", u.RawKey, u.KeyLen, false)
	bytesOf("Value", u.RawValue, u.ValueLen, u.RawValue == nil)
	return out
}

func (s *unparseableDetail) handleKey(msg tea.KeyPressMsg) action {
	scrollViewport(&s.vp, s.km, msg)
	return nil
}

func (s *unparseableDetail) View() string {
	title := titleLine(s.st, s.width, "Unparseable records › "+clean(s.u.TopicPartition.String())+" @ "+count(s.u.Offset), nil, nil)
	return strings.Join([]string{title, s.vp.View()}, "\n")
}

func (s *unparseableDetail) ShortHelp() []key.Binding {
	scroll := s.km.Down
	scroll.SetHelp("↑↓ pgup pgdn", "scroll")
	return []key.Binding{scroll, s.km.Back, s.km.Help, s.km.Quit}
}

func (s *unparseableDetail) FullHelp() [][]key.Binding {
	return [][]key.Binding{{s.km.Up, s.km.Down, s.km.PageUp, s.km.PageDown, s.km.Home, s.km.End}, {s.km.Back, s.km.Context}, {s.km.Help, s.km.Quit}}
}
