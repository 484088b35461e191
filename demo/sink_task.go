package demo

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"koff/demo/rest"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// sessionTimeout is the consumer's session.timeout.ms (the Java default).
const sessionTimeout = 45 * time.Second

// sinkState is what a sink connector keeps across its tasks' restarts.
// Every sink connector has one from the start.
type sinkState struct {
	// paused: the tasks stay in the group but take no records, as a
	// WorkerSinkTask does with its consumer's partitions paused.
	paused atomic.Bool

	mu       sync.Mutex
	consumed map[string]bool // topic tracking: topics its tasks consumed
}

// consumedTopics lists the topics a sink's tasks have consumed from,
// sorted, as Connect's topic tracking reports them (kept across restarts).
func (c *connector) consumedTopics() []string {
	s := c.sink
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.consumed))
	for t := range s.consumed {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// startSink starts the sink's tasks, each a member of its consumer group
// that continues from the group's committed offsets (from the start of the
// log without any, auto.offset.reset=earliest). Callers hold c.mu.
func (c *connector) startSink() error {
	c.sink.paused.Store(false)
	tasks := make([]*sinkTask, c.spec.sink.tasks)
	for i := range tasks {
		t, err := c.newSinkTask(i)
		if err != nil {
			for _, t := range tasks[:i] {
				t.cl.Close()
			}
			return fmt.Errorf("connector %s: %w", c.spec.name, err)
		}
		tasks[i] = t
	}
	runCtx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	for _, t := range tasks {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			t.run(runCtx)
		}()
	}
	c.state = stateRunning
	c.restarts++
	return nil
}

// sinkTask is one sink task: a consumer in the connector's group that
// "writes" the records it polls and commits what it got through.
type sinkTask struct {
	c   *connector
	id  string // "<connector>-<n>", Connect's task id
	cl  *kgo.Client
	per float64 // records per second this task processes; 0: no limit

	mu        sync.Mutex
	current   map[topicPartition]int64 // next offset to consume, per partition it consumed from
	committed map[topicPartition]int64 // what this task last committed
	credit    float64
}

func (c *connector) newSinkTask(n int) (*sinkTask, error) {
	w := c.w
	t := &sinkTask{
		c:         c,
		id:        fmt.Sprintf("%s-%d", c.spec.name, n),
		per:       c.spec.sink.rate / float64(c.spec.sink.tasks),
		current:   map[topicPartition]int64{},
		committed: map[topicPartition]int64{},
	}
	// Heartbeats well inside the flush interval, so a short interval in
	// tests still sees the group settle quickly; 3 s (the Java default)
	// at most.
	heartbeat := min(max(w.flushInterval/2, 100*time.Millisecond), 3*time.Second)
	cl, err := kgo.NewClient(w.clientOpts(
		kgo.ClientID("connector-consumer-"+t.id),
		kgo.ConsumerGroup(c.spec.group()),
		kgo.ConsumeTopics(c.spec.sink.topics...),
		// The Java consumer's first default assignor, so the group's
		// protocol reads "range" as it does for a real Connect sink.
		kgo.Balancers(kgo.RangeBalancer()),
		kgo.DisableAutoCommit(), // enable.auto.commit=false: the task commits
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.SessionTimeout(sessionTimeout),
		kgo.HeartbeatInterval(heartbeat),
		kgo.FetchMaxWait(500*time.Millisecond), // fetch.max.wait.ms
		// Rebalance callbacks run between polls, never during processing.
		kgo.BlockRebalanceOnPoll(),
		kgo.OnPartitionsRevoked(t.revoked),
		kgo.OnPartitionsLost(t.lost),
		kgo.WithLogger(kgoLogger{w.logf}),
	)...)
	if err != nil {
		return nil, err
	}
	t.cl = cl
	return t, nil
}

// run is WorkerSinkTask's loop: poll, process, and commit whenever the
// flush interval has passed (skipping commits that would change nothing).
// On stop it commits one last time and leaves the group.
func (t *sinkTask) run(ctx context.Context) {
	w := t.c.w
	nextCommit := time.Now().Add(w.flushInterval)
	last := time.Now()
	for ctx.Err() == nil {
		now := time.Now()
		n := t.budget(now.Sub(last))
		last = now
		if t.c.sink.paused.Load() || n == 0 {
			sleep(ctx, w.pollInterval)
		} else {
			pctx, cancel := context.WithTimeout(ctx, w.pollInterval)
			fs := t.cl.PollRecords(pctx, n)
			cancel()
			t.process(fs)
		}
		if now := time.Now(); !now.Before(nextCommit) {
			t.commit(ctx, t.cl)
			nextCommit = now.Add(w.flushInterval)
		}
		t.cl.AllowRebalance()
	}
	// The final commit when the task stops, then Close leaves the group.
	fctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	t.commit(fctx, t.cl)
	cancel()
	t.cl.CloseAllowingRebalance()
}

// budget is how many records the next poll may return: the rate limit of a
// slow sink, with unused time carried over for at most a second.
func (t *sinkTask) budget(dt time.Duration) int {
	if t.per <= 0 {
		return maxPerPoll
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.credit = min(t.credit+t.per*dt.Seconds(), max(t.per, 1))
	return int(t.credit)
}

// process "writes" polled records: what a sink connector's put() does; the
// demo only moves its position past them.
func (t *sinkTask) process(fs kgo.Fetches) {
	fs.EachError(func(topic string, p int32, err error) {
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && !errors.Is(err, kgo.ErrClientClosed) {
			t.c.w.logf("WorkerSinkTask{id=%s} poll %s[%d]: %v", t.id, topic, p, err)
		}
	})
	n := 0
	topics := map[string]bool{}
	t.mu.Lock()
	fs.EachRecord(func(r *kgo.Record) {
		t.current[topicPartition{r.Topic, r.Partition}] = r.Offset + 1
		topics[r.Topic] = true
		n++
	})
	if t.per > 0 {
		t.credit -= float64(n)
	}
	t.mu.Unlock()
	s := t.c.sink
	s.mu.Lock()
	for topic := range topics {
		s.consumed[topic] = true
	}
	s.mu.Unlock()
}

// commit commits the task's positions, as WorkerSinkTask#commitOffsets
// does: all partitions it holds, or nothing when nothing changed since its
// last commit ("Skipping offset commit, no change since last commit").
func (t *sinkTask) commit(ctx context.Context, cl *kgo.Client) {
	t.mu.Lock()
	changed := false
	offsets := map[string]map[int32]kgo.EpochOffset{}
	snapshot := make(map[topicPartition]int64, len(t.current))
	for tp, off := range t.current {
		if c, ok := t.committed[tp]; !ok || c != off {
			changed = true
		}
		if offsets[tp.topic] == nil {
			offsets[tp.topic] = map[int32]kgo.EpochOffset{}
		}
		offsets[tp.topic][tp.partition] = kgo.EpochOffset{Epoch: -1, Offset: off}
		snapshot[tp] = off
	}
	t.mu.Unlock()
	if !changed {
		return
	}
	var failed error
	cl.CommitOffsetsSync(ctx, offsets, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		failed = err
		if err == nil {
			failed = rest.CommitError(resp)
		}
	})
	if failed != nil {
		// The positions stay; the next commit tries again. A commit cut
		// short by the task stopping is followed by its final commit.
		if !errors.Is(failed, context.Canceled) {
			t.c.w.logf("WorkerSinkTask{id=%s} Commit of offsets threw an unexpected exception: %v", t.id, failed)
		}
		return
	}
	t.mu.Lock()
	for tp, off := range snapshot {
		if _, held := t.current[tp]; held {
			t.committed[tp] = off
		}
	}
	t.mu.Unlock()
}

// revoked closes partitions taken away in a rebalance (or at the end of
// the task's session): a synchronous commit of what the task got through,
// then it forgets them, as WorkerSinkTask's onPartitionsRevoked does.
func (t *sinkTask) revoked(_ context.Context, cl *kgo.Client, revoked map[string][]int32) {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	t.commit(ctx, cl)
	t.forget(revoked)
}

// lost forgets partitions without committing: the task is no longer a
// member whose commits the broker would take.
func (t *sinkTask) lost(_ context.Context, _ *kgo.Client, lost map[string][]int32) {
	t.forget(lost)
}

func (t *sinkTask) forget(parts map[string][]int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for topic, ps := range parts {
		for _, p := range ps {
			delete(t.current, topicPartition{topic, p})
			delete(t.committed, topicPartition{topic, p})
		}
	}
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
	case <-tm.C:
	}
}

// topicPartition names one partition of a topic.
type topicPartition struct {
	topic     string
	partition int32
}
