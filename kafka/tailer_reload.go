package kafka

import (
	"context"
	"fmt"
	"sync"
	"time"

	metadataAPI "github.com/segmentio/kafka-go/protocol/metadata"

	"koff/model"
)

// reloadState is how the Tailer notices that what it read is gone: a
// different cluster at the same address, or an offsets topic deleted and
// created again. Either way every record read so far is stale, so it
// reads everything again from scratch.
type reloadState struct {
	want    string // a reload asked for; Run does it
	at      time.Time
	why     string // of the last reload
	n       int    // reloads since start
	cluster string // the cluster id of the last metadata answer
}

// readerGen runs the partition readers of one generation: a reload stops
// them all and starts the next.
type readerGen struct {
	mu     sync.Mutex
	parent context.Context
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (g *readerGen) start(parent context.Context) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.parent = parent
	g.ctx, g.cancel = context.WithCancel(parent)
}

func (g *readerGen) goRead(read func(context.Context)) {
	g.mu.Lock()
	ctx := g.ctx
	g.wg.Add(1)
	g.mu.Unlock()
	go func() {
		defer g.wg.Done()
		read(ctx)
	}()
}

func (g *readerGen) cancelAll() {
	g.mu.Lock()
	g.cancel()
	g.mu.Unlock()
}

// stop ends this generation's readers and waits for them.
func (g *readerGen) stop() {
	g.cancelAll()
	g.wg.Wait()
	g.mu.Lock()
	g.ctx, g.cancel = context.WithCancel(g.parent)
	g.mu.Unlock()
}

// requestReload stops every reader; Run then reads from scratch.
func (t *Tailer) requestReload(why string) {
	t.mu.Lock()
	if t.reload.want == "" {
		t.reload.want = why
	}
	t.rescan = true
	t.mu.Unlock()
	t.readers.cancelAll()
}

func (t *Tailer) takeReload() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	why := t.reload.want
	t.reload.want = ""
	return why
}

// restart forgets every partition and every record, and says why.
func (t *Tailer) restart(why string) {
	t.readers.stop()
	t.mu.Lock()
	t.parts = map[model.TopicPartition]*partState{}
	t.seen = nil
	t.from = nil
	t.reload.at, t.reload.why = t.opts.Now(), why
	t.reload.n++
	t.mu.Unlock()
	t.opts.Logf("tailer: reading every offsets topic again from scratch: %s", why)
	t.h.Reset()
	if t.opts.OneShot != nil {
		t.opts.OneShot.Reset()
	}
	t.report()
}

// clusterChanged reports a cluster id other than the last one seen.
func (t *Tailer) clusterChanged(res *metadataAPI.Response) string {
	if res.ClusterID == "" {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	prev := t.reload.cluster
	t.reload.cluster = res.ClusterID
	if prev == "" || prev == res.ClusterID {
		return ""
	}
	return fmt.Sprintf("a different cluster answers (cluster id %s, was %s)", res.ClusterID, prev)
}

// topicShrank reports an offsets topic that now has fewer partitions than
// were read, or none at all (n == 0): Kafka never removes partitions, so
// the topic was deleted, and perhaps created again.
func (t *Tailer) topicShrank(topic string, n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	had := 0
	for tp := range t.parts {
		if tp.Topic == topic {
			had++
		}
	}
	switch {
	case n >= had:
		return ""
	case n == 0:
		return fmt.Sprintf("topic %s no longer exists", topic)
	}
	return fmt.Sprintf("topic %s has %d partitions, had %d: it was recreated", topic, n, had)
}

// wentBackwards reports a partition whose log now ends before what was
// already read from it.
func wentBackwards(tp model.TopicPartition, pos, end int64) string {
	if end >= pos {
		return ""
	}
	return fmt.Sprintf("%s/%d ends at offset %d, before offset %d already read: the topic was recreated", tp.Topic, tp.Partition, end, pos)
}

// ClusterID is the id of the cluster whose offsets the Tailer reads, from
// its last metadata answer ("" before the first, or from a broker too old
// to say).
func (t *Tailer) ClusterID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.reload.cluster
}
