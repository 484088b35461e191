// Package metrics exports what koff knows of Connect offsets to
// Prometheus: per connector its flush judgement, unflushed records,
// partitions and suspect keys, REST state and tasks; per sink its lag; the
// Tailer's state; koff's own edits. It reads the Store's snapshots on each
// scrape and keeps nothing between scrapes.
package metrics

import (
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"koff/model"
)

// Store is what a scrape reads: *store.Store.
type Store interface {
	Connectors() []model.ConnectorRow
	SinkPartitions(group string) []model.SinkPartitionRow
	Stats() model.Stats
	REST() model.RESTStatus
}

// Options configure a Collector.
type Options struct {
	Store Store
	// FlushInterval is --flush-interval (0: estimated), as koff status and
	// the dashboard judge flushes with it.
	FlushInterval time.Duration
	// SinkPartitionLimit bounds the per-partition series of sinks: they
	// are exported while all sinks together have at most this many
	// partitions (0: never). Per-connector aggregates are always exported.
	SinkPartitionLimit int
	// REST: koff was given a Connect REST URL (koff_connect_rest_up).
	REST bool
	// Edits counts koff's edits of this cluster by outcome (the audit
	// log's result words); nil: none exported.
	Edits func() map[string]int
	Now   func() time.Time
}

// Collector is a prometheus.Collector over a Store.
type Collector struct{ o Options }

// New returns a Collector; register it on a prometheus.Registry.
func New(o Options) *Collector {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Collector{o: o}
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// Collect reads one snapshot of the Store and sends its metrics.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	now := c.o.Now()
	rows := c.o.Store.Connectors()
	// A name and offsets topic is one row; should two rows ever share them
	// (a sink by its group and by the config topic), the first is shown:
	// a scrape with a series twice would fail whole.
	seen := make(map[model.ConnectorID]bool, len(rows))
	for i := range rows {
		if seen[rows[i].ID] {
			continue
		}
		seen[rows[i].ID] = true
		c.connector(ch, &rows[i], now)
	}
	c.sinkPartitions(ch, rows)
	c.tailer(ch, c.o.Store.Stats())
	if c.o.REST {
		r := c.o.Store.REST()
		gauge(ch, restUp, bool01(r.Err == "" && !r.At.IsZero()))
	}
	if c.o.Edits != nil {
		for result, n := range c.o.Edits() {
			ch <- prometheus.MustNewConstMetric(edits, prometheus.CounterValue, float64(n), result)
		}
	}
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// flushStatuses are every model.FlushStatus: one series each, 0 or 1, so
// an alert on one status sees it end.
var flushStatuses = []model.FlushStatus{model.FlushOK, model.FlushLate, model.FlushStalled, model.FlushIdle, model.FlushUnknown}

// restStates are Connect's connector states.
var restStates = []string{"RUNNING", "PAUSED", "STOPPED", "FAILED", "UNASSIGNED", "RESTARTING"}

func (c *Collector) connector(ch chan<- prometheus.Metric, r *model.ConnectorRow, now time.Time) {
	name, topic := r.ID.Name, r.ID.Topic
	gauge(ch, connectorInfo, 1, name, topic, r.Type, r.OwnTopic)
	if r.InREST && r.RESTStale == "" {
		for _, st := range restStates {
			gauge(ch, restState, bool01(r.REST.State == st), name, topic, st)
		}
		failed := 0
		for _, t := range r.REST.Tasks {
			if t.State == "FAILED" {
				failed++
			}
		}
		gauge(ch, tasks, float64(len(r.REST.Tasks)), name, topic)
		gauge(ch, failedTasks, float64(failed), name, topic)
	}
	if r.Type == "sink" {
		c.sink(ch, r)
		return
	}
	// The judgement koff status prints (model.ConnectorRow.Flush).
	rep := r.Flush(now, c.o.FlushInterval)
	for _, st := range flushStatuses {
		gauge(ch, flushStatus, bool01(rep.Status == st), name, topic, string(st))
	}
	gauge(ch, flushInterval, rep.Interval.Seconds(), name, topic)
	if !rep.Last.IsZero() {
		gauge(ch, lastFlush, float64(rep.Last.UnixMilli())/1e3, name, topic)
		gauge(ch, flushAge, rep.Age.Seconds(), name, topic)
	}
	if rep.Unflushed >= 0 {
		gauge(ch, unflushed, float64(rep.Unflushed), name, topic)
		gauge(ch, unflushedShared, float64(rep.Shared), name, topic)
	}
	gauge(ch, partitions, float64(r.Partitions), name, topic)
	gauge(ch, deletedPartitions, float64(r.Deleted), name, topic)
	gauge(ch, noOffsetPartitions, float64(r.NoOffset), name, topic)
	gauge(ch, suspect, float64(r.Suspect), name, topic)
	stray := 0
	if !r.Authoritative() {
		// Every copy here is one the connector's tasks never read.
		stray = r.Partitions + r.NoOffset
	}
	gauge(ch, strayCopies, float64(stray), name, topic)
	gauge(ch, records, float64(r.Records), name, topic)
}

func (c *Collector) sink(ch chan<- prometheus.Metric, r *model.ConnectorRow) {
	s := r.Sink
	if s == nil || s.At.IsZero() {
		return // its group not polled yet
	}
	name, group := r.ID.Name, s.Group
	gauge(ch, sinkLag, float64(s.TotalLag), name, group)
	gauge(ch, sinkPartitions, float64(s.Partitions), name, group)
	gauge(ch, sinkMembers, float64(s.Members), name, group)
	if s.Trend != "" {
		gauge(ch, sinkLagRate, s.Rate, name, group)
	}
	if s.Trend == "shrinking" && s.CatchUp > 0 {
		gauge(ch, sinkCatchUp, s.CatchUp.Seconds(), name, group)
	}
	if !s.LastCommit.IsZero() {
		gauge(ch, sinkLastCommit, float64(s.LastCommit.UnixMilli())/1e3, name, group)
	}
}

// sinkPartitions exports each sink partition while all sinks together
// have at most SinkPartitionLimit: past it, a scrape would grow with the
// topics' partitions.
func (c *Collector) sinkPartitions(ch chan<- prometheus.Metric, rows []model.ConnectorRow) {
	total := 0
	for _, r := range rows {
		if r.Type == "sink" && r.Sink != nil {
			total += r.Sink.Partitions
		}
	}
	limited := total > c.o.SinkPartitionLimit
	gauge(ch, sinkPartitionsLimited, bool01(limited && total > 0))
	if limited {
		return
	}
	seen := map[model.ConnectorID]bool{}
	for _, r := range rows {
		if r.Type != "sink" || r.Sink == nil || r.Sink.Partitions == 0 || seen[r.ID] {
			continue
		}
		seen[r.ID] = true
		name, group := r.ID.Name, r.Sink.Group
		for _, p := range c.o.Store.SinkPartitions(group) {
			part := strconv.Itoa(p.Partition)
			if p.Committed >= 0 {
				gauge(ch, partCommitted, float64(p.Committed), name, group, p.Topic, part)
			}
			gauge(ch, partEnd, float64(p.End), name, group, p.Topic, part)
			gauge(ch, partLag, float64(p.Lag), name, group, p.Topic, part)
		}
	}
}

// tailStates are the Tailer's states as label values.
var tailStates = []model.TailState{model.TailConnecting, model.TailWaitingForTopic, model.TailCatchingUp, model.TailLive, model.TailDisconnected, model.TailStalled}

func stateLabel(s model.TailState) string { return strings.ReplaceAll(s.String(), " ", "_") }

func (c *Collector) tailer(ch chan<- prometheus.Metric, st model.Stats) {
	for _, s := range tailStates {
		gauge(ch, tailerState, bool01(st.Status.State == s), stateLabel(s))
	}
	since, _ := st.Status.Blind(c.o.Now())
	gauge(ch, tailerBlind, bool01(!since.IsZero()))
	gauge(ch, tailerProgress, st.Status.Progress())
	ch <- prometheus.MustNewConstMetric(recordsRead, prometheus.CounterValue, float64(st.Records))
	ch <- prometheus.MustNewConstMetric(unparseable, prometheus.CounterValue, float64(st.Unparseable))
	gauge(ch, connectors, float64(st.Connectors))
	gauge(ch, sourcePartitions, float64(st.Partitions))
}
