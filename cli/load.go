package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"koff/kafka"
	"koff/model"
)

// startTailer runs a Tailer into h until ctx ends.
func startTailer(ctx context.Context, g *Globals, h kafka.Handler) (*kafka.Tailer, <-chan struct{}) {
	return startTailerLatest(ctx, g, h, 0)
}

// startTailerLatest is startTailer handing on only the latest record of
// each key bytes of a fetch, with latest-1 times before it
// (kafka.TailerOptions.Latest), when latest > 0: for a one-shot read.
func startTailerLatest(ctx context.Context, g *Globals, h kafka.Handler, latest int) (*kafka.Tailer, <-chan struct{}) {
	return startTailerFrom(ctx, g, h, latest, nil)
}

// startTailerFrom is startTailerLatest going on from where a history
// read loaded h (kafka.TailerOptions.From; nil: from the start).
func startTailerFrom(ctx context.Context, g *Globals, h kafka.Handler, latest int, from map[model.TopicPartition]int64) (*kafka.Tailer, <-chan struct{}) {
	return startTailerWith(ctx, g, h, kafka.TailerOptions{Latest: latest, From: from})
}

// startTailerWith is startTailer with opts (its Rescan and Logf are
// koff's).
func startTailerWith(ctx context.Context, g *Globals, h kafka.Handler, opts kafka.TailerOptions) (*kafka.Tailer, <-chan struct{}) {
	opts.Rescan, opts.Logf = g.Refresh*5, g.logf
	t := kafka.NewTailer(g.kafkaConfig(), g.OffsetsTopics, h, opts)
	done := make(chan struct{})
	go func() { t.Run(ctx); close(done) }()
	return t, done
}

// waitCaughtUp waits until the tailer has read every offsets topic to the
// end it had at start. A broker that cannot be reached, or a missing topic,
// is an error at once: a script must not hang.
func waitCaughtUp(ctx context.Context, g *Globals, t *kafka.Tailer, timeout time.Duration) error {
	start := time.Now()
	timedOut := func() error {
		st := t.Status()
		return fmt.Errorf("timed out after %s reading %s (%s, %d of %d offsets read)", waited(start), strings.Join(g.OffsetsTopics, ", "), st.State, st.Read, st.Total)
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-t.CaughtUp():
			if m := t.Missing(); len(m) > 0 {
				return missingErr(g, m)
			}
			return nil
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return timedOut()
			}
			return ctx.Err()
		case <-deadline.C:
			return timedOut()
		case <-tick.C:
			switch st := t.Status(); st.State {
			case model.TailDisconnected:
				return fmt.Errorf("cannot read from Kafka at %s: %s", strings.Join(g.Bootstrap, ","), st.Reason)
			case model.TailWaitingForTopic:
				return missingErr(g, t.Missing())
			}
		}
	}
}

func missingErr(g *Globals, topics []string) error {
	return fmt.Errorf("offsets topic %s does not exist on %s", strings.Join(topics, ", "), strings.Join(g.Bootstrap, ","))
}

// waited is how long since start, as a timeout message says it: the time
// really waited, not the limit that was set.
func waited(start time.Time) string {
	d := time.Since(start)
	if d < 10*time.Second {
		return intervalText(d)
	}
	return ageText(d.Round(time.Second))
}
