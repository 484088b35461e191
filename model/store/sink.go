package store

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"koff/model"
)

type sinkGroup struct {
	poll model.GroupPoll // its Partitions sorted by topic-partition
	at   time.Time
	// committed is where each of poll.Partitions' committed offsets was
	// last seen to move, by place in poll.Partitions.
	committed []commitMark
	// totalLag and lastCommit are the summary's, worked out once a poll:
	// the dashboard and the metrics read them far more often than that.
	totalLag   int64
	lastCommit time.Time
	lag        []model.LagPoint // ring of total lag per poll, oldest first
	trend      string           // lagTrend of lag, kept for its hysteresis
	rate       float64
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
// A poll costs one pass over its partitions when they are those of the
// last poll (a sink's usual case, 100,000 of them for a big one), and a
// sort and a merge with the last poll when they are not.
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
			g = &sinkGroup{}
			s.groups[p.Group] = g
		}
		if p.Err != "" && g.poll.Partitions != nil && p.Partitions == nil {
			// Keep the last numbers, marked stale by Err.
			p.Partitions, p.State, p.Members = g.poll.Partitions, g.poll.State, g.poll.Members
			g.poll = p
			continue
		}
		p.Partitions = sortedPartitions(p.Partitions)
		if why := g.notTheSame(p); why != "" {
			// Commit ages and the lag trend were of another log: start over.
			g.poll.Partitions, g.committed, g.lag, g.trend, g.rate = nil, nil, nil, "", 0
			g.reloaded, g.reloadWhy = at, why
		}
		g.committed = movedCommits(g.poll.Partitions, g.committed, p.Partitions, at)
		g.poll, g.at = p, at
		g.totalLag, g.lastCommit = 0, time.Time{}
		for i, gp := range p.Partitions {
			g.totalLag += gp.Lag()
			if m := g.committed[i]; m.at.After(g.lastCommit) && gp.Committed >= 0 {
				g.lastCommit = m.at
			}
		}
		if len(g.lag) >= model.LagHistory {
			g.lag = g.lag[1:]
		}
		g.lag = append(g.lag, model.LagPoint{At: at, Lag: g.totalLag})
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

// sortedPartitions sorts ps by topic-partition in place, unless it is
// already (a broker answers in the same order poll after poll).
func sortedPartitions(ps []model.GroupPartition) []model.GroupPartition {
	if slices.IsSortedFunc(ps, compareGroupPartitions) {
		return ps
	}
	if out, ok := placedPartitions(ps); ok {
		return out
	}
	slices.SortFunc(ps, compareGroupPartitions)
	return ps
}

// placedPartitions sorts ps by placing each partition by its number in
// its topic's range, a pass instead of a sort of 100,000 comparisons. Not
// ok for partition numbers far sparser than the partitions, or repeats.
func placedPartitions(ps []model.GroupPartition) ([]model.GroupPartition, bool) {
	top := map[string]int{} // highest partition number + 1, by topic
	for _, p := range ps {
		if p.Partition < 0 {
			return nil, false
		}
		top[p.Topic] = max(top[p.Topic], p.Partition+1)
	}
	topics := slices.Sorted(maps.Keys(top))
	base, n := make(map[string]int, len(top)), 0
	for _, t := range topics {
		base[t] = n
		n += top[t]
	}
	if n > 4*len(ps)+1024 {
		return nil, false
	}
	place := make([]int32, n)
	for i, p := range ps {
		at := &place[base[p.Topic]+p.Partition]
		if *at != 0 {
			return nil, false
		}
		*at = int32(i) + 1
	}
	out := make([]model.GroupPartition, 0, len(ps))
	for _, i := range place {
		if i != 0 {
			out = append(out, ps[i-1])
		}
	}
	return out, true
}

func compareGroupPartitions(a, b model.GroupPartition) int {
	if a.Topic != b.Topic { // one string per topic of a poll: mostly the same pointer
		return strings.Compare(a.Topic, b.Topic)
	}
	return cmp.Compare(a.Partition, b.Partition)
}

// movedCommits is the commit marks of next's partitions, from those of
// prev (marks, by place): a commit is dated only when it is seen to move,
// since the first sight of an offset says nothing about when it was
// committed. Both are sorted by topic-partition.
func movedCommits(prev []model.GroupPartition, marks []commitMark, next []model.GroupPartition, at time.Time) []commitMark {
	if samePartitions(prev, next) {
		// In place: each mark read is the one about to be written.
		for i, gp := range next {
			if marks[i].offset != gp.Committed {
				marks[i] = commitMark{offset: gp.Committed, at: at}
			}
		}
		return marks
	}
	out := make([]commitMark, len(next))
	j := 0
	for i, gp := range next {
		for j < len(prev) && compareGroupPartitions(prev[j], gp) < 0 {
			j++
		}
		switch {
		case j >= len(prev) || prev[j].TopicPartition != gp.TopicPartition:
			out[i] = commitMark{offset: gp.Committed}
		case marks[j].offset != gp.Committed:
			out[i] = commitMark{offset: gp.Committed, at: at}
		default:
			out[i] = marks[j]
		}
	}
	return out
}

// samePartitions says whether a and b are of the same topic-partitions in
// the same order.
func samePartitions(a, b []model.GroupPartition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].TopicPartition != b[i].TopicPartition {
			return false
		}
	}
	return true
}

// GroupsPolled reports whether a poll of the sink groups has been
// recorded: until then, a sink known only by its connect-* group (or by a
// group the config topic names) has no row.
func (s *Store) GroupsPolled() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.groups != nil
}

// GroupPollOf is the last poll of group (the lag poller's) and when it
// was made; false when the group was not polled. Its Partitions are the
// Store's, sorted by topic-partition: read them, never write them.
func (s *Store) GroupPollOf(group string) (model.GroupPoll, time.Time, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	g := s.groups[group]
	if g == nil {
		return model.GroupPoll{}, time.Time{}, false
	}
	return g.poll, g.at, true
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
	// Both sorted by topic-partition: a merge.
	j := 0
	for _, gp := range p.Partitions {
		for j < len(prev.Partitions) && compareGroupPartitions(prev.Partitions[j], gp) < 0 {
			j++
		}
		if j < len(prev.Partitions) && prev.Partitions[j].TopicPartition == gp.TopicPartition && gp.End < prev.Partitions[j].End {
			return fmt.Sprintf("%s ends at offset %d, was %d: the topic was recreated", gp.TopicPartition, gp.End, prev.Partitions[j].End)
		}
	}
	return ""
}

func (g *sinkGroup) summary() model.SinkSummary {
	s := model.SinkSummary{Group: g.poll.Group, State: g.poll.State, Members: g.poll.Members, Clients: g.poll.Clients, Partitions: len(g.poll.Partitions), Err: g.poll.Err, At: g.at,
		Reloaded: g.reloaded, ReloadReason: g.reloadWhy}
	s.TotalLag, s.LastCommit = g.totalLag, g.lastCommit
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
	rows := make([]model.SinkPartitionRow, len(g.poll.Partitions))
	checks, all := s.sinkResume(group)
	for i, p := range g.poll.Partitions { // sorted by SetGroups
		rows[i] = model.SinkPartitionRow{GroupPartition: p, Lag: p.Lag(), CommittedAt: g.committed[i].at}
		switch {
		case checks != nil:
			rows[i].Resume = checks.of(p.Topic + "/" + strconv.Itoa(p.Partition))
		case all != nil:
			rows[i].Resume = all
		}
	}
	return rows
}
