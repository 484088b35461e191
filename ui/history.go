package ui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"koff/edit/history"
	"koff/edit/plan"
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
	// gen is the Tailer's Reloaded when the read began: a read that
	// straddles a reload is of a log that is gone, and is dropped.
	gen time.Time
}

// readHistory starts reading the detail's history from the offsets topics
// through the Editor; the screen says "reading history…" meanwhile. A read
// still running when the screen closes is cancelled.
func (m *Model) readHistory(ds *screens.DetailScreen) tea.Cmd {
	return m.startHistory(ds, false, "")
}

// refreshHistory reads the detail's history again: at once and from
// scratch after the Tailer read the offsets topics again (HistoryStale),
// the history read before gone from the screen; in the background, once
// the partition has moved on past what was read (HistoryBehind).
func (m *Model) refreshHistory() tea.Cmd {
	ds, ok := m.top().(*screens.DetailScreen)
	if !ok {
		return nil
	}
	if why, stale := ds.HistoryStale(); stale {
		return m.startHistory(ds, false, againWords(why))
	}
	if !ds.HistoryBehind(m.opts.Now()) {
		return nil
	}
	return m.startHistory(ds, true, "")
}

// againWords say why the history is read again from scratch.
func againWords(why string) string {
	if why == "" {
		return "koff read the offsets topics again from scratch"
	}
	return "koff read the offsets topics again from scratch: " + why
}

// historyBlocked says why no commit of the detail's history may be chosen
// now ("" when one may): the history is being read again after a reload,
// or is from before one.
func (m *Model) historyBlocked(ds *screens.DetailScreen) string {
	if again := ds.HistoryAgain(); again != "" {
		return "history is being read again (" + again + "): choose a commit once it is read"
	}
	st := m.opts.Source.Stats().Status
	if why, stale := ds.HistoryStale(); stale || st.Reloaded.After(ds.HistoryGen()) {
		if !stale {
			why = st.ReloadReason
		}
		return "history is being read again (" + againWords(why) + "): choose a commit once it is read"
	}
	return ""
}

func (m *Model) startHistory(ds *screens.DetailScreen, refresh bool, again string) tea.Cmd {
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
	ds.NoteTail(m.opts.Source.Stats().Status)
	if refresh {
		ds.RefreshingHistory()
	} else {
		ds.SetHistoryLoading(again)
	}
	gen := ds.HistoryGen()
	ctx, cancel := context.WithTimeout(context.Background(), kit.HistoryTimeout)
	m.histCancel = cancel
	return func() tea.Msg {
		defer cancel()
		h, err := screens.ReadHistory(ctx, ed, name, k.Partition)
		return historyMsg{screen: ds, h: h, err: err, refresh: refresh, gen: gen}
	}
}

// handleHistory shows a history read on its screen, if it is still open.
// A read begun before the Tailer's last reload is dropped, and the
// history read again.
func (m *Model) handleHistory(msg historyMsg) tea.Cmd {
	if st := m.opts.Source.Stats().Status; st.Reloaded.After(msg.gen) {
		if m.top() == msg.screen {
			return m.startHistory(msg.screen, false, againWords(st.ReloadReason))
		}
		return nil
	}
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
			return nil
		}
	}
	return nil
}

// editToCommit is t on the detail's history: the offset form for the
// partition, filled with the chosen commit's value (a tombstone plans a
// reset); enter then shows the plan as every edit.
func (m *Model) editToCommit(ds *screens.DetailScreen) tea.Cmd {
	if why := m.historyBlocked(ds); why != "" {
		m.setStatus(statusInfo, why) // its commits may be of a log that is gone
		return nil
	}
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
	from := fmt.Sprintf("%s (%s, %s@%d)", model.TimeText(c.Time), history.TimestampType(c.LogAppendTime), c.TopicPartition, c.Offset)
	if c.Value == nil && d.Deleted {
		m.setStatus(statusInfo, "this source partition's offset is already deleted (its latest record is a tombstone)")
		return nil
	}
	gen := ds.HistoryGen()
	defer func() { m.commitGen = &gen }() // the form or plan now open is of this history
	if c.Value == nil {
		return m.planWith(&dialogs.Submission{
			Label: "planning reset of " + name + "…",
			Note:  "the commit of " + from + " is a tombstone: the offset is deleted",
			Plan: func(ctx context.Context, ed kit.Editor) (*plan.Plan, error) {
				return ed.Plan(ctx, plan.Request{Connector: name, Kind: plan.KindReset, Items: []plan.Item{{Partition: k.Partition}}})
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

// commitReloaded says why the edit open from a commit of a history
// (t) must not go on: koff read the offsets topics again from scratch
// since that history was read, so the commit may be of a log that is
// gone. "" when it may, or no such edit is open.
func (m *Model) commitReloaded() string {
	if m.commitGen == nil {
		return ""
	}
	if m.form == nil && m.confirm == nil && m.busy == "" {
		m.commitGen = nil // the edit is over
		return ""
	}
	st := m.opts.Source.Stats().Status
	if !st.Reloaded.After(*m.commitGen) {
		return ""
	}
	return "nothing was written: " + againWords(st.ReloadReason) + " since the history was read, so the commit chosen may be of a log that is gone; choose it again once the history is read"
}

// dropCommitEdit closes the edit open from a commit of a history read
// before a reload (commitReloaded), unless it is being applied already.
func (m *Model) dropCommitEdit() {
	why := m.commitReloaded()
	if why == "" || m.confirm != nil && m.confirm.Running {
		return
	}
	m.cancelPlan()
	m.form, m.confirm, m.commitGen = nil, nil, nil
	m.layout()
	m.setStatus(statusWarn, why)
}
