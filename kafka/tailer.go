package kafka

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	metadataAPI "github.com/segmentio/kafka-go/protocol/metadata"

	"koff/model"
	"koff/model/store"
)

// Handler receives what the Tailer reads. store.Store implements it.
type Handler interface {
	Ingest(batch []store.Record)
	SetStatus(model.TailStatus)
	SetTopicPartitions(topic string, n int)
	// Reset forgets every record read: the Tailer reads again from
	// scratch (a new cluster, or a recreated topic).
	Reset()
}

// expecter is a Handler told how many records each partition holds to
// its catch-up target before they are read (store.Store.ExpectRecords),
// to size its tables once rather than grow them record by record.
type expecter interface {
	ExpectRecords(tp model.TopicPartition, n int64)
}

// TailerOptions tune a Tailer; zero values are sensible defaults.
type TailerOptions struct {
	// Rescan is how often topic metadata is re-read, to find topics created
	// late and partitions added (10s).
	Rescan time.Duration
	// MaxWait is how long a live fetch waits on the broker for new records (1s).
	MaxWait time.Duration
	// StallAfter is how long a partition may go without an answer to a
	// fetch before the Tailer says it is stalled (MaxWait + 5s): "live"
	// means every partition answered within it.
	StallAfter time.Duration
	Now        func() time.Time
	Logf       func(format string, args ...any)
	// Latest, when above 0, hands the Handler only the latest record of
	// each key bytes of each decoded chunk, with the times and offsets of
	// the Latest-1 before it (store.Latest, for a Store keeping that much
	// history): for a one-shot read (koff get), which shows only what the
	// superseded records' values were replaced by.
	Latest int
	// From is where a partition's first read begins, when after its log
	// start: the Handler already holds what is before it (a history read
	// loaded it, kafka.Config.ReadHistoryLoading). A reload reads from
	// scratch.
	From map[model.TopicPartition]int64
	// OneShot, with Latest, takes the records instead of the Handler
	// until it gives up (store.OneShotRead): each partition's reader then
	// hands the Handler what it kept and goes on into the Handler.
	OneShot *store.OneShotRead
}

// Tailer reads offsets topics from the beginning, every partition
// concurrently, with read_committed, and keeps tailing them live.
type Tailer struct {
	cfg    Config
	topics []string
	h      Handler
	opts   TailerOptions
	tr     *kafkago.Transport
	client *kafkago.Client

	reportMu sync.Mutex
	mu       sync.Mutex
	parts    map[model.TopicPartition]*partState
	missing  []string
	deleted  map[string]bool // offsets topics read since start and gone now (TailStatus.Deleted)
	metaErr  string          // the last metadata error, cleared by a metadata answer
	status   model.TailStatus
	caughtUp chan struct{}
	caught   bool
	rescan   bool            // a topic was added: read metadata again soon
	seen     map[string]bool // topics the last metadata read answered for
	wg       sync.WaitGroup
	conn     connState
	reload   reloadState
	readers  readerGen
	from     map[model.TopicPartition]int64 // opts.From until a reload
}

type partState struct {
	start, target, pos int64
	ready              bool      // start and target known
	answered           time.Time // the broker's last answer for this partition (or when it was first seen)
	failure            string    // the last request's error, "" once answered again
	unknown            bool      // that error is the broker's "unknown topic or partition": deleted, most likely
}

// NewTailer prepares a Tailer for the given offsets topics.
func NewTailer(cfg Config, topics []string, h Handler, opts TailerOptions) *Tailer {
	if opts.Rescan <= 0 {
		opts.Rescan = 10 * time.Second
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = time.Second
	}
	if opts.StallAfter <= 0 {
		opts.StallAfter = opts.MaxWait + 5*time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	tr := cfg.transport()
	return &Tailer{
		cfg:      cfg,
		topics:   topics,
		h:        h,
		opts:     opts,
		tr:       tr,
		client:   &kafkago.Client{Addr: cfg.addr(), Transport: tr, Timeout: 10 * time.Second},
		parts:    map[model.TopicPartition]*partState{},
		caughtUp: make(chan struct{}),
		conn:     connState{wake: make(chan struct{})},
		from:     opts.From,
	}
}

// CaughtUp is closed once every partition has reached the end it had when
// the Tailer first saw it.
func (t *Tailer) CaughtUp() <-chan struct{} { return t.caughtUp }

// Status returns the Tailer's current state.
func (t *Tailer) Status() model.TailStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status
}

// Run tails until ctx is cancelled, then waits for its goroutines.
func (t *Tailer) Run(ctx context.Context) {
	defer t.tr.CloseIdleConnections()
	defer t.wg.Wait()
	t.readers.start(ctx)
	defer t.readers.stop()
	t.report()
	// Time alone turns live into stalled: a blackholed broker answers
	// nothing, so no request fails for a while.
	t.wg.Add(1)
	go t.reportEvery(ctx, 250*time.Millisecond)
	backoff := newBackoff(10 * time.Second)
	for {
		if why := t.takeReload(); why != "" {
			t.restart(why)
		}
		err := t.discover(ctx)
		if ctx.Err() != nil {
			return
		}
		wait := t.opts.Rescan
		if err != nil {
			t.setMetaErr(err)
			wait = backoff.next()
		} else {
			backoff.reset()
		}
		t.sleep(ctx, wait)
		if ctx.Err() != nil {
			return
		}
	}
}

// sleep waits d, or less when a topic was added.
func (t *Tailer) sleep(ctx context.Context, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		t.mu.Lock()
		added := t.rescan
		t.rescan = false
		t.mu.Unlock()
		if added {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(min(200*time.Millisecond, time.Until(deadline))):
		}
	}
}

// discover reads topic metadata and starts a reader for each new partition.
func (t *Tailer) discover(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	topics := t.Topics()
	m, err := t.tr.RoundTrip(rctx, t.cfg.addr(), &metadataAPI.Request{
		TopicNames:             topics,
		AllowAutoTopicCreation: false, // never create an offsets topic with broker defaults
	})
	if err != nil {
		return err
	}
	res := m.(*metadataAPI.Response)
	if why := t.clusterChanged(res); why != "" {
		t.requestReload(why)
		return nil
	}
	var missing []string
	var added []model.TopicPartition
	found := map[string]bool{}
	for _, tm := range res.Topics {
		if tm.ErrorCode != 0 {
			kerr := kafkago.Error(tm.ErrorCode)
			if kerr == kafkago.UnknownTopicOrPartition {
				continue
			}
			return fmt.Errorf("topic %s: %s", tm.Name, kerr.Title())
		}
		found[tm.Name] = true
		t.mu.Lock()
		delete(t.deleted, tm.Name) // there again: read from scratch
		t.mu.Unlock()
		if why := t.topicShrank(tm.Name, len(tm.Partitions)); why != "" {
			t.requestReload(why)
			return nil
		}
		t.h.SetTopicPartitions(tm.Name, len(tm.Partitions))
		for _, p := range tm.Partitions {
			added = append(added, model.TopicPartition{Topic: tm.Name, Partition: int(p.PartitionIndex)})
		}
	}
	// Register every partition before any reader starts: a reader that
	// finishes at once must not find the others missing and declare the
	// whole topic caught up.
	var start []model.TopicPartition
	now := t.opts.Now()
	t.mu.Lock()
	for _, tp := range added {
		if _, known := t.parts[tp]; !known {
			t.parts[tp] = &partState{answered: now}
			start = append(start, tp)
		}
	}
	t.mu.Unlock()
	for _, tp := range start {
		t.readers.goRead(func(rctx context.Context) { t.tailPartition(rctx, tp) })
	}
	for _, name := range topics {
		if !found[name] {
			if why := t.topicShrank(name, 0); why != "" {
				t.mu.Lock()
				if t.deleted == nil {
					t.deleted = map[string]bool{}
				}
				t.deleted[name] = true
				t.mu.Unlock()
				t.requestReload(why)
				return nil
			}
			missing = append(missing, name)
		}
	}
	t.mu.Lock()
	t.missing = missing
	t.metaErr = ""
	t.seen = map[string]bool{}
	for _, name := range topics {
		t.seen[name] = true
	}
	t.mu.Unlock()
	t.report()
	return nil
}

func (t *Tailer) tailPartition(ctx context.Context, tp model.TopicPartition) {
	// A partition retries at least every 2s: the first to be answered
	// wakes the others, so an outage ends for all at once, soon after it
	// ends.
	backoff := newBackoff(2 * time.Second)
	pause := func() bool { return t.pause(ctx, backoff.next()) }
	var start, target int64
	for {
		var err error
		start, target, err = t.bounds(ctx, tp)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return
		}
		t.failed(tp, err)
		if !pause() {
			return
		}
	}
	backoff.reset()
	t.mu.Lock()
	if f, ok := t.from[tp]; ok && f > start {
		start = f
	}
	ps := t.parts[tp]
	ps.start, ps.target, ps.pos, ps.ready = start, target, start, true
	t.mu.Unlock()
	t.answered(tp, true)
	if e, ok := t.h.(expecter); ok {
		e.ExpectRecords(tp, target-start)
	}

	pos := start
	var dec decoder
	var latest *store.Latest
	if t.opts.Latest > 0 {
		latest = store.NewLatest(t.opts.Latest)
		dec.borrow = true // values copied once kept
		// A cold read fills whole chunks: made at their size once, not
		// grown to it (twice the memory, and as much again to fault in).
		dec.small = true
		dec.recs = make([]store.Record, 0, newKeysChunk)
		store.WritePages(dec.recs) // filled after the collector may have read it
	}
	// What the Store can know of a record before its lock is worked out
	// here, on one goroutine per partition.
	var one *store.OneShotPart
	if latest != nil && t.opts.OneShot != nil {
		one = t.opts.OneShot.Part(tp, target-start, t.opts.Latest, t.h.Ingest)
	}
	ingest := func(recs []store.Record) {
		end := int64(-1)
		if len(recs) > 0 {
			end = recs[len(recs)-1].Offset + 1 // the chunk is in offset order
		}
		if one != nil {
			rest, ok := one.AppendFrom(recs, dec.buf)
			if ok {
				t.mu.Lock()
				ps.pos = max(ps.pos, end)
				t.mu.Unlock()
				return
			}
			// The read gave up: the part handed the Handler what it kept
			// (values copied), and the rest goes as without it.
			one, recs = nil, rest
		}
		if latest != nil {
			recs = dec.keepLatest(latest, recs)
		} else {
			for i := range recs {
				recs[i].Prepare()
			}
		}
		t.h.Ingest(recs)
		// The progress counts what the Handler holds, chunk by chunk: a
		// fetch while catching up is thousands of records, and the records
		// the header counts beside it are the Store's.
		t.mu.Lock()
		ps.pos = max(ps.pos, end)
		t.mu.Unlock()
	}
	for ctx.Err() == nil {
		res, err := t.fetch(ctx, tp, pos, &dec)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if errors.Is(err, kafkago.OffsetOutOfRange) {
				if next, ok := t.outOfRange(ctx, tp, pos); ok {
					pos = next
					continue
				}
				return // reloading
			}
			t.failed(tp, err)
			if !pause() {
				return
			}
			continue
		}
		backoff.reset()
		if why := wentBackwards(tp, pos, res.HighWatermark); why != "" {
			t.requestReload(why)
			return
		}
		n, next := dec.decode(tp, pos, res, ingest)
		if one != nil && one.Took(dec.buf) {
			dec.buf = nil // the next fetch reads into new memory
		}
		if next < res.LogStartOffset {
			next = res.LogStartOffset
		}
		pos = next
		t.mu.Lock()
		ps.pos = pos
		catching := !t.caught
		t.mu.Unlock()
		t.answered(tp, n > 0 || catching)
	}
}

// outOfRange handles a fetch position the log no longer has: compaction or
// retention moved the log start past it (skip ahead), or the log now ends
// before it (the topic was recreated: reload). ok is false when reloading
// or the bounds could not be read (already reported).
func (t *Tailer) outOfRange(ctx context.Context, tp model.TopicPartition, pos int64) (int64, bool) {
	s, end, err := t.bounds(ctx, tp)
	if err != nil {
		t.failed(tp, err)
		return pos, t.pause(ctx, time.Second)
	}
	if why := wentBackwards(tp, pos, end); why != "" {
		t.requestReload(why)
		return pos, false
	}
	return max(s, pos), true
}

// bounds returns the first offset and the last stable offset of a partition.
func (t *Tailer) bounds(ctx context.Context, tp model.TopicPartition) (int64, int64, error) {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	tps := []model.TopicPartition{tp}
	first, err := listOffsets(rctx, t.client, tps, kafkago.FirstOffset, kafkago.ReadCommitted)
	if err != nil {
		return 0, 0, err
	}
	last, err := listOffsets(rctx, t.client, tps, kafkago.LastOffset, kafkago.ReadCommitted)
	if err != nil {
		return 0, 0, err
	}
	return first[tp], last[tp], nil
}

func missingReason(missing []string, every time.Duration) string {
	sort.Strings(missing)
	verb := "does"
	if len(missing) > 1 {
		verb = "do"
	}
	return fmt.Sprintf("topic %s %s not exist yet; checking every %s", strings.Join(missing, ", "), verb, every)
}

type backoff struct{ d, max time.Duration }

// newBackoff doubles from 250ms up to max.
func newBackoff(max time.Duration) *backoff { return &backoff{max: max} }

func (b *backoff) reset() { b.d = 0 }

func (b *backoff) next() time.Duration {
	switch {
	case b.d == 0:
		b.d = 250 * time.Millisecond
	case b.d < b.max:
		b.d *= 2
	}
	return min(b.d, b.max)
}

// Missing lists the offsets topics that did not exist at the last metadata read.
func (t *Tailer) Missing() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.missing...)
}

// Topics lists the offsets topics being tailed; the first is the workers'.
func (t *Tailer) Topics() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.topics...)
}

// AddTopic starts tailing another offsets topic (a connector's own
// offsets.storage.topic) at the next metadata read; it reports whether the
// topic is new.
func (t *Tailer) AddTopic(name string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, x := range t.topics {
		if x == name {
			return false
		}
	}
	t.topics = append(t.topics, name)
	t.rescan = true
	return true
}

// Settled reports whether every topic asked for, including ones added
// later, has been looked up and read to the end it had when first seen.
func (t *Tailer) Settled() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rescan {
		return false
	}
	for _, name := range t.topics {
		if !t.seen[name] {
			return false
		}
	}
	for _, ps := range t.parts {
		if !ps.ready || ps.pos < ps.target {
			return false
		}
	}
	return true
}
