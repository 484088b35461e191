package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"koff/connect"
	"koff/edit/history"
	"koff/kafka"
	"koff/model/store"
)

// observer is koff's live view of a cluster: the tailer of the offsets
// topics, and the pollers of Connect REST, sink groups and unflushed
// records, all feeding one Store.
type observer struct {
	g      *Globals
	store  *store.Store
	tailer *kafka.Tailer
	rest   *connect.Client
	poller *connect.Poller
	// configs reads Connect's config topic (nil: --config-topic "");
	// readyConfigs waits for it once.
	configs    *configFeed
	configOnce sync.Once
	configErr  error
	configWarn string // why a default config topic could not be read
	// histories are the partition histories every dashboard of this
	// cluster shares, read once and followed (history.Share).
	histories *history.Share
	wg        sync.WaitGroup
	ctx       context.Context // ends with stop
	cancel    context.CancelFunc
}

// observe starts the tailer; pollers start with run (live) or are driven
// by refresh (one-shot and --watch).
func observe(ctx context.Context, g *Globals, rest *connect.Client) *observer {
	return observeWith(ctx, g, rest, false)
}

// observeWith is observe; oneShot is for a Store read once (koff get):
// it keeps what a task reads and every flag and note (store.StoreOptions
// OneShot), and the Tailer hands it only the latest record of each key
// bytes of a fetch (store.Latest).
func observeWith(ctx context.Context, g *Globals, rest *connect.Client, oneShot bool) *observer {
	return observeRead(ctx, g, rest, oneShot, nil)
}

// observeRead is observeWith; read, for a oneShot Store, takes the
// offsets topics' records instead of the Store until it gives up
// (kafka.TailerOptions.OneShot).
func observeRead(ctx context.Context, g *Globals, rest *connect.Client, oneShot bool, read *store.OneShotRead) *observer {
	ctx, cancel := context.WithCancel(ctx)
	o := &observer{g: g, store: store.NewStore(store.StoreOptions{OneShot: oneShot}), rest: rest, ctx: ctx, cancel: cancel}
	o.histories = &history.Share{Reloaded: func() time.Time { return o.store.Stats().Status.Reloaded }}
	for _, ct := range g.ConnectorTopics {
		name, topics, _ := strings.Cut(ct, "=")
		o.store.SetConnectorTopics(strings.TrimSpace(name), splitList(topics))
	}
	latest := 0
	if oneShot {
		latest = o.store.History()
	}
	t, done := startTailerWith(ctx, g, o.store, kafka.TailerOptions{Latest: latest, OneShot: read})
	o.tailer = t
	if !oneShot {
		// A one-shot read collects late (collectLate); a long-running
		// observer collects sparsely until first caught up.
		end := collectSparsely(g.env)
		o.wg.Add(1)
		go func() {
			defer o.wg.Done()
			defer end()
			select {
			case <-t.CaughtUp():
			case <-ctx.Done():
			}
		}()
	}
	o.configs = startConfigFeed(ctx, g, o.store)
	o.wg.Add(1)
	go func() { <-done; o.wg.Done() }()
	if rest != nil {
		o.poller = rest.NewPoller(o.store)
	}
	return o
}

// run starts the pollers, each on its own loop so a slow one never holds
// up the others. They stop with stop.
func (o *observer) run() {
	ctx, every := o.ctx, o.g.Refresh
	loop := func(f func(context.Context)) {
		o.wg.Add(1)
		go func() {
			defer o.wg.Done()
			for {
				f(ctx)
				select {
				case <-ctx.Done():
					return
				case <-time.After(every):
				}
			}
		}()
	}
	if o.poller != nil {
		loop(func(ctx context.Context) { o.poller.Once(ctx); o.followOwnTopics() })
	}
	if o.configs != nil {
		o.wg.Add(1)
		go func() {
			defer o.wg.Done()
			if err := o.readyConfigs(ctx); err != nil {
				o.g.logf("%v", err)
				return
			}
			loop(func(context.Context) { o.followOwnTopics() })
		}()
	}
	k := o.g.kafkaConfig()
	loop(func(ctx context.Context) { k.PollGroupsOnce(ctx, o.store) })
	// Checked often, measured when a flush moved or a refresh passed.
	unflushed := k.NewUnflushedPoller(o.store, every)
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		for {
			unflushed.Once(ctx)
			select {
			case <-ctx.Done():
				return
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
}

// refresh polls everything once, in order: REST first, since it names the
// sink groups and the topics the others measure. A Connect that cannot be
// asked leaves its error in the Store's REST status (see restDown): the
// rest is still what Kafka knows.
func (o *observer) refresh(ctx context.Context) error {
	if err := o.readyConfigs(ctx); err != nil {
		return err
	}
	o.followOwnTopics()
	if o.poller != nil {
		if err := o.poller.Once(ctx); err != nil && (ctx.Err() != nil || connect.IsMisconfigured(err)) {
			return err
		} else if err == nil {
			o.followOwnTopics()
		}
	}
	k := o.g.kafkaConfig()
	if err := k.PollGroupsOnce(ctx, o.store); err != nil {
		return err
	}
	k.PollUnflushedOnce(ctx, o.store)
	return nil
}

// followOwnTopics tails every connector's own offsets.storage.topic as
// Connect's REST API or its config topic reveals it: that topic is
// authoritative for the connector's tasks.
func (o *observer) followOwnTopics() {
	for _, c := range o.store.REST().Connectors {
		if topic := strings.TrimSpace(c.Config["offsets.storage.topic"]); topic != "" {
			o.tailer.AddTopic(topic)
		}
	}
	for _, topic := range ownTopics(o.store) {
		o.tailer.AddTopic(topic)
	}
}

// readyConfigs waits, once, until the config topic was read to its end
// (see configFeed.ready); a default config topic that does not exist, or
// cannot be read (configWarn says why), is no error: koff then reads none.
func (o *observer) readyConfigs(ctx context.Context) error {
	if o.configs == nil {
		return nil
	}
	o.configOnce.Do(func() {
		o.configErr = o.configs.ready(ctx)
		if errors.Is(o.configErr, errNoConfigTopic) {
			o.configErr = nil
		}
		var u *configUnreadable
		if errors.As(o.configErr, &u) {
			o.configWarn, o.configErr = u.Error(), nil
		}
	})
	return o.configErr
}

// restDown is the error of the last REST poll, "" when it answered.
func restDown(store *store.Store) string { return store.REST().Err }

// warnRESTDown says on stderr that Connect could not be asked, and what is
// missing from what follows.
func warnRESTDown(env Env, store *store.Store, err error) {
	fmt.Fprintf(env.Stderr, "koff: warning: %v: showing what Kafka knows (%s)\n", err, withoutREST(store))
}

// withoutREST says what koff knows without Connect's REST API: the config
// topic's word, when it reads one.
func withoutREST(store *store.Store) string {
	if t := store.ConnectConfigs().Topic; t != "" {
		return "target states, own offsets topics and sink groups from config topic " + t + "; no connector status"
	}
	return "no connector states, no connectors' own offsets topics; sinks by their connect-* groups"
}

// withRESTDown adds Connect's error to a failure that REST could have
// answered (a connector Kafka does not know): the user asked for REST data.
func withRESTDown(store *store.Store, err error) error {
	if e := restDown(store); e != "" {
		return fmt.Errorf("%w (Connect REST could not be asked: %s)", err, e)
	}
	return err
}

func (o *observer) stop() {
	o.cancel()
	o.wg.Wait()
}
