package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"koff/model"
	"koff/ui/screens"
)

// TestNewTailerStateShowsAtOnce: reads of a big Source are paced (the next
// waits twice as long as the last took), but a new state of the tailer
// (catching up → live, live → disconnected) is read at once: the tick
// comes as the Store hears of it, and the read it starts waits for no
// pause; a change of the records alone keeps the pace.
func TestNewTailerStateShowsAtOnce(t *testing.T) {
	src := bigStore(6000)
	src.SetStatus(model.TailStatus{State: model.TailCatchingUp, Read: 6000, Total: 12000})
	now := time.UnixMilli(1_796_000_000_000).Add(2 * time.Minute)
	m := New(Options{Source: src, Topics: []string{"connect-offsets"}, Now: func() time.Time { return now }})
	m.every = time.Hour // only a new state brings a tick
	send(t, m, size(120, 35))
	if !m.big() || !strings.Contains(screenText(m), "catching up") {
		t.Fatalf("a big Source catching up shows:\n%s", screenText(m))
	}
	// A read that took long: the next one is 20 s away.
	m.handleLoaded(loadedMsg{snap: screens.NewSnapshot(src, now), top: m.top(), took: 10 * time.Second})

	src.Ingest(nil) // nothing: the version stays
	src.SetTopicPartitions("other", 3)
	send(t, m, tickMsg{})
	if !m.wantLoad || m.loading {
		t.Fatalf("a change of the Store other than the tailer's state: read wanted %v, started %v; want it wanted and paced", m.wantLoad, m.loading)
	}

	waited := m.tick()
	answer := make(chan tea.Msg, 1)
	go func() { answer <- waited() }()
	select {
	case <-answer:
		t.Fatal("the tick came before its time or a new tailer state")
	case <-time.After(50 * time.Millisecond):
	}
	src.SetStatus(model.TailStatus{State: model.TailLive, Read: 12000, Total: 12000})
	var msg tea.Msg
	select {
	case msg = <-answer:
	case <-time.After(10 * time.Second):
		t.Fatal("no tick when the tailer's state changed")
	}
	if _, ok := msg.(tickMsg); !ok {
		t.Fatalf("the tick's command answered %T", msg)
	}
	_, cmd := m.Update(msg)
	if strings.Contains(screenText(m), "● live") {
		t.Fatal("live before the read")
	}
	runJobs(t, m, []tea.Cmd{cmd})
	if got := screenText(m); !strings.Contains(got, "● live") || !strings.Contains(got, "6,000 partitions") {
		t.Fatalf("after the tailer went live the header shows:\n%s", got)
	}

	// Live → disconnected, seen at a tick: read at once too.
	m.handleLoaded(loadedMsg{snap: screens.NewSnapshot(src, now), top: m.top(), took: 10 * time.Second})
	src.SetStatus(model.TailStatus{State: model.TailDisconnected, Reason: "connection refused", Since: now})
	runJobs(t, m, sendJobs(t, m, tickMsg{}))
	if got := screenText(m); !strings.Contains(got, "disconnected") {
		t.Fatalf("after the connection went the header shows:\n%s", got)
	}
	src.SetStatus(model.TailStatus{State: model.TailLive}) // the last tick's wait ends
}
