package store

import (
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
		sources: map[string]map[string]*model.PartitionResume{}, sinks: map[string]map[string]*model.PartitionResume{}}
	for _, c := range results {
		sum := model.SummariseResume(c)
		rc.connectors[c.Name] = &sum
		if len(c.Partitions) == 0 {
			continue
		}
		parts := make(map[string]*model.PartitionResume, len(c.Partitions))
		for _, p := range c.Partitions {
			parts[p.Partition] = &model.PartitionResume{Partition: p, Checked: c.Checked}
		}
		if g, ok := groups[c.Name]; ok && c.Type == "sink" {
			rc.sinks[g] = parts
		} else {
			rc.sources[c.Name] = parts
		}
	}
	s.mu.Lock()
	s.resume = rc
	s.mu.Unlock()
	s.bump()
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
	return s.resume.sources[r.Connector][r.Partition]
}

// sinkResume is the checks of a group's partitions, by "topic/N". s.mu is
// held.
func (s *Store) sinkResume(group string) map[string]*model.PartitionResume {
	if s.resume == nil {
		return nil
	}
	return s.resume.sinks[group]
}
