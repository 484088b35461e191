package ui

import (
	"time"

	"koff/model"
)

// bigStore is the number of stored source partitions from which the
// dashboard reads the Source off the UI goroutine. Reading a connector of
// 100,000 partitions while its records stream in takes the Store hundreds
// of milliseconds (it works out what the task reads of every partition
// again whenever one changes); done in Update, that would hold up every
// key. Below it a reload takes a few milliseconds and is done in place,
// so what a tick reads is on screen at once.
const bigSource = 5000

// snapshot is a reload read off the UI goroutine: the Source's answers as
// they were when read, for the header and the top screen to take in at
// once. Reads it did not make ahead (cheap ones) go to the Source.
type snapshot struct {
	Source
	version uint64
	at      time.Time // when it was read (zero: not known)
	stats   model.Stats
	rest    model.RESTStatus
	conns   []model.ConnectorRow
	// What the top screen reads (prefetcher), and its own work on it.
	parts    map[model.ConnectorID][]model.PartitionRow
	detail   map[model.PartitionID]model.PartitionDetail
	sinks    map[string][]model.SinkPartitionRow
	prepared any
}

// newSnapshot reads what every reload reads: the version, the header's
// stats, REST and the connectors.
func newSnapshot(src Source, at time.Time) *snapshot {
	s := &snapshot{Source: src, version: src.Version(), at: at}
	s.stats, s.rest, s.conns = src.Stats(), src.REST(), src.Connectors()
	return s
}

// follow reads the detail of one partition too: the one an open form
// follows.
func (s *snapshot) follow(id model.PartitionID) {
	d, _ := s.Source.Partition(id)
	if s.detail == nil {
		s.detail = map[model.PartitionID]model.PartitionDetail{}
	}
	s.detail[id] = d
}

func (s *snapshot) Version() uint64                  { return s.version }
func (s *snapshot) Stats() model.Stats               { return s.stats }
func (s *snapshot) REST() model.RESTStatus           { return s.rest }
func (s *snapshot) Connectors() []model.ConnectorRow { return s.conns }

func (s *snapshot) Partitions(id model.ConnectorID) []model.PartitionRow {
	if rows, ok := s.parts[id]; ok {
		return rows
	}
	return s.Source.Partitions(id)
}

func (s *snapshot) Partition(id model.PartitionID) (model.PartitionDetail, bool) {
	if d, ok := s.detail[id]; ok {
		return d, d.ID == id
	}
	return s.Source.Partition(id)
}

func (s *snapshot) SinkPartitions(group string) []model.SinkPartitionRow {
	if rows, ok := s.sinks[group]; ok {
		return rows
	}
	return s.Source.SinkPartitions(group)
}
