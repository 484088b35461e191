package kit

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"koff/keymap"
)

// scrollViewport moves a full-screen viewport with the list keys, as the
// tables move: the detail screens scroll the same way.
func ScrollViewport(vp *viewport.Model, km *keymap.KeyMap, msg tea.KeyPressMsg) {
	switch {
	case key.Matches(msg, km.Up):
		vp.ScrollUp(1)
	case key.Matches(msg, km.Down):
		vp.ScrollDown(1)
	case key.Matches(msg, km.PageUp):
		vp.PageUp()
	case key.Matches(msg, km.PageDown):
		vp.PageDown()
	case key.Matches(msg, km.Home):
		vp.GotoTop()
	case key.Matches(msg, km.End):
		vp.GotoBottom()
	}
}
