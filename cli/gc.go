package cli

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// readHeapBudget is how big a one-shot read's heap may grow before its
// first collection. A read builds what it prints and exits, and almost
// all it allocates stays live to the end (at a million partitions the
// heap is ~480 MB, of which the collector freed next to nothing in three
// cycles that marked it all: about 0.1 s of CPU in a 0.85 s read).
const readHeapBudget = 768 << 20

// collectLate runs a one-shot read (get, export) without the garbage
// collector until the heap reaches readHeapBudget (or a lower GOMEMLIMIT),
// then collects as GOGC 400 would: a read of many records of few keys,
// whose superseded values are garbage, is bounded by the budget, and one
// bigger than it is collected as before. GOGC in the environment is the
// operator's choice and is left alone. The returned func ends the read;
// when the last of the reads under way ends (tests run several in one
// process), the settings found at the first are restored.
func collectLate(env Env) (end func()) {
	if env.Getenv != nil && env.Getenv("GOGC") != "" {
		return func() {}
	}
	late.Lock()
	defer late.Unlock()
	if late.reads++; late.reads == 1 {
		late.save()
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(min(late.limit, readHeapBudget))
		late.round++
		// A cleanup runs once its object has been found unreachable,
		// which only a collection finds: the first one, at the budget,
		// hands the heap back to the pacer. The object holds a pointer so
		// that it is not a tiny allocation shared with others, which may
		// never be freed.
		first := &struct{ _ *int }{}
		runtime.AddCleanup(first, collected, late.round)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			late.Lock()
			defer late.Unlock()
			if late.reads--; late.reads == 0 {
				late.restore()
			}
		})
	}
}

// late is the state of the reads under way in collectLate, and of the
// first catch-ups under way in collectSparsely; percent and limit are the
// settings found before the first of either.
var late lateState

type lateState struct {
	sync.Mutex
	reads    int
	catchUps int
	round    int // which first read's cleanup is current
	percent  int
	limit    int64
}

// collected is the cleanup of round's first collection: from then on the
// reads under way collect as GOGC 400 would (catchUpPercent: what is live
// is most of their heap, as it is in a catch-up).
func collected(round int) {
	late.Lock()
	defer late.Unlock()
	if late.reads > 0 && late.round == round {
		debug.SetGCPercent(catchUpPercent)
		debug.SetMemoryLimit(late.limit)
	}
}
