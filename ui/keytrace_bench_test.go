package ui

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// keyTrace, with KOFF_KEYTRACE=ms set, prints for each key of
// BenchmarkKeyToFrame100k slower than ms what the UI goroutine ran from
// 20 ms before it was sent to its frame's write: each Update (by message
// type) and View, how long it took, and of that the time its thread was on
// a CPU and waiting in the kernel's run queue for one (Linux's
// /proc/thread-self/schedstat; the UI goroutine is locked to its thread
// for it). A key whose work took long on a CPU is the UI's own; one whose
// thread waited in the run queue waited for the machine; a gap between
// events, for the Go scheduler (or, before the write, the renderer's
// frame).
//
//	KOFF_KEYTRACE=40 go test ./ui -run XXX -bench KeyToFrame100k -benchtime 1x
type keyTrace struct {
	mu      sync.Mutex
	slow    time.Duration
	events  []traceEvent
	locked  bool
	enabled bool
}

type traceEvent struct {
	at              time.Time
	what            string
	took, cpu, wait time.Duration
}

func newKeyTrace() *keyTrace {
	ms, err := strconv.Atoi(os.Getenv("KOFF_KEYTRACE"))
	return &keyTrace{enabled: err == nil, slow: time.Duration(ms) * time.Millisecond}
}

// schedstat is the calling thread's time on a CPU and waiting for one.
func schedstat() (cpu, wait time.Duration) {
	b, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		return 0, 0
	}
	var c, w int64
	_, _ = fmt.Sscan(string(b), &c, &w)
	return time.Duration(c), time.Duration(w)
}

// begin starts timing an event on the UI goroutine.
func (t *keyTrace) begin() (time.Time, time.Duration, time.Duration) {
	if !t.enabled {
		return time.Time{}, 0, 0
	}
	if !t.locked { // the event loop's goroutine, from its first Update on
		runtime.LockOSThread()
		t.locked = true
	}
	c, w := schedstat()
	return time.Now(), c, w
}

func (t *keyTrace) End(what string, at time.Time, cpu0, wait0 time.Duration) {
	if !t.enabled {
		return
	}
	c, w := schedstat()
	t.add(traceEvent{at: at, what: what, took: time.Since(at), cpu: c - cpu0, wait: w - wait0})
}

func (t *keyTrace) add(e traceEvent) {
	t.mu.Lock()
	t.events = append(t.events, e)
	if len(t.events) > 4000 {
		t.events = append(t.events[:0], t.events[2000:]...)
	}
	t.mu.Unlock()
}

// written notes a frame's write, and prints the events of a slow key.
func (t *keyTrace) written(sent time.Time, key bool) {
	if !t.enabled {
		return
	}
	now := time.Now()
	t.add(traceEvent{at: now, what: "frame written"})
	if !key || now.Sub(sent) < t.slow {
		return
	}
	t.print("key", sent, now)
}

// resultShown prints the events of a filter or sort whose rows were slow
// to show (the Update of its viewMsg is when they were worked out).
func (t *keyTrace) resultShown(sent time.Time) {
	if !t.enabled {
		return
	}
	if now := time.Now(); now.Sub(sent) >= t.slow {
		t.print("result", sent, now)
	}
}

func (t *keyTrace) print(what string, sent, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(os.Stderr, "%s of %.1f ms (from its send; cpu and run queue of the UI goroutine's thread):\n", what, ms(now.Sub(sent)))
	for _, e := range t.events {
		if e.at.Add(e.took).Before(sent.Add(-20 * time.Millisecond)) {
			continue
		}
		if e.took == 0 {
			fmt.Fprintf(os.Stderr, "  %+7.1f ms  %s\n", ms(e.at.Sub(sent)), e.what)
			continue
		}
		fmt.Fprintf(os.Stderr, "  %+7.1f ms  %-24s %5.1f ms: cpu %5.1f, run queue %5.1f\n", ms(e.at.Sub(sent)), e.what, ms(e.took), ms(e.cpu), ms(e.wait))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
