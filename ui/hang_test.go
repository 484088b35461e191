package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"koff/edit/plan"
	"koff/ui/kit"
)

// hangingEditor plans like a Connect that never answers: until the
// request's context is cancelled.
type hangingEditor struct {
	kit.Editor
	cancelled chan struct{}
}

func (h *hangingEditor) Plan(ctx context.Context, _ plan.Request) (*plan.Plan, error) {
	<-ctx.Done()
	close(h.cancelled)
	return nil, ctx.Err()
}

func planThatHangs(t *testing.T) (*Model, *hangingEditor) {
	t.Helper()
	var h *hangingEditor
	_, _, m := editModel(t, 80, 24, func(o *Options) {
		h = &hangingEditor{Editor: o.Editor, cancelled: make(chan struct{})}
		o.Editor = h
	})
	selectPartition(t, m, "jdbc-orders", "customers")
	send(t, m, press("e")...)
	setField(m, 0, `{"incrementing":9100}`)
	send(t, m, press("end")...)
	cmd := send(t, m, press("enter")...)
	if m.busy == "" || m.form == nil {
		t.Fatalf("no plan in flight:\n%s", screenText(m))
	}
	go drain(cmd)
	return m, h
}

func waitCancelled(t *testing.T, h *hangingEditor) {
	t.Helper()
	select {
	case <-h.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the plan's request was not cancelled")
	}
}

func TestEscCancelsAPlanWaitingOnAHangingConnect(t *testing.T) {
	m, h := planThatHangs(t)
	send(t, m, press("esc")...)
	if m.form != nil || m.busy != "" {
		t.Fatalf("esc left the plan waiting:\n%s", screenText(m))
	}
	requireStatus(t, m, "cancelled: the plan's requests were stopped; nothing was changed")
	waitCancelled(t, h)
	// The dashboard takes edits again at once.
	send(t, m, press("e")...)
	if m.form == nil {
		t.Fatal("e after the cancelled plan opened nothing")
	}
}

func TestQQuitsWhileAPlanWaitsOnAHangingConnect(t *testing.T) {
	m, h := planThatHangs(t)
	cmd := send(t, m, press("q")...)
	if cmd == nil {
		t.Fatal("q did nothing")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q did not quit")
	}
	waitCancelled(t, h)
}

// drain runs a command and every command of a batch, off the test's
// goroutine, dropping their messages.
func drain(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	if b, ok := cmd().(tea.BatchMsg); ok {
		for _, c := range b {
			go drain(c)
		}
	}
}

func TestHeaderSaysAnEditWasInterrupted(t *testing.T) {
	notice := "INTERRUPTED EDIT of jdbc-orders: koff undo jdbc-orders puts back what it wrote (import by alice at 2026-12-01 10:00, 3/25 topic-partitions written)"
	for _, w := range []int{80, 120} {
		_, _, m := editModel(t, w, 24, func(o *Options) { o.Interrupted = func() string { return notice } })
		lines := strings.Split(screenText(m), "\n")
		if !strings.HasPrefix(lines[1], "⚠ INTERRUPTED EDIT of jdbc-orders: koff undo jdbc-orders") {
			t.Errorf("%d columns: header line 2 = %q", w, lines[1])
		}
		if len(lines) > 24 {
			t.Errorf("%d columns: %d lines", w, len(lines))
		}
	}
}
