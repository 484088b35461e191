package ui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"koff/edit"
	"koff/model"
	"koff/ui/dialogs"
	"koff/ui/kit"
	"koff/ui/screens"
)

// historyMsg is a partition detail's history, read off the UI goroutine
// (again: refresh, in the background, what was read before staying on
// screen meanwhile).
type historyMsg struct {
	screen  *screens.DetailScreen
	h       *screens.History
	err     error
	refresh bool
}

// readHistory starts reading the detail's history from the offsets topics
// through the Editor; the screen says "reading history…" meanwhile. A read
// still running when the screen closes is cancelled.
func (m *Model) readHistory(ds *screens.DetailScreen) tea.Cmd {
	return m.startHistory(ds, false)
}

// refreshHistory reads the detail's history again in the background, once
// the partition has moved on past what was read (HistoryBehind).
func (m *Model) refreshHistory() tea.Cmd {
	ds, ok := m.top().(*screens.DetailScreen)
	if !ok || !ds.HistoryBehind(m.opts.Now()) {
		return nil
	}
	return m.startHistory(ds, true)
}

func (m *Model) startHistory(ds *screens.DetailScreen, refresh bool) tea.Cmd {
	if m.histCancel != nil {
		m.histCancel()
		m.histCancel = nil
	}
	ed := m.opts.Editor
	if ed == nil {
		return nil // no reader of the offsets topic: the recent updates are all there is
	}
	k, err := model.ParseKey([]byte(ds.ID().Key))
	if err != nil {
		ds.SetHistory(nil, fmt.Errorf("no history: the key cannot be parsed: %v", err))
		return nil
	}
	name := ds.Connector().Name
	if name == "" {
		name = k.Connector
	}
	if refresh {
		ds.RefreshingHistory()
	} else {
		ds.SetHistoryLoading()
	}
	ctx, cancel := context.WithTimeout(context.Background(), kit.HistoryTimeout)
	m.histCancel = cancel
	return func() tea.Msg {
		defer cancel()
		h, err := screens.ReadHistory(ctx, ed, name, k.Partition)
		return historyMsg{screen: ds, h: h, err: err, refresh: refresh}
	}
}

// handleHistory shows a history read on its screen, if it is still open.
func (m *Model) handleHistory(msg historyMsg) {
	for _, s := range m.stack {
		if s == msg.screen {
			if msg.h != nil {
				msg.h.At = m.opts.Now()
			}
			if msg.refresh {
				msg.screen.RefreshHistory(msg.h, msg.err, m.opts.Now())
			} else {
				msg.screen.SetHistory(msg.h, msg.err)
			}
			m.layout() // its help line names the history's keys now
			return
		}
	}
}

// editToCommit is t on the detail's history: the offset form for the
// partition, filled with the chosen commit's value (a tombstone plans a
// reset); enter then shows the plan as every edit.
func (m *Model) editToCommit(ds *screens.DetailScreen) tea.Cmd {
	c, ok := ds.SelectedCommit()
	if !ok {
		if ds.HistoryLoading() {
			m.setStatus(statusInfo, "reading history…: choose a commit once it is read")
		} else {
			m.setStatus(statusInfo, "no commit to edit to: the history shows none")
		}
		return nil
	}
	d, found := ds.Detail()
	k, err := model.ParseKey([]byte(ds.ID().Key))
	if !found || err != nil {
		m.setStatus(statusErr, "this source partition is no longer in the offsets topic")
		return nil
	}
	name := ds.Connector().Name
	if name == "" {
		name = k.Connector
	}
	from := fmt.Sprintf("%s (%s, %s@%d)", model.TimeText(c.Time), edit.TimestampType(c.LogAppendTime), c.TopicPartition, c.Offset)
	if c.Value == nil && d.Deleted {
		m.setStatus(statusInfo, "this source partition's offset is already deleted (its latest record is a tombstone)")
		return nil
	}
	if c.Value == nil {
		return m.planWith(&dialogs.Submission{
			Label: "planning reset of " + name + "…",
			Note:  "the commit of " + from + " is a tombstone: the offset is deleted",
			Plan: func(ctx context.Context, ed kit.Editor) (*edit.Plan, error) {
				return ed.Plan(ctx, edit.Request{Connector: name, Kind: edit.KindReset, Items: []edit.Item{{Partition: k.Partition}}})
			},
		})
	}
	row := d.PartitionRow
	if !row.Live && d.LiveCopy != nil { // the edit is the partition's: show the offset its task reads
		if live, ok := m.opts.Source.Partition(*d.LiveCopy); ok {
			row = live.PartitionRow
		}
	}
	f := dialogs.NewOffsetForm(&m.km, m.styles, name, row, k.Partition, nil)
	f.FromCommit(string(c.Value), from)
	return m.openForm(f)
}

// rewindTime is T on a source connector: the rewind dialog.
func (m *Model) rewindTime(t editTarget) tea.Cmd {
	if t.sink {
		m.setStatus(statusInfo, t.name+" is a sink: e on its partitions sets its group to a time (to timestamp)")
		return nil
	}
	return m.openForm(dialogs.NewRewindForm(&m.km, m.styles, t.name, m.opts.Now))
}
