package store

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"koff/model"
)

type sinkGroup struct {
	poll      model.GroupPoll
	at        time.Time
	committed map[model.TopicPartition]commitMark
	lag       []model.LagPoint // ring of total lag per poll, oldest first
	trend     string           // lagTrend of lag, kept for its hysteresis
	rate      float64
	// reloaded is when the group's history was thrown away, and why: a
	// new cluster, or a topic whose end offset went backwards.
	reloaded  time.Time
	reloadWhy string
}

type commitMark struct {
	offset int64
	at     time.Time // when the committed offset last moved
}

// SetGroups records a poll of sink consumer groups at time at. The commit
// age of a partition is derived from when its committed offset last moved.
func (s *Store) SetGroups(at time.Time, polls []model.GroupPoll) {
	s.mu.Lock()
	if s.groups == nil {
		s.groups = map[string]*sinkGroup{}
	}
	seen := map[string]bool{}
	for _, p := range polls {
		seen[p.Group] = true
		g := s.groups[p.Group]
		if g == nil {
			g = &sinkGroup{committed: map[model.TopicPartition]commitMark{}}
			s.groups[p.Group] = g
		}
		if p.Err != "" && g.poll.Partitions != nil && p.Partitions == nil {
			// Keep the last numbers, marked stale by Err.
			p.Partitions, p.State, p.Members = g.poll.Partitions, g.poll.State, g.poll.Members
			g.poll = p
			continue
		}
		if why := g.notTheSame(p); why != "" {
			// Commit ages and the lag trend were of another log: start over.
			g.committed, g.lag, g.trend, g.rate = map[model.TopicPartition]commitMark{}, nil, "", 0
			g.reloaded, g.reloadWhy = at, why
		}
		g.poll, g.at = p, at
		var total int64
		for _, gp := range p.Partitions {
			// A commit is dated only when it is seen to move: the first
			// sight of an offset says nothing about when it was committed.
			m, ok := g.committed[gp.TopicPartition]
			switch {
			case !ok:
				g.committed[gp.TopicPartition] = commitMark{offset: gp.Committed}
			case m.offset != gp.Committed:
				g.committed[gp.TopicPartition] = commitMark{offset: gp.Committed, at: at}
			}
			total += gp.Lag()
		}
		if len(g.lag) >= model.LagHistory {
			g.lag = g.lag[1:]
		}
		g.lag = append(g.lag, model.LagPoint{At: at, Lag: total})
		g.trend, g.rate = model.LagTrend(g.lag, g.trend)
	}
	for name := range s.groups {
		if !seen[name] {
			delete(s.groups, name) // deleted (reset) groups disappear
		}
	}
	s.mu.Unlock()
	s.bump()
}

// SinkGroups lists the consumer groups REST says sinks use, for the lag
// poller (which also finds every group named connect-*).
func (s *Store) SinkGroups() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []string
	for name, c := range s.rest.Connectors {
		if c.Type == "sink" {
			out = append(out, model.SinkGroupName(name, c.Config))
		}
	}
	// A group override in the config topic of a connector REST does not
	// list (a group that does not exist is not polled).
	for name, c := range s.ConnectConfigs().Connectors {
		if _, ok := s.rest.Connectors[name]; !ok && c.GroupOverride() != "" && c.Config != nil && !slices.Contains(out, c.GroupOverride()) {
			out = append(out, c.GroupOverride())
		}
	}
	for _, g := range s.namedGroups {
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	sort.Strings(out)
	return out
}

// NameSinkGroup says that connector name is a sink reading as group (koff
// get/status --group), for a sink REST does not list: without REST or a
// config topic koff cannot see its consumer.override.group.id.
func (s *Store) NameSinkGroup(name, group string) {
	s.mu.Lock()
	if s.namedGroups == nil {
		s.namedGroups = map[string]string{}
	}
	s.namedGroups[name] = group
	s.mu.Unlock()
	s.bump()
}

// notTheSame says why a poll is not of the log the group's history was
// read from: another cluster id, or a topic-partition whose end offset went
// backwards (deleted and created again). Offsets only grow otherwise.
func (g *sinkGroup) notTheSame(p model.GroupPoll) string {
	prev := g.poll
	if prev.ClusterID != "" && p.ClusterID != "" && prev.ClusterID != p.ClusterID {
		return "a different cluster answers (cluster id " + p.ClusterID + ", was " + prev.ClusterID + ")"
	}
	ends := make(map[model.TopicPartition]int64, len(prev.Partitions))
	for _, gp := range prev.Partitions {
		ends[gp.TopicPartition] = gp.End
	}
	for _, gp := range p.Partitions {
		if end, ok := ends[gp.TopicPartition]; ok && gp.End < end {
			return fmt.Sprintf("%s ends at offset %d, was %d: the topic was recreated", gp.TopicPartition, gp.End, end)
		}
	}
	return ""
}

func (g *sinkGroup) summary() model.SinkSummary {
	s := model.SinkSummary{Group: g.poll.Group, State: g.poll.State, Members: g.poll.Members, Clients: g.poll.Clients, Partitions: len(g.poll.Partitions), Err: g.poll.Err, At: g.at,
		Reloaded: g.reloaded, ReloadReason: g.reloadWhy}
	for _, p := range g.poll.Partitions {
		s.TotalLag += p.Lag()
		if m := g.committed[p.TopicPartition]; m.at.After(s.LastCommit) && p.Committed >= 0 {
			s.LastCommit = m.at
		}
	}
	s.Trend, s.Rate = g.trend, g.rate
	if s.Rate < 0 && s.TotalLag > 0 {
		s.CatchUp = time.Duration(float64(s.TotalLag) / -s.Rate * float64(time.Second))
	}
	return s
}

// SinkPartitions returns a group's partitions, sorted by topic-partition.
func (s *Store) SinkPartitions(group string) []model.SinkPartitionRow {
	s.mu.RLock()
	defer s.mu.RUnlock()
	g := s.groups[group]
	if g == nil {
		return nil
	}
	rows := make([]model.SinkPartitionRow, 0, len(g.poll.Partitions))
	for _, p := range g.poll.Partitions {
		rows = append(rows, model.SinkPartitionRow{GroupPartition: p, Lag: p.Lag(), CommittedAt: g.committed[p.TopicPartition].at})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Topic != rows[j].Topic {
			return rows[i].Topic < rows[j].Topic
		}
		return rows[i].Partition < rows[j].Partition
	})
	return rows
}
