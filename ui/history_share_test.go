package ui

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"koff/edit/history"
)

// Four dashboards on one partition's detail (koff serve's sessions, each
// with its copy of the Editor) read the offsets topic once between them,
// and a new commit is read once, from where the read ended, for all four.
func TestFourViewersOfADetailReadTheHistoryOnce(t *testing.T) {
	now := t0
	clock := func(o *Options) { o.Now = func() time.Time { return now } }
	f, ed, m := editModel(t, 80, 24, clock)
	var fulls, follows atomic.Int64
	ed.real.History = func(ctx context.Context, topic string, keep func([]byte) bool, fn func(*history.Record) error) ([]history.RetainedLog, error) {
		fulls.Add(1)
		return f.readHistory(ctx, topic, keep, fn)
	}
	ed.real.HistoryFrom = func(ctx context.Context, topic string, from []int64, keep func([]byte) bool, fn func(*history.Record) error) ([]history.RetainedLog, error) {
		follows.Add(1)
		return f.readHistoryFrom(ctx, topic, from, keep, fn)
	}
	viewers := []*Model{m}
	for range 3 {
		own := *ed.real
		o := m.opts
		o.Editor = &fakeEditor{real: &own}
		v := New(o)
		send(t, v, size(80, 24))
		viewers = append(viewers, v)
	}
	for _, v := range viewers {
		openHistory(t, v)
	}
	if fulls.Load() != 1 || follows.Load() != 0 {
		t.Fatalf("4 viewers of one detail read the offsets topic %d times and followed it %d times, want once and never", fulls.Load(), follows.Load())
	}
	f.put(now, keyAppLog, `{"position":150000}`)
	now = now.Add(6 * time.Second)
	for i, v := range viewers {
		awaitHistory(t, v, send(t, v, tickMsg{}))
		if out := contentText(v); !strings.Contains(out, "8 commits retained · read just now") || !strings.Contains(out, `{"position":150000}`) {
			t.Errorf("viewer %d does not show the new commit read:\n%s", i+1, out)
		}
	}
	if fulls.Load() != 1 || follows.Load() != 1 {
		t.Errorf("a new commit seen by 4 viewers: %d reads of the whole topic and %d follows, want 1 and 1", fulls.Load(), follows.Load())
	}
}
