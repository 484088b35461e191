package model

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// GroupPoll is one poll of a sink connector's consumer group.
type GroupPoll struct {
	Group string
	// State is the group's state as the broker says it (Stable, Empty,
	// PreparingRebalance, CompletingRebalance, Dead).
	State   string
	Members int
	// Clients are the members' client ids and hosts (client@host).
	Clients    []string
	Partitions []GroupPartition
	// Err is the poll's error in one line ("" when it worked).
	Err string
	// ClusterID is the id of the cluster that answered the poll ("" when
	// unknown): another id means another cluster at the same address.
	ClusterID string
}

// GroupPartition is one topic-partition a group has committed an offset for.
type GroupPartition struct {
	TopicPartition
	// Committed is the next offset the sink will consume; -1 for none.
	Committed int64
	// Start and End are the partition's log start and log-end offsets.
	Start, End int64
}

// Lag is End − Committed (End − Start when nothing is committed).
func (p GroupPartition) Lag() int64 {
	c := p.Committed
	if c < 0 {
		c = p.Start
	}
	return max(p.End-c, 0)
}

// SinkGroupName is the consumer group of a sink connector: its
// consumer.override.group.id, else connect-<name>.
func SinkGroupName(name string, config map[string]string) string {
	if g := strings.TrimSpace(config["consumer.override.group.id"]); g != "" {
		return g
	}
	return "connect-" + name
}

type sinkGroup struct {
	poll      GroupPoll
	at        time.Time
	committed map[TopicPartition]commitMark
	lag       []lagPoint // ring of total lag per poll, oldest first
	trend     string     // lagTrend of lag, kept for its hysteresis
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

type lagPoint struct {
	at  time.Time
	lag int64
}

const lagHistory = 30

// SetGroups records a poll of sink consumer groups at time at. The commit
// age of a partition is derived from when its committed offset last moved.
func (s *Store) SetGroups(at time.Time, polls []GroupPoll) {
	s.mu.Lock()
	if s.groups == nil {
		s.groups = map[string]*sinkGroup{}
	}
	seen := map[string]bool{}
	for _, p := range polls {
		seen[p.Group] = true
		g := s.groups[p.Group]
		if g == nil {
			g = &sinkGroup{committed: map[TopicPartition]commitMark{}}
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
			g.committed, g.lag, g.trend, g.rate = map[TopicPartition]commitMark{}, nil, "", 0
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
		if len(g.lag) >= lagHistory {
			g.lag = g.lag[1:]
		}
		g.lag = append(g.lag, lagPoint{at: at, lag: total})
		g.trend, g.rate = lagTrend(g.lag, g.trend)
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
			out = append(out, SinkGroupName(name, c.Config))
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

// SinkSummary is a sink connector's lag at a glance.
type SinkSummary struct {
	Group      string
	State      string
	Members    int
	Partitions int
	TotalLag   int64
	// LastCommit is when any partition's committed offset was last seen to
	// move (zero until koff has seen one move).
	LastCommit time.Time
	Clients    []string
	// Trend is shrinking, growing or steady over recent polls ("" until
	// there are two); Rate is the lag's change per second.
	Trend string
	Rate  float64
	// CatchUp is the time to reach zero lag at the current rate, when
	// shrinking (0 otherwise).
	CatchUp time.Duration
	Err     string
	At      time.Time
	// Reloaded is when koff last threw away the group's history (commit
	// ages, lag trend) because the cluster or a topic was not the one it
	// had polled, and ReloadReason why; zero if never.
	Reloaded     time.Time
	ReloadReason string
}

// notTheSame says why a poll is not of the log the group's history was
// read from: another cluster id, or a topic-partition whose end offset went
// backwards (deleted and created again). Offsets only grow otherwise.
func (g *sinkGroup) notTheSame(p GroupPoll) string {
	prev := g.poll
	if prev.ClusterID != "" && p.ClusterID != "" && prev.ClusterID != p.ClusterID {
		return "a different cluster answers (cluster id " + p.ClusterID + ", was " + prev.ClusterID + ")"
	}
	ends := make(map[TopicPartition]int64, len(prev.Partitions))
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

func (g *sinkGroup) summary() SinkSummary {
	s := SinkSummary{Group: g.poll.Group, State: g.poll.State, Members: g.poll.Members, Clients: g.poll.Clients, Partitions: len(g.poll.Partitions), Err: g.poll.Err, At: g.at,
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

// lagTrend is the lag's change per second over the polls of the last
// minute, and whether that is growing, shrinking or steady. A sink that
// keeps up shows a lag that rises between commits and drops at each, and
// the two ends of the window fall anywhere on that saw-tooth, so their
// difference would flip the trend from poll to poll: the median lag of the
// window's first third is compared with that of its last third instead.
// Only a change beyond the saw-tooth's size is a trend, and one, once seen,
// holds until the change falls below half that (prev), so the word and the
// catch-up time do not jump between polls.
func lagTrend(points []lagPoint, prev string) (string, float64) {
	if len(points) < 2 {
		return "", 0
	}
	last := points[len(points)-1]
	window := points
	for i, p := range points {
		if last.at.Sub(p.at) <= time.Minute {
			window = points[i:]
			break
		}
	}
	if len(window) < 2 {
		return "", 0
	}
	k := max(1, len(window)/3)
	head, tail := window[:k], window[len(window)-k:]
	secs := middle(tail).Sub(middle(head)).Seconds()
	if secs <= 0 {
		return "", 0
	}
	d := float64(medianLag(tail) - medianLag(head))
	rate := d / secs
	var peak int64
	for _, p := range window {
		peak = max(peak, p.lag)
	}
	tol := max(20, float64(peak)/4)
	switch {
	case d > tol, prev == "growing" && d > tol/2:
		return "growing", rate
	case d < -tol, prev == "shrinking" && d < -tol/2:
		return "shrinking", rate
	}
	return "steady", rate
}

// middle is the time halfway through points.
func middle(points []lagPoint) time.Time {
	first, last := points[0].at, points[len(points)-1].at
	return first.Add(last.Sub(first) / 2)
}

func medianLag(points []lagPoint) int64 {
	lags := make([]int64, len(points))
	for i, p := range points {
		lags[i] = p.lag
	}
	slices.Sort(lags)
	return lags[len(lags)/2]
}

// SinkPartitionRow is one topic-partition of a sink connector.
type SinkPartitionRow struct {
	GroupPartition
	Lag int64
	// CommittedAt is when the committed offset was last seen to move (zero
	// until koff has seen it move).
	CommittedAt time.Time
}

// SinkPartitions returns a group's partitions, sorted by topic-partition.
func (s *Store) SinkPartitions(group string) []SinkPartitionRow {
	s.mu.RLock()
	defer s.mu.RUnlock()
	g := s.groups[group]
	if g == nil {
		return nil
	}
	rows := make([]SinkPartitionRow, 0, len(g.poll.Partitions))
	for _, p := range g.poll.Partitions {
		rows = append(rows, SinkPartitionRow{GroupPartition: p, Lag: p.Lag(), CommittedAt: g.committed[p.TopicPartition].at})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Topic != rows[j].Topic {
			return rows[i].Topic < rows[j].Topic
		}
		return rows[i].Partition < rows[j].Partition
	})
	return rows
}
