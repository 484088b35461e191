package screens

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"koff/keymap"
	"koff/model"
	"koff/ui/kit"
)

// unparseableDetail shows one unparseable record whole: where it is,
// when it was written, why koff (and Connect's worker) cannot read it, and
// its key and value escaped (a terminal never gets its control bytes).
type unparseableDetail struct {
	km            *keymap.KeyMap
	st            *kit.Styles
	u             model.Unparseable
	now           time.Time
	vp            viewport.Model
	width, height int
}

func NewUnparseableDetail(km *keymap.KeyMap, st *kit.Styles, u model.Unparseable) *unparseableDetail {
	return &unparseableDetail{km: km, st: st, u: u, vp: viewport.New()}
}

func (s *unparseableDetail) Refresh(_ kit.Source, now time.Time, _ bool) {
	s.now = now
	s.Sync()
}

func (s *unparseableDetail) SetSize(width, height int) {
	s.width, s.height = width, height
	s.vp.SetWidth(width)
	s.vp.SetHeight(max(height-1, 1))
	s.Sync()
}

func (s *unparseableDetail) Sync() { s.vp.SetContentLines(s.Content()) }

func (s *unparseableDetail) Content() []string {
	u, st, w := s.u, s.st, max(s.width, 10)
	var out []string
	fact := func(label, value string) {
		out = append(out, st.Label.Render(fmt.Sprintf("%-*s", kit.LabelW+2, label))+value)
	}
	fact("Record", kit.Clean(u.TopicPartition.String())+" @ "+kit.Count(u.Offset))
	fact("Written", model.TimeText(u.Time)+st.Muted.Render(" ("+kit.Age(s.now, u.Time)+")"))
	out = append(out, kit.IndentWrap(st.Label.Render(fmt.Sprintf("%-*s", kit.LabelW+2, "Reason"))+kit.Clean(u.Reason), w, "", 0)...)
	bytesOf := func(label string, raw []byte, n int, null bool) {
		out = append(out, "")
		head := fmt.Sprintf("%s · %s", label, kit.Plural(n, "byte", "bytes"))
		if null {
			head = label + " · null (a tombstone)"
		}
		out = append(out, st.Section.Render(head)+st.Muted.Render("  escaped (\\xNN: not UTF-8, or a control byte)"))
		if null {
			return
		}
		text := kit.CleanBytes(raw, model.UnparseableRaw)
		if n > len(raw) {
			text += st.Muted.Render(fmt.Sprintf(" …(%s more bytes not kept)", kit.Count(n-len(raw))))
		}
		out = append(out, kit.IndentWrap(text, w, "  ", 0)...)
	}
	bytesOf("Key", u.RawKey, u.KeyLen, false)
	bytesOf("Value", u.RawValue, u.ValueLen, u.RawValue == nil)
	return out
}

func (s *unparseableDetail) HandleKey(msg tea.KeyPressMsg) Action {
	kit.ScrollViewport(&s.vp, s.km, msg)
	return nil
}

func (s *unparseableDetail) View() string {
	title := titleLine(s.st, s.width, "Unparseable records › "+kit.Clean(s.u.TopicPartition.String())+" @ "+kit.Count(s.u.Offset), nil, nil)
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
