package store

import (
	"sync"
	"sync/atomic"

	"koff/model"
)

// tailWatch is the tailer's state (Stats().Status.State) as the Store last
// heard it, for readers that look at it often or wait for it to change:
// the dashboard shows a new state (live once caught up, disconnected) as
// soon as it comes, not at its next tick.
type tailWatch struct {
	state atomic.Int32
	mu    sync.Mutex
	moved chan struct{} // closed at the next change; nil: nobody waits
}

// set records the state, waking whoever waits for a change.
func (w *tailWatch) set(st model.TailState) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if model.TailState(w.state.Swap(int32(st))) != st && w.moved != nil {
		close(w.moved)
		w.moved = nil
	}
}

// closedChan is what TailMoved returns for a state already left.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// TailState is the tailer's state as last recorded, read without the
// Store's lock: a reader can look at it while a batch is ingested.
func (s *Store) TailState() model.TailState { return model.TailState(s.tail.state.Load()) }

// TailMoved returns a channel closed once the tailer's state is other
// than from (at once, if it is already).
func (s *Store) TailMoved(from model.TailState) <-chan struct{} {
	w := &s.tail
	w.mu.Lock()
	defer w.mu.Unlock()
	if model.TailState(w.state.Load()) != from {
		return closedChan
	}
	if w.moved == nil {
		w.moved = make(chan struct{})
	}
	return w.moved
}
