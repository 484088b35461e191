package model

import (
	"time"
)

// Unflushed is how many records a source connector's tasks wrote to its
// topics after its last flush: at least what a crash now would make it
// produce again. A worker commits only the offsets of records its producer
// acknowledged, each partition's up to the first record not yet
// acknowledged (SubmittedRecords), so records sent shortly before a flush
// may be covered by no flush and be replayed too.
type Unflushed struct {
	// Records were written to topics only this connector writes.
	Records int64
	// Shared were written to topics other source connectors write too
	// (SharedWith): records koff cannot tell whose they are.
	Shared     int64
	SharedWith []string
	// Since is the flush it is counted from; At when it was measured.
	Since, At time.Time
	Err       string
	// Pending is the timestamp of the oldest record counted, when the
	// poller read them all, else when records were first seen after a
	// measurement since the same flush that saw none (zero: unknown, as
	// old as the flush).
	Pending time.Time
}

// FlushTarget is one source connector for the unflushed-records poller.
type FlushTarget struct {
	Topics     []string // written by this connector alone
	Shared     []string // also written by SharedWith
	SharedWith []string
	LastFlush  time.Time
}

// Flush judges the connector's flush lag at time now with the configured
// flush interval (0: estimate it).
func (r ConnectorRow) Flush(now time.Time, configured time.Duration) FlushReport {
	in := FlushInputs{Configured: configured, Estimate: r.PartitionInterval, Unflushed: -1}
	switch {
	case r.InREST && r.RESTStale == "":
		// A state REST gave before it went out of reach is no evidence.
		in.State = r.REST.State
	case r.Target == TargetPaused || r.Target == TargetStopped:
		// Without REST, the config topic's word: its tasks are told not to run.
		in.State = r.Target
	}
	in.BlindSince, in.Blind = r.Tail.Blind(now)
	if r.Unflushed != nil && r.Unflushed.Err == "" && len(r.Flushes) > 0 && !r.Unflushed.Since.Before(r.Flushes[len(r.Flushes)-1].End) {
		in.Unflushed, in.Shared, in.SharedWith = r.Unflushed.Records, r.Unflushed.Shared, r.Unflushed.SharedWith
		in.Pending = r.Unflushed.Pending
	}
	rep := AssessFlush(r.Flushes, now, in)
	switch {
	// REST says no task runs: whatever its newest records (another tool's
	// edit writes records too, and an edit is no flush), it is idle.
	case r.InREST && r.RESTStale == "" && r.Authoritative() && (r.REST.State == "STOPPED" || r.REST.State == "PAUSED"):
		rep.Status = FlushIdle
		rep.Reason = r.REST.State + ": no task flushes"
	// A deleted connector flushes nothing, however recent its last
	// records (its offsets' tombstones, or its last commit).
	case r.Partitions == 0 && r.NoOffset == 0 && r.Deleted > 0:
		rep.Status = FlushIdle
		rep.Reason = "every offset deleted: no flush until its tasks commit again"
	case r.Orphaned:
		rep.Status = FlushIdle
		rep.Reason = "not in Connect: a new connector named " + r.ID.Name + " would resume from these offsets"
	case r.Unconfigured && !r.InREST && rep.Status != FlushOK:
		rep.Status = FlushIdle
		rep.Reason = "not in Connect's config topic: no task runs; a new connector named " + r.ID.Name + " would resume from these offsets"
	case rep.Status == FlushOK:
	case !r.Authoritative():
		// Copies in the worker's topic are best effort; nothing waits on them.
		rep.Status = FlushIdle
		rep.Reason = "secondary copy: its tasks read " + r.OwnTopic
	}
	return rep
}
