package ui

import (
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// clipper is a screen with something to copy: y puts it on the clipboard
// of the terminal the operator sits at, with OSC 52, which travels over
// SSH and through tmux (with set-clipboard on) where a local clipboard
// library cannot.
type clipper interface {
	// clip is the text y copies and what it is, for the status bar
	// ("offset of {…}"), or why there is nothing to copy.
	clip() (text, what string, err error)
}

// clipWhatWidth is how much of a source partition the status bar names.
const clipWhatWidth = 40

// copySelected is y: the selected row's text to the clipboard. It reads
// only, so it works in read-only sessions too.
func (m *Model) copySelected() tea.Cmd {
	c, ok := m.top().(clipper)
	if !ok {
		m.setStatus(statusInfo, "nothing to copy here: "+m.km.Clipboard.Help().Key+
			" copies a connector's name, a source offset or a sink's committed offset")
		return nil
	}
	text, what, err := c.clip()
	if err != nil {
		m.setStatus(statusInfo, err.Error())
		return nil
	}
	// Not sticky: the next key clears it, like any answer to a key.
	m.status = status{kind: statusOK, text: fmt.Sprintf("copied %s (%s)", what, plural(len(text), "byte", "bytes"))}
	return tea.SetClipboard(text)
}

// clip on the connectors table is the selected connector's name.
func (s *connectorsScreen) clip() (string, string, error) {
	r, ok := s.selected()
	if !ok {
		return "", "", errors.New("no connector selected")
	}
	return r.ID.Name, "connector name " + r.ID.Name, nil
}

// clip on the partitions table is the selected source partition's offset
// as the Store holds it: compact JSON, byte for byte what the table shows.
func (s *partitionsScreen) clip() (string, string, error) {
	r, ok := s.selected()
	switch {
	case !ok:
		return "", "", errors.New("no source partition selected")
	case r.Deleted || r.Offset == "":
		return "", "", errors.New("nothing to copy: this source partition's offset is deleted (its latest record is a tombstone)")
	}
	return r.Offset, "offset of " + truncateMiddle(r.Partition, clipWhatWidth), nil
}

// clip on the detail view is the partition's offset, as on its row.
func (s *detailScreen) clip() (string, string, error) {
	switch {
	case !s.found:
		return "", "", errors.New("nothing to copy: this source partition is no longer in the offsets topic")
	case s.d.Deleted || s.d.Offset == "":
		return "", "", errors.New("nothing to copy: this source partition's offset is deleted (its latest record is a tombstone)")
	}
	return s.d.Offset, "offset of " + truncateMiddle(s.d.Partition, clipWhatWidth), nil
}

// clip on the sink table is the selected topic-partition's committed
// offset in the shape Connect's REST API takes for a sink.
func (s *sinkScreen) clip() (string, string, error) {
	r, ok := s.selected()
	switch {
	case !ok:
		return "", "", errors.New("no topic-partition selected")
	case r.Committed < 0:
		return "", "", fmt.Errorf("nothing to copy: group %s has no committed offset for %s", s.group(), r.TopicPartition)
	}
	return fmt.Sprintf(`{"kafka_offset":%d}`, r.Committed), "committed offset of " + r.TopicPartition.String(), nil
}
