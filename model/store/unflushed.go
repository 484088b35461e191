package store

import (
	"sort"
	"time"

	"koff/model"
)

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
func (s *Store) SetUnflushed(name string, u model.Unflushed) {
	s.mu.Lock()
	if s.unflushed == nil {
		s.unflushed = map[string]model.Unflushed{}
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
func (s *Store) FlushTargets() map[string]model.FlushTarget {
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
	out := map[string]model.FlushTarget{}
	for name, topics := range s.topicsOf {
		if len(topics) == 0 || last[name].IsZero() {
			continue
		}
		ft := model.FlushTarget{LastFlush: last[name]}
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
