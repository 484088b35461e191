package cli

import (
	"context"
	"io"
	"log"
	"testing"
	"time"
)

// A long-running observer's first catch-up collects as GOGC 400 would,
// and the settings are what they were once it ends; a one-shot read
// (collectLate) under way at the same time goes first, whichever starts
// or ends first, and the settings found before either come back at the
// end of both.
func TestCollectSparselyUntilCaughtUpWithReadsBesideIt(t *testing.T) {
	percent, limit := gcSettings()
	env := Env{Getenv: func(string) string { return "" }}
	want := func(what string, p, l int64) {
		t.Helper()
		if gp, gl := gcSettings(); gp != p || gl != l {
			t.Fatalf("%s: GOGC %d, limit %d; want %d and %d", what, gp, gl, p, l)
		}
	}

	end := collectSparsely(env)
	want("catching up", catchUpPercent, limit)
	end()
	end() // ending twice counts once
	want("caught up", percent, limit)

	// A read starting during a catch-up, ending after it.
	end = collectSparsely(env)
	endRead := collectLate(env)
	want("a read during a catch-up", -1, min(limit, readHeapBudget))
	end()
	want("the read after the catch-up ended", -1, min(limit, readHeapBudget))
	endRead()
	want("after both", percent, limit)

	// A catch-up starting during a read, ending after it.
	endRead = collectLate(env)
	end = collectSparsely(env)
	want("a catch-up during a read", -1, min(limit, readHeapBudget))
	endRead()
	want("the catch-up after the read ended", catchUpPercent, limit)
	end()
	want("after both", percent, limit)

	// GOGC in the environment is the operator's.
	collectSparsely(Env{Getenv: func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	}})()
	want("with GOGC set", percent, limit)
}

// The observer of the dashboard, koff serve and koff metrics collects
// sparsely until its Tailer has caught up, then as before; one stopped
// before that puts the settings back too.
func TestObserverCollectsSparselyUntilCaughtUp(t *testing.T) {
	percent, limit := gcSettings()
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["jdbc",{"table":"a"}]`, `{"id":1}`})
	globals := func(addr string) *Globals {
		return &Globals{Bootstrap: []string{addr}, OffsetsTopics: []string{"connect-offsets"}, Refresh: 200 * time.Millisecond,
			logger: log.New(io.Discard, "", 0)}
	}
	o := observe(context.Background(), globals(addr), nil)
	select {
	case <-o.tailer.CaughtUp():
	case <-time.After(20 * time.Second):
		t.Fatal("not caught up")
	}
	deadline := time.Now().Add(10 * time.Second)
	for p, l := gcSettings(); p != percent || l != limit; p, l = gcSettings() {
		if time.Now().After(deadline) {
			t.Fatalf("caught up: GOGC %d, limit %d; want %d and %d as before", p, l, percent, limit)
		}
		time.Sleep(time.Millisecond)
	}
	o.stop()

	// A broker that does not answer: never caught up, stopped.
	o = observe(context.Background(), globals("127.0.0.1:1"), nil)
	if p, _ := gcSettings(); p != catchUpPercent {
		t.Fatalf("catching up: GOGC %d, want %d", p, catchUpPercent)
	}
	o.stop()
	if p, l := gcSettings(); p != percent || l != limit {
		t.Fatalf("stopped before caught up: GOGC %d, limit %d; want %d and %d", p, l, percent, limit)
	}
}
