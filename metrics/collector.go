// Package metrics exports what koff knows of Connect offsets to
// Prometheus: per connector its flush judgement, unflushed records,
// partitions and suspect keys, REST state and tasks, and whether it would
// resume where its offsets say (the resume check); per sink its lag; the
// Tailer's state and the offsets topics it misses; koff's own edits. It
// reads the Store's snapshots on each scrape; between scrapes it keeps
// only what makes its counters count for the whole process.
package metrics

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
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
	// ResumeChecked is when the latest resume check was made (zero
	// before one).
	ResumeChecked() time.Time
}

// EditCount names one count of koff_edits_total: an audit log entry's
// kind (set, reset, import, stop, …) and outcome.
type EditCount struct{ Kind, Result string }

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
	// ConnectorLimit bounds the per-connector series: past it, the
	// connectors that need attention first, then by name (see pick); 0:
	// every one.
	ConnectorLimit int
	// REST: koff was given a Connect REST URL (koff_connect_rest_up).
	REST bool
	// Edits counts koff's edits of this cluster by kind and outcome (the
	// audit log's words); nil: none exported.
	Edits func() map[EditCount]int
	// Version is koff's version, for koff_build_info.
	Version string
	Now     func() time.Time
	// Logf says why a series was left out (a bug: it is counted in
	// koff_scrape_errors_total too); nil: nowhere.
	Logf func(format string, args ...any)
}

// Collector is a prometheus.Collector over a Store.
type Collector struct {
	o      Options
	readMu sync.Mutex
	life   lifetime
	// errors counts series left out since start (koff_scrape_errors_total).
	errMu  sync.Mutex
	errors int
}

// MaxSinkPartitionSeries caps SinkPartitionLimit (--metrics-sink-partitions):
// three series a partition, past it a scrape nears Prometheus' default
// 10 s scrape timeout on a busy host.
const MaxSinkPartitionSeries = 20_000

// New returns a Collector; register it on a prometheus.Registry.
func New(o Options) *Collector {
	o.SinkPartitionLimit = min(o.SinkPartitionLimit, MaxSinkPartitionSeries)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return &Collector{o: o}
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// Collect reads one snapshot of the Store and sends its metrics. A row
// that cannot be exported costs its own series and no other's.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	e := &emitter{ch: ch, c: c}
	now := c.o.Now()
	// One scrape reads the Store and counts on from it at a time: two
	// interleaved would take each other's counts for a reload.
	var (
		st          model.Stats
		read, unp   float64
		all         []model.ConnectorRow
		stOK, allOK bool
	)
	c.readMu.Lock()
	e.guard("tailer", func() {
		st = c.o.Store.Stats()
		read, unp = c.life.add("\x00read", float64(st.Records)), c.life.add("\x00unparseable", float64(st.Unparseable))
		stOK = true
	})
	e.guard("connectors", func() {
		all = c.o.Store.Connectors()
		c.lifetimeRecords(all)
		allOK = true
	})
	c.readMu.Unlock()
	blind := false
	if stOK {
		_, why := st.Status.Blind(now)
		blind = why != ""
		e.guard("tailer", func() { c.tailer(e, st, read, unp) })
	}
	if !allOK {
		all = nil
	}
	picked, total, flushCounts, resumeCounts := c.pick(all, now)
	for i := range picked {
		e.guard("connector "+picked[i].name, func() { c.connector(e, &picked[i], blind) })
	}
	e.gauge(connectorsLimited, bool01(len(picked) < total))
	e.gauge(connectorsLeftOut, float64(total-len(picked)))
	for _, s := range flushStatuses {
		e.gauge(connectorsByFlush, float64(flushCounts[s]), string(s))
	}
	for _, s := range resumeStates {
		e.gauge(connectorsByResume, float64(resumeCounts[s]), string(s))
	}
	e.guard("resume check", func() {
		if at := c.o.Store.ResumeChecked(); !at.IsZero() {
			e.gauge(resumeChecked, float64(at.UnixMilli())/1e3)
		}
	})
	e.guard("sink partitions", func() { c.sinkPartitions(e, picked) })
	if c.o.REST {
		e.guard("rest", func() {
			r := c.o.Store.REST()
			e.gauge(restUp, bool01(r.Err == "" && !r.At.IsZero()))
		})
	}
	if c.o.Edits != nil {
		e.guard("edits", func() {
			for k, n := range c.o.Edits() {
				e.counter(edits, float64(n), label(k.Kind), label(k.Result))
			}
		})
	}
	version := c.o.Version
	if version == "" {
		version = "unknown"
	}
	e.gauge(buildInfo, 1, label(version), build.revision, build.goVersion)
	c.errMu.Lock()
	n := c.errors
	c.errMu.Unlock()
	e.counter(scrapeErrors, float64(n))
}

// emitter sends a scrape's series; one it cannot make (a label value
// client_golang refuses) is logged, counted and left out, never a panic
// that would fail the whole scrape.
type emitter struct {
	ch chan<- prometheus.Metric
	c  *Collector
}

func (e *emitter) send(d *prometheus.Desc, t prometheus.ValueType, v float64, labels []string) {
	m, err := prometheus.NewConstMetric(d, t, v, labels...)
	if err != nil {
		e.c.failed(fmt.Sprintf("%v", err))
		return
	}
	e.ch <- m
}

func (e *emitter) gauge(d *prometheus.Desc, v float64, labels ...string) {
	e.send(d, prometheus.GaugeValue, v, labels)
}

func (e *emitter) counter(d *prometheus.Desc, v float64, labels ...string) {
	e.send(d, prometheus.CounterValue, v, labels)
}

// guard runs f, turning a panic into a logged, counted error: what f
// sent before it stays.
func (e *emitter) guard(what string, f func()) {
	defer func() {
		if r := recover(); r != nil {
			e.c.failed(fmt.Sprintf("%s: %v", what, r))
		}
	}()
	f()
}

func (c *Collector) failed(why string) {
	c.errMu.Lock()
	c.errors++
	c.errMu.Unlock()
	c.o.Logf("metrics: series left out of the scrape: %s", why)
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

func (c *Collector) connector(e *emitter, p *picked, blind bool) {
	r := p.row
	name, topic := p.name, p.topic
	e.gauge(connectorInfo, 1, name, topic, label(r.Type), label(r.OwnTopic))
	if r.InREST && r.RESTStale == "" {
		for _, st := range restStates {
			e.gauge(restState, bool01(r.REST.State == st), name, topic, st)
		}
		e.gauge(tasks, float64(len(r.REST.Tasks)), name, topic)
		e.gauge(failedTasks, float64(p.failed), name, topic)
	}
	c.resume(e, r.Resume, name, topic)
	if r.Type == "sink" {
		c.sink(e, r, name)
		return
	}
	// The judgement koff status prints (model.ConnectorRow.Flush).
	rep := p.flush
	for _, st := range flushStatuses {
		e.gauge(flushStatus, bool01(rep.Status == st), name, topic, string(st))
	}
	e.gauge(flushInterval, rep.Interval.Seconds(), name, topic)
	if !rep.Last.IsZero() {
		// The newest flush koff saw stays true while it is blind ...
		e.gauge(lastFlush, float64(rep.Last.UnixMilli())/1e3, name, topic)
		if !blind {
			// ... its age and the records since would only say how long
			// koff has not looked: left out, they go stale in Prometheus.
			e.gauge(flushAge, rep.Age.Seconds(), name, topic)
		}
	}
	if rep.Unflushed >= 0 && !blind {
		e.gauge(unflushed, float64(rep.Unflushed), name, topic)
		e.gauge(unflushedShared, float64(rep.Shared), name, topic)
	}
	e.gauge(partitions, float64(r.Partitions), name, topic)
	e.gauge(deletedPartitions, float64(r.Deleted), name, topic)
	e.gauge(noOffsetPartitions, float64(r.NoOffset), name, topic)
	e.gauge(suspect, float64(r.Suspect), name, topic)
	e.gauge(strayCopies, float64(p.stray), name, topic)
	e.counter(records, c.life.get(p.key), name, topic)
}

func (c *Collector) sink(e *emitter, r *model.ConnectorRow, name string) {
	s := r.Sink
	if s == nil || s.At.IsZero() {
		return // its group not polled yet
	}
	group := label(s.Group)
	// While its polls fail the Store keeps the last good poll's numbers:
	// left out, Prometheus marks them stale rather than flat.
	if s.Err == "" {
		e.gauge(sinkLag, float64(s.TotalLag), name, group)
		e.gauge(sinkPartitions, float64(s.Partitions), name, group)
		e.gauge(sinkMembers, float64(s.Members), name, group)
		if s.Trend != "" {
			e.gauge(sinkLagRate, s.Rate, name, group)
		}
		if s.Trend == "shrinking" && s.CatchUp > 0 {
			e.gauge(sinkCatchUp, s.CatchUp.Seconds(), name, group)
		}
	}
	if !s.LastCommit.IsZero() {
		e.gauge(sinkLastCommit, float64(s.LastCommit.UnixMilli())/1e3, name, group)
	}
}

// sinkPartitions exports each partition of the sinks exported while they
// together have at most SinkPartitionLimit: past it, a scrape would grow
// with the topics' partitions.
func (c *Collector) sinkPartitions(e *emitter, rows []picked) {
	total := 0
	for _, p := range rows {
		if p.row.Type == "sink" && p.row.Sink != nil {
			total += p.row.Sink.Partitions
		}
	}
	limited := total > c.o.SinkPartitionLimit
	e.gauge(sinkPartitionsLimited, bool01(limited && total > 0))
	if limited {
		return
	}
	seen := map[string]bool{}
	for _, p := range rows {
		r := p.row
		if r.Type != "sink" || r.Sink == nil || r.Sink.Partitions == 0 || r.Sink.Err != "" || seen[p.name] {
			continue
		}
		seen[p.name] = true
		group := label(r.Sink.Group)
		for _, sp := range c.o.Store.SinkPartitions(r.Sink.Group) {
			part, topic := strconv.Itoa(sp.Partition), label(sp.Topic)
			if sp.Committed >= 0 {
				e.gauge(partCommitted, float64(sp.Committed), p.name, group, topic, part)
			}
			e.gauge(partEnd, float64(sp.End), p.name, group, topic, part)
			e.gauge(partLag, float64(sp.Lag), p.name, group, topic, part)
		}
	}
}

// tailStates are the Tailer's states as label values.
var tailStates = []model.TailState{model.TailConnecting, model.TailWaitingForTopic, model.TailCatchingUp, model.TailLive, model.TailDisconnected, model.TailStalled}

func stateLabel(s model.TailState) string { return strings.ReplaceAll(s.String(), " ", "_") }

func (c *Collector) tailer(e *emitter, st model.Stats, read, unp float64) {
	for _, s := range tailStates {
		e.gauge(tailerState, bool01(st.Status.State == s), stateLabel(s))
	}
	since, _ := st.Status.Blind(c.o.Now())
	e.gauge(tailerBlind, bool01(!since.IsZero()))
	e.gauge(tailerProgress, st.Status.Progress())
	e.counter(recordsRead, read)
	e.counter(unparseable, unp)
	e.counter(reloads, float64(st.Status.Reloads))
	e.gauge(connectors, float64(st.Connectors))
	e.gauge(sourcePartitions, float64(st.Partitions))
	// Every offsets topic koff reads or looks for: 1 while it is absent,
	// and deleted while koff had read it.
	missing, deleted := map[string]bool{}, map[string]bool{}
	for _, t := range st.Status.MissingTopics() {
		missing[t] = true
	}
	for _, t := range st.Status.DeletedTopics() {
		deleted[t] = true
	}
	topics := map[string]bool{}
	for t := range st.Topics {
		topics[t] = true
	}
	for t := range missing {
		topics[t] = true
	}
	for t := range deleted {
		topics[t] = true
	}
	for t := range topics {
		e.gauge(topicMissing, bool01(missing[t] || deleted[t]), label(t))
		e.gauge(topicDeleted, bool01(deleted[t]), label(t))
	}
}
