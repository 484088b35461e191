package ui

import (
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"koff/model"
	"koff/ui/dialogs"
	"koff/ui/kit"
	"koff/ui/screens"
)

// prefetcher screens say what their reload reads, for a snapshot to read
// it ahead: prefetch returns the function that reads it (and works on it)
// off the UI goroutine; it must not touch the screen.
type prefetcher interface {
	Prefetch() func(src kit.Source, snap *screens.Snapshot)
}

// loadedMsg brings a snapshot read for the screen that was on top.
type loadedMsg struct {
	snap *screens.Snapshot
	top  screens.Screen
	took time.Duration // reading it
}

// loadCmd reads a snapshot of the Source for the top screen.
func (m *Model) loadCmd() tea.Cmd {
	top, src := m.top(), m.opts.Source
	var read func(kit.Source, *screens.Snapshot)
	if p, ok := top.(prefetcher); ok {
		read = p.Prefetch()
	}
	// The offset editor follows the offset it edits on every reload.
	var follow *model.PartitionID
	if f, ok := m.form.(*dialogs.EditForm); ok && !f.NewPartition && f.ID.Key != "" {
		id := f.ID
		follow = &id
	}
	now, lastKey := m.opts.Now, m.lastKey
	// Not a new screen's first read, nor one showing a new tailer state.
	again := !m.nextLoad.IsZero() && !m.stateMoved()
	return kit.OffUI(func() tea.Msg {
		if again {
			waitForKeyPause(lastKey)
		}
		start := now()
		snap := screens.NewSnapshot(src, start)
		if read != nil {
			read(src, snap)
		}
		if follow != nil {
			snap.Follow(*follow)
		}
		return loadedMsg{snap: snap, top: top, took: now().Sub(start)}
	})
}

// keyPause and maxKeyWait: a read of a big Source for the screen on show
// waits until no key came for keyPause, but no more than maxKeyWait. Keys
// then find the cores free of reads while they come (a read of a
// streaming 100k connector takes tens of milliseconds of a core, which the
// machine's other work shares), and what is on screen is at most about a
// second older while they do. A new screen's first read waits for nothing.
const (
	keyPause   = 100 * time.Millisecond
	maxKeyWait = time.Second
)

// waitForKeyPause returns when no key came for keyPause (lastKey, Unix
// ns), or after maxKeyWait.
func waitForKeyPause(lastKey *atomic.Int64) {
	for start := time.Now(); ; {
		since := time.Since(time.Unix(0, lastKey.Load()))
		if since >= keyPause || time.Since(start) >= maxKeyWait {
			return
		}
		time.Sleep(min(keyPause-since, maxKeyWait-time.Since(start)))
	}
}

// handleLoaded takes in a snapshot: the header and the top screen show it
// at once. One read for a screen no longer on top is dropped, and the next
// tick reads again.
func (m *Model) handleLoaded(msg loadedMsg) {
	m.loading = false
	// The next read waits twice as long as this one took: reads of a big
	// Source take at most a third of a core however fast its records
	// come, and keys find the other cores free.
	m.nextLoad = m.opts.Now().Add(2 * msg.took)
	if msg.top != m.top() {
		m.wantLoad = true // for the screen on top now
		return
	}
	m.refreshFrom(msg.snap, m.opts.Now(), true)
	m.layout()
}

// big says the Source is read off the UI goroutine.
func (m *Model) big() bool { return m.stats.Partitions >= screens.BigSource }

// stateMoved says the tailer's state is not the one on show: catching up
// is over, or the connection went. A read showing it waits for no pause,
// whatever the last read took.
func (m *Model) stateMoved() bool { return m.opts.Source.TailState() != m.stats.Status.State }

// reloadCmd starts reading a snapshot, unless one is in flight: one more
// starts when it lands or at the next tick, so the reads take no more of
// a core than they need and keys go first.
func (m *Model) reloadCmd() tea.Cmd {
	if m.loading {
		return nil
	}
	m.loading = true
	return m.loadCmd()
}

// viewer screens work out the rows of a filter or sort off the UI
// goroutine when they are many: viewCmd starts that work when there is
// some and none is in flight, viewDone takes in its result.
type viewer interface {
	ViewCmd() tea.Cmd
	ViewDone(kit.ViewMsg)
	// viewing says such work is under way for the rows the screen has: a
	// reload waits for it, as its rows would make the work's result
	// useless.
	Viewing() bool
}

// jobsCmd starts what the top screen and the header have to read or work
// out off the UI goroutine.
func (m *Model) jobsCmd() tea.Cmd {
	var cmds []tea.Cmd
	v, isViewer := m.top().(viewer)
	if isViewer {
		cmds = append(cmds, v.ViewCmd())
	}
	if m.wantLoad && !(isViewer && v.Viewing()) && (!m.opts.Now().Before(m.nextLoad) || m.stateMoved()) {
		if cmd := m.reloadCmd(); cmd != nil {
			m.wantLoad = false
			cmds = append(cmds, cmd)
		}
	}
	return tea.Batch(cmds...)
}
