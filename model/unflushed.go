package model

import (
	"sort"
	"time"
)

// Unflushed is how many records a source connector's tasks wrote to its
// topics after its last flush: what a crash now would make it produce again.
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

// SetConnectorTopics records the topics a source connector writes to
// (Connect REST /topics, or --connector-topics).
func (s *Store) SetConnectorTopics(name string, topics []string) {
	s.mu.Lock()
	if s.topicsOf == nil {
		s.topicsOf = map[string][]string{}
	}
	s.topicsOf[name] = append([]string(nil), topics...)
	s.mu.Unlock()
	s.bump()
}

// SetUnflushed records a measurement of a source connector's unflushed records.
func (s *Store) SetUnflushed(name string, u Unflushed) {
	s.mu.Lock()
	if s.unflushed == nil {
		s.unflushed = map[string]Unflushed{}
	}
	prev, had := s.unflushed[name]
	same := had && prev.Err == "" && prev.Since.Equal(u.Since)
	switch {
	case u.Err != "" || u.Records+u.Shared == 0:
		u.Pending = time.Time{}
	case !u.Pending.IsZero():
		// The poller read the records: the oldest one's timestamp.
	case same && prev.Records+prev.Shared == 0:
		u.Pending = u.At
	case same:
		u.Pending = prev.Pending
	}
	s.unflushed[name] = u
	s.mu.Unlock()
	s.bump()
}

// FlushTargets lists the source connectors whose topics are known, with
// the end of their newest flush: what the unflushed-records poller measures.
func (s *Store) FlushTargets() map[string]FlushTarget {
	s.mu.RLock()
	defer s.mu.RUnlock()
	// One pass over the connectors: the poller asks four times a second.
	last := make(map[string]time.Time, len(s.connectors))
	for id, c := range s.connectors {
		if n := len(c.flushes); n > 0 && c.flushes[n-1].End.After(last[id.Name]) {
			last[id.Name] = c.flushes[n-1].End
		}
	}
	writers := map[string][]string{} // topic → source connectors writing it
	for name, topics := range s.topicsOf {
		for _, t := range topics {
			writers[t] = append(writers[t], name)
		}
	}
	out := map[string]FlushTarget{}
	for name, topics := range s.topicsOf {
		if len(topics) == 0 || last[name].IsZero() {
			continue
		}
		ft := FlushTarget{LastFlush: last[name]}
		others := map[string]bool{}
		for _, t := range topics {
			if len(writers[t]) == 1 {
				ft.Topics = append(ft.Topics, t)
				continue
			}
			ft.Shared = append(ft.Shared, t)
			for _, w := range writers[t] {
				if w != name {
					others[w] = true
				}
			}
		}
		for w := range others {
			ft.SharedWith = append(ft.SharedWith, w)
		}
		sort.Strings(ft.SharedWith)
		out[name] = ft
	}
	return out
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
