package store

import (
	"testing"

	"koff/model"
)

// TestTailMovedClosesOnANewStateOnly: the channel a reader waits on closes
// when the tailer's state changes, not when only its counts do, and is
// closed at once for a state already left; TailState reads what Stats
// says.
func TestTailMovedClosesOnANewStateOnly(t *testing.T) {
	s := NewStore(StoreOptions{})
	closed := func(c <-chan struct{}) bool {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	s.SetStatus(model.TailStatus{State: model.TailCatchingUp, Read: 1, Total: 10})
	moved := s.TailMoved(model.TailCatchingUp)
	if closed(moved) {
		t.Fatal("closed with the state unchanged")
	}
	s.SetStatus(model.TailStatus{State: model.TailCatchingUp, Read: 5, Total: 10})
	if closed(moved) {
		t.Fatal("closed by a new count of the same state")
	}
	if !closed(s.TailMoved(model.TailConnecting)) {
		t.Fatal("a wait for a state already left did not end at once")
	}
	s.SetStatus(model.TailStatus{State: model.TailLive, Read: 10, Total: 10})
	if !closed(moved) {
		t.Fatal("not closed when the tailer went live")
	}
	if s.TailState() != model.TailLive || s.Stats().Status.State != model.TailLive {
		t.Fatalf("TailState %v, Stats %v; want live", s.TailState(), s.Stats().Status.State)
	}
	again := s.TailMoved(model.TailLive)
	if closed(again) {
		t.Fatal("the next wait is closed already")
	}
	s.SetStatus(model.TailStatus{State: model.TailDisconnected, Reason: "gone"})
	if !closed(again) {
		t.Fatal("not closed when the connection went")
	}
}
