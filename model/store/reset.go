package store

import "koff/model"

// Reset forgets every record read from the offsets topics: the tailer reads
// them again from scratch because the cluster or a topic it read is not
// the one it was (a new cluster id, a recreated topic). What REST and the
// sink poller said stays: they answer for the present already.
func (s *Store) Reset() {
	s.mu.Lock()
	s.byKey = map[string]*hashIndex{}
	s.blocks, s.nentries, s.keys = nil, 0, arena{}
	s.partitions = map[string]int{}
	s.connectors = map[model.ConnectorID]*connector{}
	s.unparseable = nil
	s.ahead = storeAhead{}
	s.expect = expectation{}
	s.unparsed = 0
	s.records = 0
	s.unflushed = nil
	s.resume = nil // of the cluster that was
	s.readTo, s.handed, s.handedBytes, s.handedTopic = nil, nil, nil, nil
	s.koffUpdates = nil // its entries are gone; announced writes still come
	s.mu.Unlock()
	s.bump()
}
