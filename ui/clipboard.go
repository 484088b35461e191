package ui

import (
	"fmt"

	"koff/ui/kit"

	tea "charm.land/bubbletea/v2"
)

// clipper is a screen with something to copy: y puts it on the clipboard
// of the terminal the operator sits at, with OSC 52, which travels over
// SSH and through tmux (with set-clipboard on) where a local clipboard
// library cannot.
type clipper interface {
	// clip is the text y copies and what it is, for the status bar
	// ("offset of {…}"), or why there is nothing to copy.
	Clip() (text, what string, err error)
}

// copySelected is y: the selected row's text to the clipboard. It reads
// only, so it works in read-only sessions too.
func (m *Model) copySelected() tea.Cmd {
	c, ok := m.top().(clipper)
	if !ok {
		m.setStatus(statusInfo, "nothing to copy here: "+m.km.Clipboard.Help().Key+
			" copies a connector's name, a source offset or a sink's committed offset")
		return nil
	}
	text, what, err := c.Clip()
	if err != nil {
		m.setStatus(statusInfo, err.Error())
		return nil
	}
	// Not sticky: the next key clears it, like any answer to a key.
	m.status = status{kind: statusOK, text: fmt.Sprintf("copied %s (%s)", what, kit.Plural(len(text), "byte", "bytes"))}
	return tea.SetClipboard(text)
}
