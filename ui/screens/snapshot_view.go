package screens

import (
	"time"

	"koff/model"
	"koff/ui/kit"
)

// bigStore is the number of stored source partitions from which the
// dashboard reads the Source off the UI goroutine. Reading a connector of
// 100,000 partitions while its records stream in takes the Store hundreds
// of milliseconds (it works out what the task reads of every partition
// again whenever one changes); done in Update, that would hold up every
// key. Below it a reload takes a few milliseconds and is done in place,
// so what a tick reads is on screen at once.
const BigSource = 5000

// snapshot is a reload read off the UI goroutine: the Source's answers as
// they were when read, for the header and the top screen to take in at
// once. Reads it did not make ahead (cheap ones) go to the Source.
type Snapshot struct {
	kit.Source
	SourceVersion uint64
	At            time.Time // when it was read (zero: not known)
	SourceStats   model.Stats
	RESTStatus    model.RESTStatus
	Conns         []model.ConnectorRow
	// What the top screen reads (prefetcher), and its own work on it.
	parts    map[model.ConnectorID][]model.PartitionRow
	detail   map[model.PartitionID]model.PartitionDetail
	sinks    map[string][]model.SinkPartitionRow
	prepared any
}

// newSnapshot reads what every reload reads: the version, the header's
// stats, REST and the connectors.
func NewSnapshot(src kit.Source, at time.Time) *Snapshot {
	s := &Snapshot{Source: src, SourceVersion: src.Version(), At: at}
	s.SourceStats, s.RESTStatus, s.Conns = src.Stats(), src.REST(), src.Connectors()
	return s
}

// follow reads the detail of one partition too: the one an open form
// follows.
func (s *Snapshot) Follow(id model.PartitionID) {
	d, _ := s.Source.Partition(id)
	if s.detail == nil {
		s.detail = map[model.PartitionID]model.PartitionDetail{}
	}
	s.detail[id] = d
}

func (s *Snapshot) Version() uint64                  { return s.SourceVersion }
func (s *Snapshot) TailState() model.TailState       { return s.SourceStats.Status.State }
func (s *Snapshot) Stats() model.Stats               { return s.SourceStats }
func (s *Snapshot) REST() model.RESTStatus           { return s.RESTStatus }
func (s *Snapshot) Connectors() []model.ConnectorRow { return s.Conns }

func (s *Snapshot) Partitions(id model.ConnectorID) []model.PartitionRow {
	if rows, ok := s.parts[id]; ok {
		return rows
	}
	return s.Source.Partitions(id)
}

func (s *Snapshot) Partition(id model.PartitionID) (model.PartitionDetail, bool) {
	if d, ok := s.detail[id]; ok {
		return d, d.ID == id
	}
	return s.Source.Partition(id)
}

func (s *Snapshot) SinkPartitions(group string) []model.SinkPartitionRow {
	if rows, ok := s.sinks[group]; ok {
		return rows
	}
	return s.Source.SinkPartitions(group)
}
