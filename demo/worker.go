package demo

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"koff/model"
	"koff/model/java"
)

// flushTimeout is offset.flush.timeout.ms (Connect's default, 5 s): how long
// a flush may take before it is abandoned and retried at the next interval.
const flushTimeout = 5 * time.Second

// maxPerPoll caps one poll so a task that fell behind catches up gradually.
const maxPerPoll = 200

const (
	stateRunning = "RUNNING"
	stateStopped = "STOPPED"
)

// worker is the simulated Connect worker: it runs every connector's tasks
// with one producer for data and offset records, as a worker's tasks and its
// offset store share a cluster.
type worker struct {
	bootstrap         string
	client            *kgo.Client // explicit partitions only (ManualPartitioner)
	offsetsTopic      string
	offsetsPartitions int
	topicMu           sync.RWMutex // guards topicPartitions: a connector created later adds its topics
	topicPartitions   map[string]int
	flushInterval     time.Duration
	pollInterval      time.Duration
	stallAfter        time.Duration
	epoch             time.Time // the activity clock starts here
	totalTasks        int
	logf              func(string, ...any)
	security          []kgo.Opt // SASL and TLS options every demo client needs (security.go)
}

// connector is one running, paused or stopped connector.
type connector struct {
	w        *worker
	spec     connectorSpec
	taskBase int // index of its first task among all the worker's tasks

	mu       sync.Mutex
	state    string
	restarts int
	cancel   context.CancelFunc // non-nil while its tasks run
	wg       sync.WaitGroup

	sink *sinkState // sinks only
	// created is the config a connector created over REST was given
	// (name included), which GET config shows as it was sent; nil for
	// the catalogue's.
	created map[string]string
}

// config is the connector's configuration as GET /connectors/NAME/config
// shows it.
func (c *connector) config(bootstrap string) map[string]string {
	if c.created != nil {
		return maps.Clone(c.created)
	}
	return connectConfig(c.spec, bootstrap)
}

// partitionsOf is how many partitions a data topic has.
func (w *worker) partitionsOf(topic string) int {
	w.topicMu.RLock()
	defer w.topicMu.RUnlock()
	return w.topicPartitions[topic]
}

// offsetsTopic is where the connector's tasks read and write their
// offsets: its own offsets.storage.topic, or the worker's.
func (c *connector) offsetsTopic() string {
	if c.spec.offsetsTopic != "" {
		return c.spec.offsetsTopic
	}
	return c.w.offsetsTopic
}

func (c *connector) keys() [][]byte {
	var keys [][]byte
	for _, parts := range c.spec.tasks {
		for _, p := range parts {
			keys = append(keys, java.EncodeKey(c.spec.name, p.partition))
		}
	}
	return keys
}

// start reads the connector's committed offsets back from its offsets topic
// and starts its tasks from them, as a task does in SourceTask.start through
// its OffsetStorageReader; a sink's tasks join its consumer group instead.
// Callers hold c.mu.
func (c *connector) start(ctx context.Context) error {
	if c.spec.sink != nil {
		return c.startSink()
	}
	// A connector with its own topic reads only that one: the connector
	// store answers for every key, null when it has none (own_topic.go).
	offsets, err := c.w.readOffsets(ctx, c.offsetsTopic(), c.keys())
	if err != nil {
		return fmt.Errorf("connector %s: %w", c.spec.name, err)
	}
	c.startTasks(offsets)
	return nil
}

// startTasks starts the connector's tasks from the given committed offsets
// (raw value bytes by key). Callers hold c.mu.
func (c *connector) startTasks(offsets map[string][]byte) {
	runCtx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	for i, parts := range c.spec.tasks {
		t := c.newTask(i, parts, offsets)
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			t.run(runCtx)
		}()
	}
	c.state = stateRunning
	c.restarts++
}

// stop stops the tasks and waits for their final offset flush (or commit,
// for a sink, which then leaves its group), as WorkerSourceTask and
// WorkerSinkTask do when a connector is stopped. It reports whether the
// tasks were running. Callers hold c.mu.
func (c *connector) stop() bool {
	if c.cancel == nil {
		return false
	}
	c.cancel()
	c.wg.Wait()
	c.cancel = nil
	c.state = stateStopped
	return true
}

// task is one source task: a few source partitions, their in-memory
// offsets, and its own flush schedule.
type task struct {
	c          *connector
	id         string // "<connector>-<n>", Connect's task id
	parts      []*taskPartition
	rng        *rand.Rand
	started    time.Time
	firstFlush time.Duration
	stallShown bool
}

// taskPartition is one source partition as a task tracks it.
type taskPartition struct {
	spec   *partitionSpec
	key    []byte // exact key bytes: the task writes and looks up only these
	src    source
	credit float64
	// pending is the offset of the newest acknowledged record not yet
	// flushed; nil when the partition had no new records since the last
	// flush, so the flush writes nothing for it.
	pending java.Object
	spread  int32 // round-robin partition for keyless data records
}

func (c *connector) newTask(n int, specs []partitionSpec, offsets map[string][]byte) *task {
	w := c.w
	global := c.taskBase + n
	t := &task{
		c:       c,
		id:      fmt.Sprintf("%s-%d", c.spec.name, n),
		rng:     rand.New(rand.NewPCG(catalogueSeed, uint64(global)<<16|uint64(c.restarts))),
		started: time.Now(),
		// Stagger the tasks across the first interval so their flushes do
		// not all land together, as tasks started one after another don't.
		firstFlush: w.flushInterval/2 + w.flushInterval*time.Duration(global)/time.Duration(2*max(w.totalTasks, 1)),
	}
	for i := range specs {
		spec := &specs[i]
		tp := &taskPartition{
			spec:   spec,
			key:    java.EncodeKey(c.spec.name, spec.partition),
			src:    spec.newSource(),
			spread: int32(global + i),
		}
		if raw, ok := offsets[string(tp.key)]; ok {
			off, err := model.ParseOffset(raw)
			if err == nil {
				err = tp.src.seek(off)
			}
			if err != nil {
				w.logf("%s: ignoring offset %s for %s: %v; starting from scratch", t.id, raw, tp.key, err)
				tp.src = spec.newSource()
			}
		}
		t.parts = append(t.parts, tp)
	}
	return t
}

func (t *task) run(ctx context.Context) {
	w := t.c.w
	poll := time.NewTicker(w.pollInterval)
	defer poll.Stop()
	// Like SourceTaskOffsetCommitter (scheduleWithFixedDelay), the next
	// flush is due one interval after the previous one ended.
	flush := time.NewTimer(t.firstFlush)
	defer flush.Stop()
	last := t.started
	for {
		select {
		case <-ctx.Done():
			// The final offset commit on stop, bounded by the flush timeout.
			fctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
			t.commit(fctx)
			cancel()
			return
		case <-poll.C:
			now := time.Now()
			t.poll(now, now.Sub(last))
			last = now
		case <-flush.C:
			t.commit(ctx)
			flush.Reset(w.flushInterval)
		}
	}
}

// poll "reads" the source partitions that have new data and produces their
// records. Only acknowledged records make an offset committable, as in
// WorkerSourceTask's SubmittedRecords.
func (t *task) poll(now time.Time, dt time.Duration) {
	w := t.c.w
	elapsed := now.Sub(w.epoch)
	var recs []*kgo.Record
	var touched []*taskPartition
	for _, p := range t.parts {
		n := min(p.spec.activity.due(elapsed, dt, &p.credit, t.rng), maxPerPoll)
		for range n {
			recs = append(recs, t.dataRecord(p, p.src.next(t.rng, now), now))
		}
		if n > 0 {
			touched = append(touched, p)
		}
	}
	if len(recs) == 0 {
		return
	}
	// Not cancelled by stop: like WorkerSourceTask, a stopping task lets
	// records in flight be acknowledged so its final flush covers them.
	pctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if err := w.client.ProduceSync(pctx, recs...).FirstErr(); err != nil {
		w.logf("%s: failed to send %d records: %v", t.id, len(recs), err)
		return
	}
	for _, p := range touched {
		p.pending = p.src.offset()
	}
}

func (t *task) dataRecord(p *taskPartition, d dataRecord, now time.Time) *kgo.Record {
	n := t.c.w.partitionsOf(d.topic)
	part := d.partition
	switch {
	case part >= 0:
	case d.key != nil:
		part = int32(java.PartitionFor(d.key, n))
	default:
		p.spread = (p.spread + 1) % int32(n)
		part = p.spread
	}
	return &kgo.Record{Topic: d.topic, Partition: part, Key: d.key, Value: d.value, Timestamp: now}
}

// commit flushes offsets like OffsetStorageWriter.doFlush: one record per
// source partition with new acknowledged records since the last flush,
// nothing for the others, and nothing at all when nothing is pending. All
// records of one flush go out in one produce call with one CreateTime.
func (t *task) commit(ctx context.Context) {
	w := t.c.w
	var flushed []*taskPartition
	for _, p := range t.parts {
		if p.pending != nil {
			flushed = append(flushed, p)
		}
	}
	if len(flushed) == 0 {
		return
	}
	if t.c.spec.stalls && time.Since(t.started) >= w.stallAfter {
		// The stalled connector: its producer never drains, so every
		// flush times out while the task keeps sending data.
		if !t.stallShown {
			t.stallShown = true
			w.logf("WorkerSourceTask{id=%s} Failed to flush offsets to storage: timed out; "+
				"will try again on next flush interval with latest offsets", t.id)
		}
		return
	}
	now := time.Now()
	recs := make([]*kgo.Record, 0, len(flushed))
	for _, p := range flushed {
		recs = append(recs, &kgo.Record{
			Topic:     t.c.offsetsTopic(),
			Partition: int32(java.PartitionFor(p.key, w.offsetsPartitions)),
			Key:       p.key,
			Value:     java.AppendJackson(nil, p.pending),
			Timestamp: now,
		})
	}
	fctx, cancel := context.WithTimeout(ctx, flushTimeout)
	defer cancel()
	if err := w.client.ProduceSync(fctx, recs...).FirstErr(); err != nil {
		// cancelFlush: keep the offsets for the next attempt.
		w.logf("WorkerSourceTask{id=%s} Failed to flush offsets to storage: %v; "+
			"will try again on next flush interval with latest offsets", t.id, err)
		return
	}
	for _, p := range flushed {
		p.pending = nil
	}
	t.c.writeSecondary(fctx, recs)
}
