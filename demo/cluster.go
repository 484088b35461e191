package demo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"koff/demo/rest"

	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	// OffsetsTopic is the demo worker's offset.storage.topic.
	OffsetsTopic = "connect-offsets"
	// OffsetsPartitions is offset.storage.partitions (Connect's default).
	OffsetsPartitions = 25
)

// Options configure Start.
type Options struct {
	// KafkaListen is the broker's listen address; "127.0.0.1:0" (a free
	// loopback port) when empty.
	KafkaListen string
	// KafkaAdvertise is the address the broker names in metadata when
	// clients reach it through a proxy (tests); KafkaListen's when empty.
	KafkaAdvertise string
	// FlushInterval is the workers' offset.flush.interval.ms; 5s when zero.
	FlushInterval time.Duration
	// StallAfter is when the stalling connector (jdbc-legacy) stops
	// flushing, counted from its task's start; 1m when zero.
	StallAfter time.Duration
	// ConnectListen is where the Connect REST emulator listens, e.g.
	// "127.0.0.1:8083", or "127.0.0.1:0" for a free loopback port; empty:
	// no REST API. See ConnectURL.
	ConnectListen string
	// ConnectVersion is the Connect version the REST emulator reports in
	// GET / and emulates: before 3.5 there is no stop and no offsets
	// endpoint, before 3.6 no PATCH or DELETE of offsets.
	// DefaultConnectVersion when empty.
	ConnectVersion string
	// SASL, when set, makes the broker require SASL; the simulated
	// workers and the REST emulator authenticate as this user too.
	SASL *SASL
	// TLSDir, when set, serves the broker and the REST emulator over TLS
	// with the certificates WriteTLS makes (or finds) in it.
	TLSDir string
	// TLSClientAuth requires client certificates signed by the TLSDir CA
	// on the broker and the REST emulator.
	TLSClientAuth bool
	// ConnectAuth, when set, makes the REST emulator require these
	// credentials (401 otherwise).
	ConnectAuth *rest.ConnectAuth
	// Logf receives diagnostics from many goroutines at once, so it must be
	// safe for concurrent use; nil discards them. The package never prints
	// to stdout or stderr itself.
	Logf func(format string, args ...any)
}

// Cluster is the running demo: an embedded broker and the simulated Connect
// worker whose source and sink connectors write to and read from it.
type Cluster struct {
	broker      *Broker
	w           *worker
	connectors  map[string]*connector
	names       []string
	rest        *rest.Server // nil without Options.ConnectListen
	configTopic string       // config.storage.topic
	sec         *security    // the broker's, which a second Connect cluster's clients need too
	version     string       // the REST emulator's Connect version
	restAuth    *rest.ConnectAuth
	seconds     []*Cluster      // second Connect clusters on this broker (second_connect.go)
	shared      bool            // a second Connect cluster: the broker is not its own to close
	without     map[string]bool // connector classes its workers lack (StartSecondConnect)
	// mu guards connectors and names, which POST and DELETE
	// /connectors change while the cluster runs (create.go).
	mu          sync.RWMutex
	held        sync.Map // paused connector name → offsets its tasks held (pause.go)
	unassigned  sync.Map // stopped connector name → its worker left (LeaveWorker)
	failedTasks sync.Map // failedTask → FailTask made it FAILED

	closed    atomic.Bool
	closeOnce sync.Once
}

// ConnectorInfo describes a simulated connector the way Connect's REST API
// would: class, type, task count and the topics its tasks produce to
// (sources) or consume (sinks).
type ConnectorInfo struct {
	Name   string
	Class  string
	Type   string // "source" or "sink"
	Tasks  int
	Topics []string
	// OffsetsTopic is where a source connector's tasks read their offsets:
	// its own offsets.storage.topic or the worker's. Empty for sinks.
	OffsetsTopic string
	// Group is a sink connector's consumer group: its
	// consumer.override.group.id or connect-<name>. Empty for sources.
	Group string
}

// ErrUnknownConnector is returned for names that are not in Connectors().
var ErrUnknownConnector = errors.New("unknown connector")

// Start starts the broker, creates connect-offsets (25 partitions,
// cleanup.policy=compact) and the data topics, seeds the offsets history and
// the defects, and starts every connector. ctx bounds the start-up only; the
// cluster runs until Close.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = 5 * time.Second
	}
	if opts.StallAfter <= 0 {
		opts.StallAfter = time.Minute
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	sec, err := newSecurity(BrokerOptions{Listen: opts.KafkaListen, SASL: opts.SASL, TLSDir: opts.TLSDir, TLSClientAuth: opts.TLSClientAuth})
	if err != nil {
		return nil, err
	}
	b, err := startBroker(BrokerOptions{Listen: opts.KafkaListen, Logf: logf, Advertise: opts.KafkaAdvertise}, sec)
	if err != nil {
		return nil, err
	}
	c := &Cluster{broker: b, connectors: map[string]*connector{}, configTopic: ConfigTopic, sec: sec,
		version: opts.ConnectVersion, restAuth: opts.ConnectAuth}
	ok := false
	defer func() {
		if !ok {
			c.Close()
		}
	}()

	compact := map[string]string{"cleanup.policy": "compact"}
	if err := b.createTopic(ctx, OffsetsTopic, OffsetsPartitions, compact); err != nil {
		return nil, err
	}
	start := time.Now()
	specs := catalogue(start, opts.FlushInterval)
	for _, s := range specs {
		// Connect creates a connector's own offsets topic with the
		// worker's offset.storage.* settings when the connector starts.
		if s.offsetsTopic != "" && s.offsetsTopic != OffsetsTopic {
			if err := b.createTopic(ctx, s.offsetsTopic, OffsetsPartitions, compact); err != nil {
				return nil, err
			}
		}
	}
	w := &worker{
		bootstrap:         b.Bootstrap(),
		offsetsTopic:      OffsetsTopic,
		offsetsPartitions: OffsetsPartitions,
		topicPartitions:   map[string]int{},
		flushInterval:     opts.FlushInterval,
		pollInterval:      min(max(opts.FlushInterval/4, 20*time.Millisecond), 500*time.Millisecond),
		stallAfter:        opts.StallAfter,
		epoch:             start,
		logf:              logf,
		security:          sec.client,
	}
	for _, s := range specs {
		for _, t := range s.topics {
			if err := b.createTopic(ctx, t.name, t.partitions, nil); err != nil {
				return nil, err
			}
			w.topicPartitions[t.name] = t.partitions
		}
		w.totalTasks += len(s.tasks)
	}
	w.client, err = kgo.NewClient(w.clientOpts(
		// Connect computes nothing itself, but its producer's default
		// partitioner is murmur2; we set every partition explicitly.
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(kgo.NoCompression()), // compression.type=none, Connect's default
		kgo.WithLogger(kgoLogger{logf}),
	)...)
	if err != nil {
		return nil, fmt.Errorf("producer: %w", err)
	}
	c.w = w

	seed := historyRecords(specs, OffsetsTopic, OffsetsPartitions, start)
	seed = append(seed, defectRecords(OffsetsTopic, OffsetsPartitions, start)...)
	seed = append(seed, orphanRecords(OffsetsTopic, OffsetsPartitions, start)...)
	if err := w.client.ProduceSync(ctx, byTime(seed)...).FirstErr(); err != nil {
		return nil, fmt.Errorf("seed the offsets topics: %w", err)
	}
	if err := b.seedOrphanSink(ctx, w.client, start); err != nil {
		return nil, err
	}

	base := 0
	sinkTasks := 0
	for _, s := range append(specs, sinkCatalogue()...) {
		conn := &connector{w: w, spec: s, taskBase: base}
		base += s.taskCount()
		if s.sink != nil {
			conn.sink = &sinkState{consumed: map[string]bool{}}
			sinkTasks += s.taskCount()
		}
		c.connectors[s.name] = conn
		c.names = append(c.names, s.name)
	}
	sort.Strings(c.names)
	if err := c.writeConfigs(ctx); err != nil {
		return nil, fmt.Errorf("write the config topic: %w", err)
	}
	for _, name := range c.names {
		conn := c.connectors[name]
		conn.mu.Lock()
		err := conn.start(ctx)
		conn.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	if opts.ConnectListen != "" {
		if c.rest, err = rest.Start(herder{c}, opts.ConnectListen, opts.ConnectVersion, rest.Security{TLS: sec.server, Auth: opts.ConnectAuth}); err != nil {
			return nil, err
		}
		logf("connect REST on %s (version %s)", c.rest.URL(), c.rest.Version())
	}
	logf("demo cluster on %s: %d connectors, %d tasks, flush every %s", w.bootstrap, len(c.names), w.totalTasks+sinkTasks, w.flushInterval)
	ok = true
	return c, nil
}

// ConnectURL returns the Connect REST emulator's base URL,
// "http://127.0.0.1:PORT", or "" when Options.ConnectListen was empty.
func (c *Cluster) ConnectURL() string {
	if c.rest == nil {
		return ""
	}
	return c.rest.URL()
}

// Bootstrap returns the broker address, "127.0.0.1:PORT".
func (c *Cluster) Bootstrap() string { return c.broker.Bootstrap() }

// OffsetsTopic returns the worker's offsets topic, "connect-offsets" (a
// second Connect cluster's, SecondOffsetsTopic).
func (c *Cluster) OffsetsTopic() string { return c.w.offsetsTopic }

// ConfigTopic returns the workers' config topic, "connect-configs".
func (c *Cluster) ConfigTopic() string { return c.configTopic }

// Broker returns the embedded broker, e.g. to create more topics.
func (c *Cluster) Broker() *Broker { return c.broker }

// OffsetsTopics returns every offsets topic the demo's source connectors
// use: the worker's connect-offsets first, then connectors' own
// (connect-offsets-crm).
func (c *Cluster) OffsetsTopics() []string {
	out := []string{c.w.offsetsTopic}
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, name := range c.names {
		if t := c.connectors[name].spec.offsetsTopic; t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// Connectors returns the names of the connectors that exist in the
// simulated Connect cluster, sources and sinks, sorted. The orphan whose
// offsets outlived it (OrphanConnector) is not one of them.
func (c *Cluster) Connectors() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return append([]string(nil), c.names...)
}

// lookup is the connector of that name, if it exists now.
func (c *Cluster) lookup(name string) (*connector, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	conn, ok := c.connectors[name]
	return conn, ok
}

// Connector describes one connector; ok is false for an unknown name.
func (c *Cluster) Connector(name string) (info ConnectorInfo, ok bool) {
	conn, ok := c.lookup(name)
	if !ok {
		return ConnectorInfo{}, false
	}
	info = ConnectorInfo{
		Name:   name,
		Class:  conn.spec.class,
		Type:   conn.spec.kind(),
		Tasks:  conn.spec.taskCount(),
		Topics: conn.spec.sortedTopics(),
		Group:  conn.spec.group(),
	}
	if conn.spec.sink == nil {
		info.OffsetsTopic = conn.offsetsTopic()
	}
	return info, true
}

// SinkGroup returns a sink connector's consumer group ("es-search-v2",
// "connect-s3-archive"), or "" for a source or an unknown name.
func (c *Cluster) SinkGroup(name string) string {
	if conn, ok := c.lookup(name); ok {
		return conn.spec.group()
	}
	return ""
}

// ConnectorState returns "RUNNING", "PAUSED" or "STOPPED", or "" for an
// unknown name.
func (c *Cluster) ConnectorState(name string) string {
	conn, ok := c.lookup(name)
	if !ok {
		return ""
	}
	conn.mu.Lock()
	defer conn.mu.Unlock()
	return conn.state
}

// StopConnector stops a connector's tasks after a final offset flush, as
// PUT /connectors/NAME/stop does; a sink's tasks make a final commit and
// leave its consumer group, which is then Empty. Stopping a stopped
// connector does nothing; a paused source (whose tasks are already stopped)
// forgets its offsets, so a resume reads them from the topic.
func (c *Cluster) StopConnector(name string) error {
	conn, ok := c.lookup(name)
	if !ok {
		return fmt.Errorf("%w %s", ErrUnknownConnector, name)
	}
	conn.mu.Lock()
	defer conn.mu.Unlock()
	paused := conn.state == statePaused
	c.held.Delete(name)
	if conn.stop() || paused {
		conn.state = stateStopped
		c.w.logf("connector %s stopped", name)
	}
	return c.writeTargetState(name, stateStopped)
}

// ResumeConnector starts a stopped connector's tasks again. They re-read
// their offsets from the offsets topic (exact key bytes, the record read
// last in a Java consumer's order, a tombstone meaning start from scratch), so an offset
// edited while the connector was stopped is where it continues; a sink's
// tasks rejoin its group and continue from its committed offsets. A paused
// connector continues from the offsets its tasks held (see PauseConnector).
// Resuming a running connector does nothing.
func (c *Cluster) ResumeConnector(name string) error {
	conn, ok := c.lookup(name)
	if !ok {
		return fmt.Errorf("%w %s", ErrUnknownConnector, name)
	}
	conn.mu.Lock()
	defer conn.mu.Unlock()
	if c.closed.Load() {
		return errors.New("demo cluster is closed")
	}
	if conn.state == stateRunning {
		return nil
	}
	c.unassigned.Delete(name)
	if err := c.writeTargetState(name, stateStarted); err != nil {
		return err
	}
	var err error
	if conn.state == statePaused {
		err = c.unpause(conn)
	} else {
		err = conn.start(context.Background())
	}
	if err != nil {
		return err
	}
	c.w.logf("connector %s resumed", name)
	return nil
}

// Close stops the REST emulator, every connector (each task flushing its
// offsets one last time), then the broker. It waits for all goroutines and
// frees the ports. It is idempotent.
func (c *Cluster) Close() {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		for _, s := range c.seconds {
			s.Close()
		}
		if c.rest != nil {
			c.rest.Close()
		}
		for _, name := range c.Connectors() {
			conn, _ := c.lookup(name)
			conn.mu.Lock()
			conn.stop()
			conn.mu.Unlock()
		}
		if c.w != nil && c.w.client != nil {
			c.w.client.Close()
		}
		if !c.shared {
			c.broker.Close()
		}
	})
}
