package apply

import (
	"context"
	"fmt"
	"slices"
	"time"

	"koff/edit/plan"
	"koff/model"
)

// A direct write is read back within milliseconds, but a task that still
// runs commits its own offsets at its next flush: on a real worker 13–80 ms
// after koff's read-back when the connector was STOPPED only in the config
// topic (its tasks not yet gone), or at any point of a flush interval when
// its state is unknown. So unless Connect's REST API says the connector is
// STOPPED, koff goes on reading the written partitions after the read-back
// for the time in which a running task would commit again, and an
// overwrite in that time is reported as one, naming the writer.

const (
	// WatchFloor is the shortest watch: a stop's last commit lands within
	// tens of milliseconds of the target state, a flush of a short
	// interval within one interval; a second covers both with room.
	WatchFloor = time.Second
	// WatchCap is the longest: one and a half of Connect's default
	// offset.flush.interval.ms (60 s), koff's "ok" bound for a flush.
	WatchCap = 90 * time.Second
	// StopSettle is how long after its target state became STOPPED a
	// connector's tasks may still commit: a worker gives a stopping task
	// task.shutdown.graceful.timeout.ms (5 s by default), and its last
	// commit waits up to offset.flush.timeout.ms (5 s) for its records.
	// A stop older than that leaves only the floor to watch.
	StopSettle = 15 * time.Second
)

// watchWindow is how long past the read-back an edit is watched for a
// task's commit over it, given the flush interval: 1.5× the interval
// (a flush is on time up to 1.5× its interval, model.AssessFlush),
// within [WatchFloor, limit].
func watchWindow(interval, limit time.Duration) time.Duration {
	return min(max(interval*3/2, WatchFloor), limit)
}

func (e *Applier) watchLimit() time.Duration {
	if e.WatchLimit > 0 {
		return e.WatchLimit
	}
	return WatchCap
}

// PlanWatch decides whether and how long the plan's writes are watched
// after the read-back (Plan.Watch), and says why (Plan.WatchWhy).
func (e *Applier) PlanWatch(p *plan.Plan) {
	p.Watch, p.WatchWhy, p.WatchInterval = 0, "", 0
	switch {
	case p.Group != "":
		// Kafka refuses a commit to a group with members: a sink task
		// that still runs makes the edit fail, not vanish.
		return
	case p.Kind == plan.KindDeleteStray || p.Absent:
		// No task reads or writes the key (a stray), or none exists.
		return
	}
	var why string
	switch {
	case p.State == "UNASSIGNED" && p.Target == model.TargetStopped:
		why = "Connect REST says UNASSIGNED, not STOPPED: a task of the worker that left may still run"
	case p.State != "":
		// STOPPED: Connect's REST status says its tasks are gone, and the
		// short verification is enough. RUNNING or PAUSED is refused, or
		// stopped first and planned again.
		return
	case p.Target == "":
		why = "state unknown (no --connect-url, no config topic)"
	case p.Target == model.TargetStopped:
		why = fmt.Sprintf("target state STOPPED in config topic %s says nothing of tasks still running", p.ConfigTopic)
	default:
		return // refused: its target state is not STOPPED
	}
	interval, from := e.flushIntervalOf(p)
	p.Watch, p.WatchInterval = watchWindow(interval, e.watchLimit()), interval
	p.WatchWhy = fmt.Sprintf("%s; a running task commits within its flush interval, %s (%s)", why, plan.ShortDuration(interval), from)
	if c, _, ok := e.configOf(p.Connector); ok && p.State == "" && c.TargetState == model.TargetStopped && !c.TargetSince.IsZero() {
		// Its tasks were told to stop then: they commit once more as they
		// stop, and not after StopSettle; a periodic commit comes only
		// while one still runs, so before that too.
		age := max(e.now().Sub(c.TargetSince), 0)
		p.Watch = min(max(StopSettle-age, WatchFloor), e.watchLimit())
		p.WatchWhy = fmt.Sprintf("target state STOPPED in config topic %s since %s ago: a task told then to stop commits once more as it stops, within %s", p.ConfigTopic, plan.ShortDuration(age.Round(time.Second)), plan.ShortDuration(StopSettle))
	}
}

// flushIntervalOf is the connector's flush interval, and where it comes
// from: --flush-interval (the workers' offset.flush.interval.ms), else the
// Store's estimate from the connector's flushes, else from the other
// connectors' flushes in its offsets topic (offset.flush.interval.ms is a
// worker setting: every connector of the workers shares it; a connector
// just created or stopped has flushed too seldom to tell), else Connect's
// default.
func (e *Applier) flushIntervalOf(p *plan.Plan) (time.Duration, string) {
	if e.FlushInterval > 0 {
		return e.FlushInterval, "--flush-interval"
	}
	l, ok := e.Store.(interface{ Connectors() []model.ConnectorRow })
	if !ok {
		return model.DefaultFlushInterval, "Connect's default offset.flush.interval.ms: too few flushes to estimate"
	}
	workers := ""
	if ts := e.topics(); len(ts) > 0 {
		workers = ts[0]
	}
	var own time.Duration
	var others []time.Duration
	for _, r := range l.Connectors() {
		est := r.PartitionInterval
		if est <= 0 {
			est = model.EstimateInterval(r.Flushes)
		}
		switch {
		case est <= 0:
		case r.ID.Name == p.Connector && (p.Topic == "" || r.ID.Topic == p.Topic):
			if own == 0 || est < own {
				own = est
			}
		case r.ID.Name != p.Connector && (r.ID.Topic == p.Topic || r.ID.Topic == workers):
			others = append(others, est)
		}
	}
	switch {
	case own > 0:
		return own, "estimated from its flushes"
	case len(others) > 0:
		slices.Sort(others)
		n := "1 other connector"
		if len(others) > 1 {
			n = fmt.Sprintf("%d other connectors", len(others))
		}
		return others[len(others)/2], "too few flushes of its own: estimated from the flushes of " + n + " of its workers"
	}
	return model.DefaultFlushInterval, "Connect's default offset.flush.interval.ms: too few flushes to estimate"
}

// keepWatching goes on reading the written partitions for Plan.Watch after
// a verified read-back: another writer's record that replaces the edit's
// in that time makes it overwritten, never verified. A worker's record
// (no koff header) is final at once; another koff's may be a racing edit
// that lost and puts this edit's value back (verify.go), so it must stay
// for the verify timeout, as the read-back waits for one. A signal
// (Interrupt) or a cancelled ctx ends the watch early: the edit is then
// written and read back, but not verified (Result.Unwatched).
func (e *Applier) keepWatching(ctx context.Context, p *plan.Plan, w *logView, res *Result) {
	if p.Watch <= 0 || !res.Verified {
		return
	}
	start := time.Now()
	end := start.Add(p.Watch)
	var overSince time.Time
	for {
		over, final := w.overwrites(ctx, res)
		now := time.Now()
		switch {
		case len(over) == 0:
			overSince = time.Time{}
			if !now.Before(end) {
				return
			}
		case overSince.IsZero():
			overSince = now
		}
		if len(over) > 0 && (final || !now.Before(end) && now.Sub(overSince) >= e.verifyTimeout()) {
			res.Verified, res.Overwritten = false, over
			return
		}
		if e.Progress != nil {
			e.Progress(p, max(end.Sub(now), 0))
		}
		select {
		case <-ctx.Done():
		case <-e.Interrupt:
		case <-time.After(250 * time.Millisecond):
			continue
		}
		res.Verified, res.Unwatched = false, max(time.Since(start), time.Millisecond)
		if len(over) > 0 {
			res.Overwritten = over // seen, if not for long: it says more than "unknown"
		}
		return
	}
}

// overwrites are the written keys whose record in force is another
// writer's, with a different value; final when one of them is a worker's
// (a record without koff's header), which no one puts back.
func (w *logView) overwrites(ctx context.Context, res *Result) ([]Contest, bool) {
	p := w.p
	if w.rr == nil {
		// No log to read (a test fake): the Store's value is the word.
		var out []Contest
		for _, ch := range p.Changes {
			for _, wr := range ch.Writes {
				if now := w.e.current(wr); !plan.SameRecordValue(now, wr.Value, p.Path) {
					out = append(out, Contest{Partition: ch.PartitionJSON, Value: now, By: w.e.whoWrote(wr.Key, now)})
				}
			}
		}
		return out, true
	}
	vs, err := w.judge(ctx, res.Written)
	if err != nil {
		return nil, false // a failed read proves nothing; the next one may answer
	}
	var out []Contest
	final := false
	for _, v := range vs {
		if rec := v.overwritten; rec != nil {
			out = append(out, Contest{Partition: p.Changes[v.ref.ch].PartitionJSON, Value: rec.Value, By: w.e.writerOf(*rec)})
			final = final || !rec.Koff
		}
	}
	return out, final
}
