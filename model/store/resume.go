package store

import (
	"maps"
	"time"

	"koff/model"
	"koff/model/resume"
)

// resumeChecks is the latest resume check, indexed for the rows that show
// it: a connector's summary by name, a source partition's by connector and
// partition map, a sink's topic-partition by its group.
type resumeChecks struct {
	at         time.Time
	connectors map[string]*model.ConnectorResume
	// read are the offsets topics the check read each source connector's
	// offsets from (those its tasks read): a stray copy in another topic
	// has no resume state.
	read    map[string]map[string]bool
	sources map[string]*partChecks // by connector, each partition by its partition map
	sinks   map[string]*partChecks // by group, each partition by "topic/N"
	// whole is the check of every partition of a connector koff could
	// not check at all (its class, a system out of reach): unknown, and
	// why. By connector for sources, by group for sinks.
	whole, wholeSinks map[string]*model.PartitionResume
}

// SetResume records a resume check of connectors (probe.Checker.Check's
// results), made at at. Connectors not in it keep no state: every check
// checks every connector. The Store keeps the results' Partitions as they
// are: the caller never writes into them again.
func (s *Store) SetResume(results []resume.Connector, at time.Time) {
	// Which rows the check was of, as koff check picks them: a sink by its
	// group, a source by the offsets topics its tasks read.
	groups, read := map[string]string{}, map[string]map[string]bool{}
	for _, r := range s.ConnectorList() {
		switch {
		case r.Type == "sink" && r.Sink != nil:
			groups[r.ID.Name] = r.Sink.Group
		case r.ID.Topic != "" && r.Authoritative():
			if read[r.ID.Name] == nil {
				read[r.ID.Name] = map[string]bool{}
			}
			read[r.ID.Name][r.ID.Topic] = true
		}
	}
	rc := &resumeChecks{at: at, connectors: make(map[string]*model.ConnectorResume, len(results)), read: read,
		sources: map[string]*partChecks{}, sinks: map[string]*partChecks{},
		whole: map[string]*model.PartitionResume{}, wholeSinks: map[string]*model.PartitionResume{}}
	s.mu.RLock()
	prev := s.resume
	s.mu.RUnlock()
	for _, c := range results {
		g, sink := groups[c.Name]
		sink = sink && c.Type == "sink"
		var last *partChecks
		if prev != nil {
			if sink {
				last = prev.sinks[g]
			} else {
				last = prev.sources[c.Name]
			}
		}
		if last != nil && len(c.Partitions) > 0 && sameCheckSlice(last.parts, c.Partitions) && last.sum != nil && sameSummary(last.from, c) {
			// The same check again (a poller found nothing moved): its
			// partitions' checks and summary stand, checked now.
			last.clock.Set(c.Checked)
			sum := *last.sum
			sum.Checked = c.Checked
			rc.connectors[c.Name] = &sum
			if sink {
				rc.sinks[g] = last
			} else {
				rc.sources[c.Name] = last
			}
			continue
		}
		sum := model.SummariseResume(c)
		rc.connectors[c.Name] = &sum
		if len(c.Partitions) == 0 {
			if c.Reason != "" {
				all := &model.PartitionResume{Partition: &resume.Partition{State: resume.Unknown, Lost: resume.None, Replayed: resume.None, Reason: c.Reason}, Clock: model.NewCheckClock(c.Checked)}
				if sink {
					rc.wholeSinks[g] = all
				} else {
					rc.whole[c.Name] = all
				}
			}
			continue
		}
		pc := newPartChecks(c)
		pc.sum = &sum
		if sink {
			rc.sinks[g] = pc
		} else {
			rc.sources[c.Name] = pc
		}
	}
	// A connector whose partitions' checks changed is read whole by a
	// reader of what changed (PartitionsSince): its rows carry them. A
	// check that says the same again (but for its time) changes no row.
	// Compared before the lock: the Tailer and the screens wait for no
	// comparison of 100,000 partitions.
	changed := rc.changedSince(prev)
	s.mu.Lock()
	if s.resume != prev { // a Reset meanwhile: every row
		changed = nil
	}
	var whole []*connector
	for id, c := range s.connectors {
		if changed == nil || changed[id.Name] {
			whole = append(whole, c)
		}
	}
	if len(whole) > 0 {
		s.stamp++
		for _, c := range whole {
			c.stamp, c.whole = s.stamp, s.stamp
		}
	}
	s.resume = rc
	s.mu.Unlock()
	s.bump()
}

// changedSince is the connectors whose source partitions' checks, or
// the topics they were read from, differ from prev's (nil: all of them,
// prev being nil).
func (rc *resumeChecks) changedSince(prev *resumeChecks) map[string]bool {
	if prev == nil {
		return nil
	}
	names := map[string]bool{}
	for _, both := range []*resumeChecks{prev, rc} {
		for name := range both.sources {
			names[name] = true
		}
		for name := range both.whole {
			names[name] = true
		}
		for name := range both.read {
			names[name] = true
		}
	}
	changed := make(map[string]bool, len(names))
	for name := range names {
		changed[name] = !sameChecks(prev.sources[name], rc.sources[name]) || !sameCheck(prev.whole[name], rc.whole[name]) ||
			!maps.Equal(prev.read[name], rc.read[name])
	}
	return changed
}

// sameCheck reports whether two checks say the same, whenever made.
func sameCheck(a, b *model.PartitionResume) bool {
	return a == nil && b == nil || a != nil && b != nil && *a.Partition == *b.Partition
}

// partChecks is the check of a connector's (or a group's) partitions,
// each found by its name through index.
type partChecks struct {
	// parts is the check's own Partitions: a poller that finds nothing
	// changed hands the same again (cli's resume_sinks.go), and the
	// check stands, its clock moved on.
	parts []resume.Partition
	index map[string]int32
	all   []model.PartitionResume // one allocation, not one a partition
	clock *model.CheckClock
	// sum is the connector's summary, from the check from.
	sum  *model.ConnectorResume
	from resume.Connector
}

// newPartChecks indexes c's partitions.
func newPartChecks(c resume.Connector) *partChecks {
	pc := &partChecks{parts: c.Partitions, all: make([]model.PartitionResume, len(c.Partitions)),
		index: make(map[string]int32, len(c.Partitions)), clock: model.NewCheckClock(c.Checked), from: c}
	for i := range c.Partitions {
		pc.all[i] = model.PartitionResume{Partition: &c.Partitions[i], Clock: pc.clock}
		pc.index[c.Partitions[i].Partition] = int32(i)
	}
	return pc
}

// sameSummary reports whether c says of its connector what a says, but
// for its partitions (compared by the caller) and time.
func sameSummary(a, c resume.Connector) bool {
	return a.Name == c.Name && a.Class == c.Class && a.Type == c.Type && a.Reason == c.Reason && a.Note == c.Note
}

// sameCheckSlice reports whether a and b are the same slice: a poller
// hands the same check again only when nothing it judged moved, and
// never writes into one it handed.
func sameCheckSlice(a, b []resume.Partition) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// of is the check of the partition named p, nil when none.
func (pc *partChecks) of(p string) *model.PartitionResume {
	if pc == nil {
		return nil
	}
	if i, ok := pc.index[p]; ok {
		return &pc.all[i]
	}
	return nil
}

// sameChecks reports whether two checks of a connector's partitions say
// the same, whenever they were made.
func sameChecks(a, b *partChecks) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if sameCheckSlice(a.parts, b.parts) {
		return true
	}
	if len(a.index) != len(b.index) {
		return false
	}
	for k, i := range a.index {
		q := b.of(k)
		if q == nil || *a.all[i].Partition != *q.Partition {
			return false
		}
	}
	return true
}

// ResumeChecked is when the latest resume check was made (zero before
// one).
func (s *Store) ResumeChecked() time.Time {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.resume == nil {
		return time.Time{}
	}
	return s.resume.at
}

// joinResume fills a connector row's resume summary: a sink's, a source's
// on the topics its tasks read, one known only to REST or the config topic
// (no offsets: nothing to resume from). s.mu is held.
func (s *Store) joinResume(r *model.ConnectorRow) {
	if s.resume == nil {
		return
	}
	if r.ID.Topic != "" && r.Type != "sink" && !s.resume.read[r.ID.Name][r.ID.Topic] {
		return
	}
	r.Resume = s.resume.connectors[r.ID.Name]
}

// partitionResume is the check of a source partition's row, on the copy
// its task reads. s.mu is held.
func (s *Store) partitionResume(r *model.PartitionRow) *model.PartitionResume {
	if s.resume == nil || !r.Live || r.TaskReads == "" || !s.resume.read[r.Connector][r.ID.Topic] {
		return nil
	}
	if p := s.resume.sources[r.Connector].of(r.Partition); p != nil {
		return p
	}
	return s.resume.whole[r.Connector]
}

// sinkResume is the checks of a group's partitions, by "topic/N", and the
// check of all of them when koff could not check the sink at all. s.mu is
// held.
func (s *Store) sinkResume(group string) (*partChecks, *model.PartitionResume) {
	if s.resume == nil {
		return nil, nil
	}
	return s.resume.sinks[group], s.resume.wholeSinks[group]
}
