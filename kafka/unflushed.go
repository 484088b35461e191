package kafka

import (
	"context"
	"fmt"
	"slices"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	metadataAPI "github.com/segmentio/kafka-go/protocol/metadata"

	"koff/model"
	"koff/model/store"
)

// UnflushedStore is where the unflushed-records poller reads what to
// measure and writes the counts (store.Store).
type UnflushedStore interface {
	FlushTargets() map[string]model.FlushTarget
	SetUnflushed(name string, u model.Unflushed)
}

// UnflushedPoller measures how many records each source connector wrote
// to its topics after its last flush. A measurement counts from one flush,
// so it is repeated as soon as a newer flush shows up, and otherwise every
// refresh.
type UnflushedPoller struct {
	c       Config
	store   UnflushedStore
	refresh time.Duration
	last    map[string]model.Unflushed
}

// NewUnflushedPoller returns a poller feeding store.
func (c Config) NewUnflushedPoller(store UnflushedStore, refresh time.Duration) *UnflushedPoller {
	return &UnflushedPoller{c: c, store: store, refresh: refresh, last: map[string]model.Unflushed{}}
}

// Once measures the connectors whose last flush moved, or whose count is
// older than the refresh interval.
func (p *UnflushedPoller) Once(ctx context.Context) {
	for name, t := range p.store.FlushTargets() {
		prev, ok := p.last[name]
		if ok && prev.Since.Equal(t.LastFlush) && time.Since(prev.At) < p.refresh {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		byTopic, first, err := p.c.recordsSinceByTopic(rctx, append(slices.Clip(t.Topics), t.Shared...), t.LastFlush)
		cancel()
		var n, shared int64
		for _, topic := range t.Topics {
			n += byTopic[topic]
		}
		for _, topic := range t.Shared {
			shared += byTopic[topic]
		}
		if ctx.Err() != nil {
			return
		}
		u := model.Unflushed{Records: n, Shared: shared, SharedWith: t.SharedWith, Since: t.LastFlush, At: time.Now(), Pending: first}
		if err != nil {
			u.Err = p.c.Describe(err)
		}
		p.last[name] = u
		p.store.SetUnflushed(name, u)
	}
}

// PollUnflushedOnce measures every source connector whose topics are known, once.
func (c Config) PollUnflushedOnce(ctx context.Context, store UnflushedStore) {
	c.NewUnflushedPoller(store, 0).Once(ctx)
}

// RecordsSince counts the records written to the topics after t: per
// partition, the log-end offset minus the first offset after t's
// millisecond. Record times are milliseconds, and an exactly-once task
// writes a transaction's records and its offsets within one: a record of
// the flush's own millisecond belongs to the flush, not after it. A
// transaction's commit or abort marker takes an offset but is no record: an
// exactly-once source task's output (and a transactional producer's) ends
// in one after each commit, so the end minus the offset-for-timestamp would
// say 1 record forever after the last flush. Short ranges are therefore
// fetched and their committed records counted.
func (c Config) RecordsSince(ctx context.Context, topics []string, t time.Time) (int64, error) {
	byTopic, _, err := c.recordsSinceByTopic(ctx, topics, t)
	var n int64
	for _, d := range byTopic {
		n += d
	}
	return n, err
}

// recordsSinceByTopic is RecordsSince for each topic, in one round of
// requests for them all, and the timestamp of the oldest of them when
// every one was read (zero otherwise): a connector that commits only
// after it produced owes a flush from then, not from its last flush.
func (c Config) recordsSinceByTopic(ctx context.Context, topics []string, t time.Time) (map[string]int64, time.Time, error) {
	tps, err := c.partitionsOf(ctx, topics)
	if err != nil {
		return nil, time.Time{}, err
	}
	client := c.Client()
	defer client.Transport.(*kafkago.Transport).CloseIdleConnections()
	at, err := c.OffsetsAt(ctx, tps, t.Truncate(time.Millisecond).Add(time.Millisecond))
	if err != nil {
		return nil, time.Time{}, err
	}
	ends, err := listOffsets(ctx, client, tps, kafkago.LastOffset, kafkago.ReadUncommitted)
	if err != nil {
		return nil, time.Time{}, err
	}
	n := make(map[string]int64, len(topics))
	var first time.Time
	read := true
	for _, tp := range tps {
		d := max(ends[tp]-at[tp], 0)
		switch {
		case d > markerScan:
			read = false
		case d > 0:
			var f time.Time
			if d, f, err = c.countRecords(ctx, tp, at[tp], ends[tp]); err != nil {
				return nil, time.Time{}, err
			}
			if !f.IsZero() && (first.IsZero() || f.Before(first)) {
				first = f
			}
		}
		n[tp.Topic] += d
	}
	if !read {
		first = time.Time{}
	}
	return n, first, nil
}

// markerScan is the longest range RecordsSince fetches to count records
// rather than offsets; in a longer one the few markers hardly matter.
const markerScan = 256

// countRecords counts the committed records at offsets [from, to) of tp,
// leaving out control batches and the records of aborted transactions.
func (c Config) countRecords(ctx context.Context, tp model.TopicPartition, from, to int64) (int64, time.Time, error) {
	tr := c.transport()
	defer tr.CloseIdleConnections()
	var n int64
	var first time.Time
	var d decoder
	for pos := from; pos < to; {
		part, err := c.fetchCommitted(ctx, tr, tp, pos, &d)
		if err != nil {
			return 0, time.Time{}, err
		}
		if part.ErrorCode != 0 {
			return 0, time.Time{}, kafkago.Error(part.ErrorCode)
		}
		_, next := d.decode(tp, pos, part, func(recs []store.Record) {
			for _, r := range recs {
				if r.Offset < to {
					n++
					if first.IsZero() || r.Time.Before(first) {
						first = r.Time
					}
				}
			}
		})
		if next <= pos {
			break // nothing more committed yet (an open transaction), or only markers left
		}
		pos = next
	}
	return n, first, nil
}

func (c Config) partitionsOf(ctx context.Context, topics []string) ([]model.TopicPartition, error) {
	tr := c.transport()
	defer tr.CloseIdleConnections()
	m, err := tr.RoundTrip(ctx, c.addr(), &metadataAPI.Request{TopicNames: topics})
	if err != nil {
		return nil, err
	}
	var tps []model.TopicPartition
	for _, t := range m.(*metadataAPI.Response).Topics {
		if t.ErrorCode != 0 {
			return nil, fmt.Errorf("topic %s: %s", t.Name, kafkago.Error(t.ErrorCode).Title())
		}
		for _, p := range t.Partitions {
			tps = append(tps, model.TopicPartition{Topic: t.Name, Partition: int(p.PartitionIndex)})
		}
	}
	return tps, nil
}
