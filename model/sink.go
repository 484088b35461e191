package model

import (
	"slices"
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
	// LeaderEpoch is the committed offset's leader epoch, which a consumer
	// starting from it validates (OffsetsForLeaderEpoch); -1 for none (as
	// Connect's REST API and kafka-consumer-groups commit) or unknown.
	LeaderEpoch int32
	// LeaderEpochNow is the partition leader's epoch when the log was
	// read (Metadata v7), -1 when unknown.
	LeaderEpochNow int32
	// Start and End are the partition's log start and log-end offsets.
	Start, End int64
}

// EpochIsCurrent says that a consumer's validation of the committed
// offset cannot fail, so the broker need not be asked where its epoch
// ends: the epoch is the leader's current one, which ends at the
// leader's log end (OffsetsForLeaderEpoch answers its log end offset),
// at or past End, and the offset is at or before End.
func (p GroupPartition) EpochIsCurrent() bool {
	return p.LeaderEpoch >= 0 && p.LeaderEpoch == p.LeaderEpochNow && p.Committed >= 0 && p.Committed <= p.End
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

type LagPoint struct {
	At  time.Time
	Lag int64
}

const LagHistory = 30

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

// lagTrend is the lag's change per second over the polls of the last
// minute, and whether that is growing, shrinking or steady. A sink that
// keeps up shows a lag that rises between commits and drops at each, and
// the two ends of the window fall anywhere on that saw-tooth, so their
// difference would flip the trend from poll to poll: the median lag of the
// window's first third is compared with that of its last third instead.
// Only a change beyond the saw-tooth's size is a trend, and one, once seen,
// holds until the change falls below half that (prev), so the word and the
// catch-up time do not jump between polls.
func LagTrend(points []LagPoint, prev string) (string, float64) {
	if len(points) < 2 {
		return "", 0
	}
	last := points[len(points)-1]
	window := points
	for i, p := range points {
		if last.At.Sub(p.At) <= time.Minute {
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
		peak = max(peak, p.Lag)
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
func middle(points []LagPoint) time.Time {
	first, last := points[0].At, points[len(points)-1].At
	return first.Add(last.Sub(first) / 2)
}

func medianLag(points []LagPoint) int64 {
	lags := make([]int64, len(points))
	for i, p := range points {
		lags[i] = p.Lag
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
	// Resume is the partition's latest resume check (nil until checked).
	Resume *PartitionResume
}
