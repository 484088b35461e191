package store

import "koff/model"

// A cold read of a million new keys grows the Store's index of a topic's
// keys (byKey) seventeen times, every growth moving all that was there,
// under the Store's lock. The Tailer knows how many records each
// partition holds before it reads them (its catch-up target), and after a
// thousand keys the share of records that brought a new key says how many
// keys there will be: the index is then grown once to that size. (Not a
// connector's own tables: a worker writes its connectors' records one
// connector after another, so a connector's share of the first records
// says nothing of its share of all.) Only the size changes: what is
// stored, and what any read gives, is the same
// (TestExpectedSizesIngestAsWithout).

// expectation is what the Tailer said of the records to come.
type expectation struct {
	records map[model.TopicPartition]int64 // each partition's records to read
}

// ExpectRecords tells the Store that tp holds n records to be read from
// where its reader starts. It only sizes the Store's tables.
func (s *Store) ExpectRecords(tp model.TopicPartition, n int64) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	if s.expect.records == nil {
		s.expect.records = map[model.TopicPartition]int64{}
	}
	s.expect.records[tp] = n
	s.mu.Unlock()
}

// expectedRecords is the records the Store will have read, from what the
// Tailer said: a topic some of whose partitions said nothing yet is taken
// to hold as many in each of them as in those that did.
func (s *Store) expectedRecords() int64 {
	if len(s.expect.records) == 0 {
		return 0
	}
	sum, told := map[string]int64{}, map[string]int{}
	for tp, n := range s.expect.records {
		sum[tp.Topic] += n
		told[tp.Topic]++
	}
	var all int64
	for topic, n := range sum {
		if p := s.partitions[topic]; p > told[topic] {
			n = n * int64(p) / int64(told[topic])
		}
		all += n
	}
	return all
}

// expectMin is how many keys a table holds before its final size is
// guessed from them: enough for the share of new keys to be steady (a
// test lowers it).
var expectMin = 1024

// expectedSize is how many keys a topic's index holding used now will
// hold once the expected records are read, or 0 when there is nothing to
// go by.
func (s *Store) expectedSize(used int) int {
	if used < expectMin || s.records < int64(expectMin) || s.expect.records == nil {
		return 0
	}
	all := s.expectedRecords()
	if all <= s.records {
		return 0
	}
	// No room is added for a guess a little low: a table then grows once
	// more, as it always did, where room added would double many a table
	// past the next power of 2 for nothing.
	return int(min(int64(used)*all/s.records, all))
}

// reserve grows t, a topic's index of keys about to take one more, to the
// size it is expected to reach, instead of doubling it.
func (s *Store) reserve(t *hashIndex) {
	if 2*(t.used+1) <= len(t.slots) {
		return
	}
	if n := s.expectedSize(t.used); n > t.used {
		t.reserve(n)
	}
}
