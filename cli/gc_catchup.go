package cli

import (
	"runtime/debug"
	"sync"
)

// catchUpPercent is the GOGC a long-running observer (the dashboard, koff
// serve, koff metrics, koff status) collects with while its Tailer reads
// the offsets topics to their end the first time. Nearly all a cold read
// of many partitions allocates stays live (the Store's entries, keys and
// updates), so GOGC 100 marks the growing heap again at every doubling:
// at a million partitions about 0.2 s of CPU in a read of 1.3 s, which the
// dashboard takes longer to be live. At 400 the heap reaches the same peak
// (what is live is most of it), while a read of many records of few keys,
// whose superseded values are garbage, stays within five times its live
// heap until caught up.
const catchUpPercent = 400

// collectSparsely runs the collector as GOGC catchUpPercent would until
// the returned func is called (once caught up), then as before. GOGC in
// the environment is the operator's choice and is left alone; a one-shot
// read under way in the same process (collectLate) goes first.
func collectSparsely(env Env) (end func()) {
	if env.Getenv != nil && env.Getenv("GOGC") != "" {
		return func() {}
	}
	late.Lock()
	defer late.Unlock()
	if late.catchUps++; late.catchUps == 1 && late.reads == 0 {
		late.save()
		debug.SetGCPercent(catchUpPercent)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			late.Lock()
			defer late.Unlock()
			if late.catchUps--; late.catchUps == 0 && late.reads == 0 {
				late.restore()
			}
		})
	}
}

// save keeps the settings before the first of the reads and catch-ups
// under way: GOGC's and GOMEMLIMIT's (or none). late is held.
func (l *lateState) save() {
	if l.reads+l.catchUps > 1 {
		return // saved by the first
	}
	l.limit = debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(l.limit)
	l.percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(l.percent)
}

// restore puts back what save kept, or, when a catch-up is still under
// way after the last one-shot read, its setting. late is held.
func (l *lateState) restore() {
	debug.SetMemoryLimit(l.limit)
	if l.catchUps > 0 {
		debug.SetGCPercent(catchUpPercent)
		return
	}
	debug.SetGCPercent(l.percent)
}
