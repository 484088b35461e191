package store

import (
	"slices"
	"sort"
	"strings"

	"koff/model"
	"koff/model/java"
)

// joinREST fills a row's REST state, type, own offsets topic, orphan mark
// and sink lag.
func (s *Store) joinREST(r *model.ConnectorRow) {
	r.REST, r.InREST = s.rest.Connectors[r.ID.Name]
	r.RESTStale, r.RESTAt, r.Tail = s.rest.Err, s.rest.StateAt, s.status
	r.Topics = s.topicsOf[r.ID.Name]
	if u, ok := s.unflushed[r.ID.Name]; ok {
		r.Unflushed = &u
	}
	if r.Type == "" {
		r.Type = "source"
	}
	cfg := r.REST.Config
	configs := s.ConnectConfigs()
	cc, inConfig := configs.Connectors[r.ID.Name]
	if inConfig && cc.Config != nil {
		r.Target = cc.TargetState
	}
	r.Unconfigured = configs.Topic != "" && (!inConfig || cc.Config == nil)
	if r.InREST {
		if r.REST.Type != "" && r.REST.Type != "unknown" {
			r.Type = r.REST.Type
		}
		r.OwnTopic = strings.TrimSpace(r.REST.Config["offsets.storage.topic"])
	} else {
		if s.rest.Connectors != nil && s.rest.Err == "" {
			r.Orphaned = true
		}
		// Without REST's word, the config topic's.
		if r.Target != "" {
			cfg = cc.Config
			r.OwnTopic = cc.OwnOffsetsTopic()
		}
	}
	if r.Type == "sink" {
		group := model.SinkGroupName(r.ID.Name, cfg)
		if named := s.namedGroups[r.ID.Name]; named != "" && !r.InREST {
			group = named
		}
		if g := s.groups[group]; g != nil {
			sum := g.summary()
			r.Sink = &sum
		} else {
			r.Sink = &model.SinkSummary{Group: group}
		}
	}
}

func (s *Store) flags(e *entry) model.Flags {
	return flagsIn(e, s.partsOf(e.conn).of[e.idx], s.partitions[e.conn.id.Topic])
}

// flagsIn is flags with e's partition state and its topic's partition
// count looked up already: a read of many rows of one connector looks
// them up once.
func flagsIn(e *entry, ps *partState, n int) model.Flags {
	var f model.Flags
	if e.shared {
		f |= model.FlagDuplicate
	}
	if n > 0 && int(e.hash&0x7fffffff)%n != int(e.partition) {
		f |= model.FlagMisplaced
	}
	if !e.canonical {
		f |= model.FlagNotCanonical
	}
	if ps.live != e && (e.state != valueTombstone || ps.live != nil) {
		// A deleted copy with no live one beside it is just deleted.
		f |= model.FlagStray
	}
	switch e.state {
	case valueNull, valueUnreadable:
		f |= model.FlagUnreadable
	case valueOffset:
		if e.javaNumber {
			f |= model.FlagJavaNumber
		}
	}
	return f
}

// Connectors returns every connector, sorted by offsets topic then name.
func (s *Store) Connectors() []model.ConnectorRow { return s.connectorRows(true) }

// ConnectorList is Connectors without what is counted over each
// connector's partitions (Partitions, Deleted, NoOffset, Suspect,
// PartitionInterval are 0): the list of connectors, their types, sink
// groups and REST state, at a cost that does not grow with partitions.
func (s *Store) ConnectorList() []model.ConnectorRow { return s.connectorRows(false) }

func (s *Store) connectorRows(counts bool) []model.ConnectorRow {
	s.mu.RLock()
	defer s.mu.RUnlock()
	rows := make([]model.ConnectorRow, 0, len(s.connectors))
	for _, c := range s.connectors {
		r := model.ConnectorRow{
			ID:         c.id,
			Partitions: c.live,
			Deleted:    c.deleted,
			Records:    c.records,
			LastUpdate: c.lastUpdate,
			Flushes:    append([]model.FlushEvent(nil), c.flushes...),
		}
		if !counts {
			r.Partitions, r.Deleted = 0, 0
			s.joinREST(&r)
			s.joinResume(&r)
			rows = append(rows, r)
			continue
		}
		s.countsMu.Lock()
		k := s.countsOf(c)
		r.Partitions, r.Deleted, r.NoOffset = k.reads[shareOffset], k.reads[shareDeleted], k.reads[shareNoOffset]
		r.Suspect, r.PartitionInterval = k.suspect, k.interval()
		s.countsMu.Unlock()
		s.joinREST(&r)
		s.joinResume(&r)
		rows = append(rows, r)
	}
	// Connectors REST knows that have no source offsets (new ones, sinks).
	withOffsets := make(map[string]bool, len(s.connectors))
	for id := range s.connectors {
		withOffsets[id.Name] = true
	}
	claimed := map[string]bool{}
	for name, st := range s.rest.Connectors {
		if st.Type == "sink" {
			claimed[model.SinkGroupName(name, st.Config)] = true
		}
		if !withOffsets[name] {
			r := model.ConnectorRow{ID: model.ConnectorID{Name: name}}
			s.joinREST(&r)
			s.joinResume(&r)
			rows = append(rows, r)
		}
	}
	// Sinks whose group the user named, that REST does not list.
	for name, group := range s.namedGroups {
		if _, inREST := s.rest.Connectors[name]; inREST || withOffsets[name] || claimed[group] || s.groups[group] == nil {
			continue
		}
		claimed[group] = true
		r := model.ConnectorRow{ID: model.ConnectorID{Name: name}, Type: "sink"}
		s.joinREST(&r)
		s.joinResume(&r)
		rows = append(rows, r)
	}
	// Sinks the config topic holds and REST does not list: their group is
	// the one their config names (consumer.override.group.id).
	for name, cc := range s.ConnectConfigs().Connectors {
		if _, inREST := s.rest.Connectors[name]; inREST || cc.Config == nil || withOffsets[name] || s.namedGroups[name] != "" {
			continue
		}
		group := model.SinkGroupName(name, cc.Config)
		if g := s.groups[group]; g != nil && !claimed[group] {
			claimed[group] = true
			r := model.ConnectorRow{ID: model.ConnectorID{Name: name}, Type: "sink"}
			s.joinREST(&r)
			s.joinResume(&r)
			rows = append(rows, r)
		}
	}
	// Without REST (or for sinks it no longer lists), connect-* groups are sinks.
	for name, g := range s.groups {
		if claimed[name] || !strings.HasPrefix(name, "connect-") {
			continue
		}
		sum := g.summary()
		r := model.ConnectorRow{ID: model.ConnectorID{Name: strings.TrimPrefix(name, "connect-")}, Type: "sink", Sink: &sum, Tail: s.status}
		r.Orphaned = s.rest.Connectors != nil && s.rest.Err == ""
		s.joinResume(&r)
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].ID.Topic != rows[j].ID.Topic {
			return rows[i].ID.Topic < rows[j].ID.Topic
		}
		return rows[i].ID.Name < rows[j].ID.Name
	})
	return rows
}

// Partitions returns the source partitions of one connector, sorted by
// partition map, then topic-partition.
func (s *Store) Partitions(id model.ConnectorID) []model.PartitionRow {
	rows, _ := s.partitionsIn(nil, nil, id, false)
	return rows
}

// PartitionsIn is Partitions(id) made in the memory of rows and lives
// (each row's LiveCopy) when it is big enough, and that memory for the
// next call: a caller reading the rows of one connector after another
// (koff get's table) makes them in the same memory, not in 300 MB of new
// memory a million partitions, which a one-shot read collects late. The
// rows of the call before are overwritten.
func (s *Store) PartitionsIn(rows []model.PartitionRow, lives []model.PartitionID, id model.ConnectorID) ([]model.PartitionRow, []model.PartitionID) {
	return s.partitionsIn(rows, lives, id, true)
}

// partitionsIn is PartitionsIn; memory it makes is an eighth bigger with
// spare, for the next connector's a little bigger.
func (s *Store) partitionsIn(rows []model.PartitionRow, lives []model.PartitionID, id model.ConnectorID, spare bool) ([]model.PartitionRow, []model.PartitionID) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := s.connectors[id]
	if c == nil {
		return rows[:0], lives
	}
	// Sorted as entries, not as rows: a row is some 300 bytes to move.
	es := slices.Clone(c.entries)
	sortByPartition(es)
	// Filled through write barriers, which read first.
	more := 0
	if spare {
		more = len(es) / 8
	}
	if cap(rows) < len(es) {
		rows = newPages[model.PartitionRow](len(es) + more)
	}
	if cap(lives) < len(es) {
		lives = newPages[model.PartitionID](len(es) + more)
	}
	rows, lives = rows[:len(es)], lives[:len(es)]
	cp, nparts := s.partsOf(c), s.partitions[id.Topic]
	for i, e := range es {
		s.rowInto(&rows[i], &lives[i], e, cp, nparts)
	}
	return rows, lives
}

func (s *Store) row(e *entry) model.PartitionRow {
	var r model.PartitionRow
	s.rowInto(&r, nil, e, s.partsOf(e.conn), s.partitions[e.conn.id.Topic])
	return r
}

// rowInto makes e's row in r, with live to hold its LiveCopy (nil: a new
// one), from the
// connector's parts and its topic's partition count (nparts): a read of
// many rows looks those up once, and can give a row and its LiveCopy one
// allocation.
func (s *Store) rowInto(r *model.PartitionRow, live *model.PartitionID, e *entry, cp *connParts, nparts int) {
	ps := cp.of[e.idx]
	u := e.last()
	*r = model.PartitionRow{
		ID:           e.pid(),
		Connector:    e.conn.id.Name,
		Partition:    e.partitionStr(),
		Deleted:      u.Value == nil,
		Stored:       u.Value,
		Updated:      u.Time,
		RecordOffset: u.RecordOffset,
		Updates:      int(e.updates),
		Flags:        flagsIn(e, ps, nparts),
		Live:         ps.live == e,
		TaskNote:     ps.note,
		TaskForm:     e.taskForm,
		OrderUnknown: ps.orderUnknown,
	}
	if ps.stray != nil {
		r.Stray = ps.stray[e]
	}
	r.Offset, r.Unreadable, r.JavaReads = valueTexts(u.Value)
	if ps.live != nil {
		if live == nil {
			live = new(model.PartitionID)
		}
		*live = ps.live.pid()
		r.LiveCopy = live
		r.TaskReads, r.NoOffset = r.Offset, r.Unreadable
		if ps.live != e {
			r.TaskReads, r.NoOffset, _ = valueTexts(ps.live.value())
		}
		if ps.live.value() == nil {
			r.NoOffset = "deleted: the latest record of the key the task reads is a tombstone"
		}
	} else {
		r.NoOffset = "no stored key has the bytes the task looks up (" + ps.lookup() + ")"
		if allDeleted(ps) {
			r.NoOffset = "deleted"
		}
	}
	if s.resume != nil {
		r.Resume = s.partitionResume(r)
	}
}

func allDeleted(ps *partState) bool {
	for _, e := range ps.entries {
		if e.value() != nil {
			return false
		}
	}
	return true
}

// reads is what the task gets for the partition.
func (ps *partState) reads() valueState {
	if ps.live != nil {
		return ps.live.state
	}
	if allDeleted(ps) {
		return valueTombstone
	}
	return valueUnreadable
}

// valueTexts renders a stored value: its compact JSON when the task can
// read it, else why not; and what Java reads when that differs.
func valueTexts(raw []byte) (offset, unreadable, javaReads string) {
	if raw == nil {
		return "", "", ""
	}
	if plainOffset(raw) {
		return string(raw), "", "" // already compact, read as written
	}
	o, err := model.ParseOffset(raw)
	switch {
	case err == model.ErrNullOffset:
		return "", "the value reads as null (zero bytes, whitespace or the literal null): the task gets no offset", ""
	case err != nil:
		return "", "the value is unreadable (" + err.Error() + "): the worker logs an error and the task gets no offset", ""
	}
	offset = string(java.AppendJackson(nil, o))
	if java.JavaReadsDiffer(o) {
		javaReads = string(java.JavaForm(o))
	}
	return offset, "", javaReads
}

// ReadTo is one past the offset of the newest record ingested from a
// topic-partition (0 before any): a record at or after it has not been
// seen. Edits look for other writers' records from there.
func (s *Store) ReadTo(tp model.TopicPartition) int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.readTo[tp]
}

// Partition returns one source partition's detail.
func (s *Store) Partition(id model.PartitionID) (model.PartitionDetail, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.find(id)
	if e == nil {
		return model.PartitionDetail{}, false
	}
	d := model.PartitionDetail{
		PartitionRow: s.row(e),
		Key:          []byte(e.key),
		PartitionMap: e.partitionMap(),
		Value:        e.value(),
		History:      e.orderedHistory(),
		Expected:     -1,
	}
	if n := s.partitions[id.Topic]; n > 0 {
		d.Expected = int(e.hash&0x7fffffff) % n
		for h := s.home(id.Topic, hashString(keySeed, id.Key)); h != nil; h = s.entryAt(h.nextHome) {
			if h.key == id.Key && int(h.partition) < n {
				d.Homes = append(d.Homes, int(h.partition))
			}
		}
		slices.Sort(d.Homes)
	}
	return d, true
}

// find returns the stored copy id names, or nil.
func (s *Store) find(id model.PartitionID) *entry {
	for e := s.home(id.Topic, hashString(keySeed, id.Key)); e != nil; e = s.entryAt(e.nextHome) {
		if e.key == id.Key && int(e.partition) == id.Partition {
			return e
		}
	}
	return nil
}

// UnparseableRecords returns the most recent unparseable records, oldest first.
func (s *Store) UnparseableRecords() []model.Unparseable {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]model.Unparseable(nil), s.unparseable...)
}

// Stats returns totals and the tailer state.
func (s *Store) Stats() model.Stats {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := model.Stats{
		Records:     s.records,
		Unparseable: s.unparsed,
		Connectors:  len(s.connectors),
		Status:      s.status,
		Topics:      make(map[string]int, len(s.partitions)),
	}
	for t, n := range s.partitions {
		st.Topics[t] = n
	}
	s.countsMu.Lock()
	for _, c := range s.connectors {
		st.Partitions += s.countsOf(c).reads[shareOffset]
	}
	s.countsMu.Unlock()
	return st
}
