package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"koff/kafka"
	"koff/model"
	"koff/model/store"
)

// configFeed reads Connect's config topic (--config-topic) live into a
// Store: connectors' configs and target states, what Connect knows without
// its REST API being asked.
type configFeed struct {
	g      *Globals
	tailer *kafka.Tailer
	feed   *store.ConfigFeed
	cancel context.CancelFunc
	done   <-chan struct{}
}

// errNoConfigTopic: the default config topic does not exist on this
// cluster; koff reads none and says what it cannot know.
var errNoConfigTopic = errors.New("no config topic")

// startConfigFeed starts reading the config topic into st; nil when
// --config-topic is "".
func startConfigFeed(ctx context.Context, g *Globals, st *store.Store) *configFeed {
	if g.ConfigTopic == "" {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	f := &store.ConfigFeed{Store: st, Topic: g.ConfigTopic}
	t := kafka.NewTailer(g.kafkaConfig(), []string{g.ConfigTopic}, f, kafka.TailerOptions{Rescan: g.Refresh * 5, Logf: g.logf})
	done := make(chan struct{})
	go func() { t.Run(ctx); close(done) }()
	return &configFeed{g: g, tailer: t, feed: f, cancel: cancel, done: done}
}

// ready waits until the config topic was read to its end, then hands it to
// the Store. A config topic that does not exist is errNoConfigTopic (the
// feed stops) unless it was named: then it is an error.
func (c *configFeed) ready(ctx context.Context) error {
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-c.tailer.CaughtUp():
			if len(c.tailer.Missing()) > 0 {
				return c.missing()
			}
			c.feed.Publish()
			return nil
		case <-ctx.Done():
			return fmt.Errorf("reading config topic %s: %w", c.g.ConfigTopic, ctx.Err())
		case <-tick.C:
			switch st := c.tailer.Status(); st.State {
			case model.TailWaitingForTopic:
				return c.missing()
			case model.TailDisconnected:
				c.stop()
				err := fmt.Errorf("cannot read config topic %s from Kafka at %s: %s", c.g.ConfigTopic, strings.Join(c.g.Bootstrap, ","), st.Reason)
				if c.g.configTopicGiven {
					return err
				}
				return &configUnreadable{err}
			}
		}
	}
}

// configUnreadable: the default config topic exists but cannot be read
// (an ACL, say): koff goes on without it, and says so on stderr.
type configUnreadable struct{ err error }

func (e *configUnreadable) Error() string {
	return e.err.Error() + ": connectors' target states and own offsets topics are unknown without --connect-url"
}

// warnConfig says on stderr why the config topic is not read, if it
// cannot be; errors that are no warning are returned.
func warnConfig(env Env, err error) error {
	var u *configUnreadable
	switch {
	case errors.As(err, &u):
		fmt.Fprintf(env.Stderr, "koff: warning: %v\n", err)
		return nil
	case errors.Is(err, errNoConfigTopic):
		return nil
	}
	return err
}

func (c *configFeed) missing() error {
	c.stop()
	if c.g.configTopicGiven {
		return fmt.Errorf("config topic %s does not exist on %s", c.g.ConfigTopic, strings.Join(c.g.Bootstrap, ","))
	}
	return errNoConfigTopic
}

func (c *configFeed) stop() {
	c.cancel()
	<-c.done
}

// ownTopics are the own offsets.storage.topic of every connector the
// config topic holds.
func ownTopics(st *store.Store) []string {
	var out []string
	for _, c := range st.ConnectConfigs().Connectors {
		if t := c.OwnOffsetsTopic(); t != "" && c.Config != nil && !contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
