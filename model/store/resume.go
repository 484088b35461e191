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
	sources map[string]map[string]*model.PartitionResume // connector → partition map → check
	sinks   map[string]map[string]*model.PartitionResume // group → "topic/N" → check
	// whole is the check of every partition of a connector koff could
	// not check at all (its class, a system out of reach): unknown, and
	// why. By connector for sources, by group for sinks.
	whole, wholeSinks map[string]*model.PartitionResume
}

// SetResume records a resume check of connectors (probe.Checker.Check's
// results), made at at. Connectors not in it keep no state: every check
// checks every connector.
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
		sources: map[string]map[string]*model.PartitionResume{}, sinks: map[string]map[string]*model.PartitionResume{},
		whole: map[string]*model.PartitionResume{}, wholeSinks: map[string]*model.PartitionResume{}}
	for _, c := range results {
		sum := model.SummariseResume(c)
		rc.connectors[c.Name] = &sum
		g, sink := groups[c.Name]
		sink = sink && c.Type == "sink"
		if len(c.Partitions) == 0 {
			if c.Reason != "" {
				all := &model.PartitionResume{Partition: resume.Partition{State: resume.Unknown, Lost: resume.None, Replayed: resume.None, Reason: c.Reason}, Checked: c.Checked}
				if sink {
					rc.wholeSinks[g] = all
				} else {
					rc.whole[c.Name] = all
				}
			}
			continue
		}
		parts := make(map[string]*model.PartitionResume, len(c.Partitions))
		all := make([]model.PartitionResume, len(c.Partitions)) // one allocation, not one a partition
		for i, p := range c.Partitions {
			all[i] = model.PartitionResume{Partition: p, Checked: c.Checked}
			parts[p.Partition] = &all[i]
		}
		if sink {
			rc.sinks[g] = parts
		} else {
			rc.sources[c.Name] = parts
		}
	}
	// A connector whose partitions' checks changed is read whole by a
	// reader of what changed (PartitionsSince): its rows carry them. A
	// check that says the same again (but for its time) changes no row.
	// Compared before the lock: the Tailer and the screens wait for no
	// comparison of 100,000 partitions.
	s.mu.RLock()
	prev := s.resume
	s.mu.RUnlock()
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
	return a == nil && b == nil || a != nil && b != nil && a.Partition == b.Partition
}

// sameChecks reports whether two checks of a connector's partitions say
// the same, whenever they were made.
func sameChecks(a, b map[string]*model.PartitionResume) bool {
	if len(a) != len(b) {
		return false
	}
	for k, p := range a {
		q, ok := b[k]
		if !ok || p.Partition != q.Partition {
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
	if p := s.resume.sources[r.Connector][r.Partition]; p != nil {
		return p
	}
	return s.resume.whole[r.Connector]
}

// sinkResume is the checks of a group's partitions, by "topic/N", and the
// check of all of them when koff could not check the sink at all. s.mu is
// held.
func (s *Store) sinkResume(group string) (map[string]*model.PartitionResume, *model.PartitionResume) {
	if s.resume == nil {
		return nil, nil
	}
	return s.resume.sinks[group], s.resume.wholeSinks[group]
}
