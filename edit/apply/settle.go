package apply

import (
	"context"
	"errors"
	"net"
	"time"

	"koff/connect"
	"koff/edit/plan"
	"koff/model"
)

// Every write request koff sends (a produce request per topic-partition, a
// group commit, a REST PATCH or DELETE) ends in one of three outcomes:
// written, not written, or unknown.
//
// "Not written" needs evidence: the request was never sent (koff stopped
// before it, or the connection could not be made), or the broker or Connect
// answered with an error that means it did not apply it.
//
// A request whose answer was lost (the connection broke after it was sent,
// a timeout) may still land: Kafka handles a request it received even when
// the connection it came on is gone, and only drops the answer; Connect's
// worker goes on with a PATCH whose client gave up. Nothing in the protocol
// bounds when: the request can sit in the broker's request queue, and
// requests on different connections are not ordered against each other, so
// neither a read of the log past the position logged before the write nor a
// later acknowledged write on a new connection proves it will not land (an
// idempotent producer's sequence numbers would, and kafka-go has none).
// Such a write is unknown until a read shows its records (then written);
// koff reads for up to the verify timeout, and an unknown write stays
// unknown in the audit log. Undo covers written and unknown partitions
// alike: writing a before-value back is right whether or not the write
// landed.

// notApplier is an error that knows whether its request took effect
// (kafka.RequestError).
type notApplier interface{ NotApplied() bool }

// provablyNotApplied: err says the request did not take effect.
func provablyNotApplied(err error) bool {
	var na notApplier
	if errors.As(err, &na) {
		return na.NotApplied()
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		// Connect answered: a 4xx is a refusal (400, 404, 409 while
		// rebalancing). A 5xx is not: "Request timed out" is a worker that
		// forwarded the request to the leader and stopped waiting, and a
		// proxy's 502/503/504 may have forwarded it.
		return ce.Status >= 400 && ce.Status < 500
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// landedWithin reads the partitions of batches whose answer was lost until
// every one shows its records, or the verify timeout passes: it returns
// what it found and what stays unknown.
func (w *logView) landedWithin(ctx context.Context, bs []batch) (written, unknown []model.TopicPartition) {
	deadline := time.Now().Add(w.e.verifyTimeout())
	left := bs
	for {
		got, _ := w.reconcile(ctx, left)
		written = append(written, got...)
		left = without(left, got)
		if len(left) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
	for _, b := range left {
		unknown = append(unknown, b.tp)
	}
	return written, unknown
}

// reconcile says which batches are in the log after the positions: every
// record of the batch is there, with this edit's value.
func (w *logView) reconcile(ctx context.Context, bs []batch) (written, notWritten []model.TopicPartition) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	for _, b := range bs {
		recs, _, err := w.rr.ReadRecords(ctx, b.tp, w.positions[b.tp])
		if err == nil {
			if at, ok := batchIn(w.p, b, recs); ok {
				w.offsets[b.tp] = at
				written = append(written, b.tp)
				continue
			}
		}
		notWritten = append(notWritten, b.tp)
	}
	return written, notWritten
}

// settleSink settles a sink commit whose answer was lost: the commit
// holds once the group shows its offsets; until then it may have been
// written.
func (e *Applier) settleSink(ctx context.Context, p *plan.Plan, run *editRun, res *Result, err error) error {
	if e.groupShowsWithin(context.WithoutCancel(ctx), p) {
		return nil
	}
	for _, c := range p.Sink {
		res.Unknown = append(res.Unknown, c.TopicPartition)
	}
	run.unknown = []string{"group " + p.Group}
	return &WriteError{Unknown: res.Unknown, Group: p.Group, Err: err}
}

// groupShowsWithin polls the group until it holds every offset of the
// plan, for up to the verify timeout.
func (e *Applier) groupShowsWithin(ctx context.Context, p *plan.Plan) bool {
	deadline := time.Now().Add(e.verifyTimeout())
	for {
		if poll, err := e.groupPoll(ctx, p.Group); err == nil {
			now := map[model.TopicPartition]int64{}
			for _, gp := range poll.Partitions {
				now[gp.TopicPartition] = gp.Committed
			}
			holds := true
			for _, c := range p.Sink {
				cur, has := now[c.TopicPartition]
				if !has {
					cur = -1
				}
				holds = holds && cur == c.After
			}
			if holds {
				return true
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}
