package kafka

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"

	"koff/model"
)

// connState is what the Tailer knows about its connection as a whole.
type connState struct {
	down time.Time     // when the current outage began; zero while every partition answers
	wake chan struct{} // closed when a partition is answered again after a failure
}

// answered records the broker's answer for tp. The first answer after a
// failure wakes every partition waiting out its backoff, so recovery
// takes one round trip rather than the longest backoff.
func (t *Tailer) answered(tp model.TopicPartition, report bool) {
	t.mu.Lock()
	ps := t.parts[tp]
	recovered := ps != nil && ps.failure != ""
	if ps != nil {
		ps.failure, ps.unknown = "", false
		ps.answered = t.opts.Now()
	}
	if recovered {
		close(t.conn.wake)
		t.conn.wake = make(chan struct{})
	}
	t.mu.Unlock()
	if recovered || report {
		t.report()
	}
}

// failed records a failed request for tp.
func (t *Tailer) failed(tp model.TopicPartition, err error) {
	why := t.cfg.Describe(err) // with the SASL user, for auth failures
	t.mu.Lock()
	ps := t.parts[tp]
	changed := ps != nil && ps.failure != why
	if ps != nil {
		ps.failure = why
		ps.unknown = topicUnknown(err)
	}
	if topicUnknown(err) {
		// Deleted, most likely: read metadata now, not at the next rescan,
		// to say so.
		t.rescan = true
	}
	t.mu.Unlock()
	if changed {
		t.opts.Logf("tailer: %s/%d: %v", tp.Topic, tp.Partition, err)
	}
	t.report()
}

// setMetaErr records a failed metadata read. It decides the state only
// while no partition is known: once partitions are, their fetches are the
// truth (kafka-go answers metadata from a cache, outages or not).
func (t *Tailer) setMetaErr(err error) {
	why := t.cfg.Describe(err)
	t.mu.Lock()
	changed := t.metaErr != why
	t.metaErr = why
	t.mu.Unlock()
	if changed {
		t.opts.Logf("tailer: metadata: %v", err)
	}
	t.report()
}

// pause waits d before a retry, less if another partition recovers; it
// returns false when ctx ends.
func (t *Tailer) pause(ctx context.Context, d time.Duration) bool {
	t.mu.Lock()
	wake := t.conn.wake
	t.mu.Unlock()
	select {
	case <-ctx.Done():
		return false
	case <-wake:
		return true
	case <-time.After(d):
		return true
	}
}

func (t *Tailer) reportEvery(ctx context.Context, d time.Duration) {
	defer t.wg.Done()
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			t.report()
		}
	}
}

// report derives the overall state from the partitions and hands it on.
// Reports are serialised, so the handler never sees an older state after
// a newer one.
//
// Live means every partition answered its last fetch within StallAfter;
// a failed request makes the state disconnected until that partition is
// answered again; no answer at all for StallAfter makes it stalled.
func (t *Tailer) report() {
	t.reportMu.Lock()
	defer t.reportMu.Unlock()
	now := t.opts.Now()
	t.mu.Lock()
	var read, total int64
	all := len(t.parts) > 0
	var (
		failing int
		gone    = map[string]bool{} // topics a partition of which the broker no longer knows
		failure string
		firstTP model.TopicPartition
		oldest  time.Time // the oldest last answer of a partition not failing
	)
	for tp, ps := range t.parts {
		if ps.unknown {
			// The broker answers, without the topic: no outage, a topic
			// going (metadata, cached for a while, confirms it).
			gone[tp.Topic] = true
		} else if ps.failure != "" {
			// One partition's words, the same each time: the first in order.
			if failing == 0 || tpLess(tp, firstTP) {
				failure, firstTP = ps.failure, tp
			}
			failing++
		} else if oldest.IsZero() || ps.answered.Before(oldest) {
			oldest = ps.answered
		}
		if !ps.ready {
			all = false
			continue
		}
		total += ps.target - ps.start
		read += min(ps.pos, ps.target) - ps.start
		if ps.pos < ps.target {
			all = false
		}
	}
	st := model.TailStatus{Read: read, Total: total, Reloaded: t.reload.at, ReloadReason: t.reload.why, Reloads: t.reload.n}
	switch {
	case failing > 0:
		st.State, st.Reason = model.TailDisconnected, failure
		if failing < len(t.parts) {
			st.Reason += fmt.Sprintf(" (%d of %d partitions)", failing, len(t.parts))
		}
	case len(t.parts) == 0 && t.metaErr != "":
		st.State, st.Reason = model.TailDisconnected, t.metaErr
	case len(gone) > 0:
		st.State, st.Reason = model.TailWaitingForTopic, goneReason(keys(gone))
	case len(t.parts) > 0 && now.Sub(oldest) > t.opts.StallAfter:
		st.State = model.TailStalled
		st.Reason = fmt.Sprintf("no fetch answered for %ds", int(now.Sub(oldest)/time.Second))
	case len(t.parts) == 0 && len(t.missing) > 0:
		st.State, st.Reason = model.TailWaitingForTopic, missingReason(t.missing, t.opts.Rescan)
	case len(t.parts) == 0:
		st.State = model.TailConnecting
	case all:
		st.State = model.TailLive
		if len(t.missing) > 0 {
			st.Reason = missingReason(t.missing, t.opts.Rescan)
		}
	default:
		st.State = model.TailCatchingUp
	}
	st.Missing, st.Deleted = joinSorted(t.missing), joinSorted(keys(t.deleted))
	if st.Deleted != "" && st.State != model.TailDisconnected && st.State != model.TailStalled {
		// What koff read of it is gone with it: never live then.
		st.State, st.Reason = model.TailWaitingForTopic, deletedReason(st.DeletedTopics(), t.opts.Rescan)
	}
	st.Since = t.since(st, now, oldest)
	if st.State != model.TailDisconnected && st.State != model.TailStalled && len(t.parts) > 0 && now.Sub(oldest) > t.opts.MaxWait+silentAfter {
		// Not stalled yet, but a fetch is overdue: flushes since oldest
		// would not have been seen. Set once per silence, so the Store
		// hears of it once.
		st.Silent = oldest
	}
	nowCaught := all && !t.caught
	if nowCaught {
		t.caught = true
	}
	changed := st != t.status
	t.status = st
	t.mu.Unlock()
	if changed {
		t.h.SetStatus(st)
	}
	// Close after the handler has the live state: whoever waits on
	// CaughtUp then reads it there.
	if nowCaught {
		close(t.caughtUp)
	}
}

// since is when st began. An outage (stalled, then disconnected, however
// its reason changes) has one start: the last answer before it, or the
// first failure. t.mu is held.
func (t *Tailer) since(st model.TailStatus, now, oldest time.Time) time.Time {
	down := st.State == model.TailDisconnected || st.State == model.TailStalled
	switch {
	case down && t.conn.down.IsZero():
		t.conn.down = now
		if st.State == model.TailStalled {
			t.conn.down = oldest
		}
		return t.conn.down
	case down:
		return t.conn.down
	}
	t.conn.down = time.Time{}
	if st.State != t.status.State || st.Reason != t.status.Reason {
		return now
	}
	return t.status.Since
}

// silentAfter is how long past its MaxWait a fetch may go unanswered
// before koff says it sees nothing (TailStatus.Silent): a round trip.
const silentAfter = 250 * time.Millisecond

// topicUnknown: the broker answered that it knows no such topic, or
// kafka-go's metadata no longer has it.
func topicUnknown(err error) bool {
	return errors.Is(err, kafkago.UnknownTopicOrPartition) || errors.Is(err, protocol.ErrNoTopic)
}

func goneReason(topics []string) string {
	sort.Strings(topics)
	return fmt.Sprintf("offsets topic %s: the broker knows it no more (deleted?)", strings.Join(topics, ", "))
}

func deletedReason(topics []string, every time.Duration) string {
	verb := "was"
	if len(topics) > 1 {
		verb = "were"
	}
	return fmt.Sprintf("offsets topic %s %s deleted: its connectors' offsets are gone; checking every %s", strings.Join(topics, ", "), verb, every)
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func joinSorted(names []string) string {
	names = append([]string(nil), names...)
	sort.Strings(names)
	return strings.Join(names, ",")
}

func tpLess(a, b model.TopicPartition) bool {
	if a.Topic != b.Topic {
		return a.Topic < b.Topic
	}
	return a.Partition < b.Partition
}
