package store

import "koff/model"

// Histories returns the recent updates of each source partition in ids
// (nil for one not stored), in one read lock and without working out what
// the task reads of them: a reader that wants only how offsets moved (the
// progress rates of a connector of 100,000 partitions) need not pay for
// the connector's whole partition state, which is rebuilt whenever any of
// its records arrives.
func (s *Store) Histories(ids []model.PartitionID) [][]model.Update {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([][]model.Update, len(ids))
	for i, id := range ids {
		if e := s.find(id); e != nil {
			out[i] = e.orderedHistory()
		}
	}
	return out
}
