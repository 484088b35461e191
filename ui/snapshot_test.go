package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"koff/model"
	"koff/model/java"
	"koff/model/store"
	"koff/ui/screens"
)

// sendJobs sends messages as send does and returns the commands they
// start, for runJobs. A command that does not answer within a second (a
// tick, a cursor's blink) is not waited for.
func sendJobs(t *testing.T, m *Model, msgs ...tea.Msg) []tea.Cmd {
	t.Helper()
	var cmds []tea.Cmd
	for _, msg := range msgs {
		_, cmd := m.Update(msg)
		cmds = append(cmds, cmd)
	}
	return cmds
}

// runJobs runs the commands and those their messages start, handing the
// messages back as the program does, until none is left.
func runJobs(t *testing.T, m *Model, cmds []tea.Cmd) {
	t.Helper()
	for range 50 {
		var next []tea.Msg
		var run func(tea.Cmd)
		run = func(c tea.Cmd) {
			if c == nil {
				return
			}
			ch := make(chan tea.Msg, 1)
			go func() { ch <- c() }()
			select {
			case msg := <-ch:
				if batch, ok := msg.(tea.BatchMsg); ok {
					for _, c := range batch {
						run(c)
					}
				} else if msg != nil {
					next = append(next, msg)
				}
			case <-time.After(time.Second):
			}
		}
		for _, c := range cmds {
			run(c)
		}
		cmds = nil
		for _, msg := range next {
			if _, ok := msg.(tickMsg); ok {
				continue
			}
			_, cmd := m.Update(msg)
			cmds = append(cmds, cmd)
		}
		if len(cmds) == 0 {
			return
		}
	}
	t.Fatal("the jobs do not settle")
}

// TestBigSourceReadOffTheUIGoroutine: with a big Source, opening a
// connector shows that it is being read rather than an empty connector,
// a snapshot read by a command brings its rows and the header's counts,
// and a filter typed is worked out by a command too, its rows the ones a
// small Source's screen shows.
func TestBigSourceReadOffTheUIGoroutine(t *testing.T) {
	src := bigStore(6000)
	now := time.UnixMilli(1_796_000_000_000).Add(2 * time.Minute)
	m := New(Options{Source: src, Topics: []string{"connect-offsets"}, Now: func() time.Time { return now }})
	send(t, m, size(160, 40))
	if !m.big() {
		t.Fatal("6,000 partitions are not a big Source")
	}
	cmds := sendJobs(t, m, press("enter")...)
	if got := screenText(m); !strings.Contains(got, "reading its source partitions…") || strings.Contains(got, "0 source partitions") {
		t.Fatalf("a big connector being read shows:\n%s", got)
	}
	runJobs(t, m, cmds)
	got := screenText(m)
	if !strings.Contains(got, "6,000 source partitions") {
		t.Fatalf("after its snapshot the screen shows:\n%s", got)
	}
	cmds = sendJobs(t, m, press("/", "r", "e", "g", "i", "o", "n", "-", "3")...)
	if got := screenText(m); !strings.Contains(got, `filter: "region-3" (filtering 6,000…)`) {
		t.Fatalf("a filter being worked out shows:\n%s", got)
	}
	runJobs(t, m, cmds)
	p := m.top().(*screens.PartitionsScreen)
	small := screens.NewPartitionsScreen(&m.km, m.styles, p.ID, 1, 0)
	small.SetSize(160, 30)
	small.Refresh(src, now, true)
	small.SetFilter("region-3")
	if got, want := len(p.List.Rows()), len(small.List.Rows()); got != want || got == 0 || !strings.Contains(screenText(m), `(1000 of 6000)`) {
		t.Fatalf("the filter's rows: %d, in place %d:\n%s", got, want, screenText(m))
	}
}

// TestReadAfterKeysShowsWhatChanged: a read of a big Source that waits for
// keys to pause still comes, and brings what changed while they came.
func TestReadAfterKeysShowsWhatChanged(t *testing.T) {
	src := bigStore(6000)
	now := time.UnixMilli(1_796_000_000_000).Add(2 * time.Minute)
	m := New(Options{Source: src, Topics: []string{"connect-offsets"}, Now: func() time.Time { return now }})
	send(t, m, size(160, 40))
	runJobs(t, m, sendJobs(t, m, press("enter")...))
	if got := screenText(m); !strings.Contains(got, "6,000 source partitions") {
		t.Fatalf("after its snapshot the screen shows:\n%s", got)
	}
	k := mmKey(0)
	p := java.PartitionFor(k, 25)
	for _, key := range []string{"down", "down", "up"} {
		cmds := sendJobs(t, m, press(key)...)
		src.Ingest([]store.Record{{Topic: "connect-offsets", Partition: p, Key: k, Value: []byte(`{"offset":987654321}`), Time: now,
			Offset: src.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: p})}})
		runJobs(t, m, append(cmds, sendJobs(t, m, tickMsg{})...))
	}
	if got := screenText(m); !strings.Contains(got, `{"offset":987654321}`) {
		t.Fatalf("the offset written while keys came is not on screen:\n%s", got)
	}
}
