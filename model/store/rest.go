package store

import "koff/model"

// SetREST records the latest poll of Connect's REST API.
func (s *Store) SetREST(r model.RESTStatus) {
	s.mu.Lock()
	switch {
	case r.Err != "" && s.rest.Connectors != nil && r.Connectors == nil:
		// Keep the last known states, marked stale by Err and their time.
		r.Connectors, r.StateAt = s.rest.Connectors, s.rest.StateAt
	case r.Err == "" && r.StateAt.IsZero():
		r.StateAt = r.At
	}
	s.rest = r
	s.mu.Unlock()
	s.bump()
}

// REST returns the latest poll of Connect's REST API (zero without one).
func (s *Store) REST() model.RESTStatus {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.rest
}
