package kafka

import (
	"context"
	"fmt"
	"net"
	"reflect"
	"sync"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"

	"koff/internal/faultproxy"
	"koff/model"
	"koff/model/store"
)

// advertised is a listener kfake names in metadata by another address: the
// fault proxy's, so every client connection goes through the proxy.
type advertised struct {
	net.Listener
	addr net.Addr
}

func (a advertised) Addr() net.Addr { return a.addr }

// proxiedBroker starts a kfake broker behind a fault proxy. It returns the
// proxy and the broker's own address, for a test's producer to reach it
// whatever the proxy does.
func proxiedBroker(t *testing.T, opts ...kfake.Opt) (*faultproxy.Proxy, string) {
	t.Helper()
	p, _, direct := proxiedCluster(t, opts...)
	return p, direct
}

// proxiedCluster is proxiedBroker with its cluster, for a test that
// controls its answers.
func proxiedCluster(t *testing.T, opts ...kfake.Opt) (*faultproxy.Proxy, *kfake.Cluster, string) {
	t.Helper()
	p, err := faultproxy.Listen("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	adv, _ := net.ResolveTCPAddr("tcp", p.Addr())
	var direct string
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.ListenFn(func(network, _ string) (net.Listener, error) {
		l, err := net.Listen(network, "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		direct = l.Addr().String()
		return advertised{l, adv}, nil
	})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	p.SetTarget(direct)
	return p, c, direct
}

// directClient reaches the broker at direct whatever address metadata names.
func directClient(direct string) *kafkago.Client {
	return &kafkago.Client{Addr: kafkago.TCP(direct), Timeout: 10 * time.Second, Transport: &kafkago.Transport{
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, direct)
		},
	}}
}

func produceDirect(t *testing.T, c *kafkago.Client, topic string, partition int, recs ...kv) {
	t.Helper()
	var rr []kafkago.Record
	for _, r := range recs {
		rr = append(rr, kafkago.Record{Key: kafkago.NewBytes([]byte(r.key)), Value: kafkago.NewBytes([]byte(r.value)), Time: time.Now()})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var last error
	for i := 0; i < 50; i++ {
		res, err := c.Produce(ctx, &kafkago.ProduceRequest{Topic: topic, Partition: partition, RequiredAcks: kafkago.RequireAll, Records: kafkago.NewRecordReader(rr...)})
		if err == nil && res.Error == nil {
			return
		}
		last = err
		if err == nil {
			last = res.Error
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("produce: %v", last)
}

// stateLog samples a Tailer's state every few milliseconds.
type stateLog struct {
	mu      sync.Mutex
	samples []stateSample
}

type stateSample struct {
	at time.Time
	st model.TailStatus
}

func (l *stateLog) run(ctx context.Context, tl *Tailer) {
	for ctx.Err() == nil {
		l.mu.Lock()
		l.samples = append(l.samples, stateSample{time.Now(), tl.Status()})
		l.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
}

func (l *stateLog) between(from, to time.Time) []stateSample {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []stateSample
	for _, s := range l.samples {
		if !s.at.Before(from) && s.at.Before(to) {
			out = append(out, s)
		}
	}
	return out
}

// snapshot is what a Store holds of the offsets topics, to compare with a
// fresh load: every partition's value and full history, and each
// connector's flush events.
func snapshot(s *store.Store) map[string]any {
	out := map[string]any{"records": s.Stats().Records}
	for _, c := range s.Connectors() {
		out["flushes/"+c.ID.Name] = len(c.Flushes)
		for _, r := range s.Partitions(c.ID) {
			d, _ := s.Partition(r.ID)
			var hist []string
			for _, u := range d.History {
				hist = append(hist, fmt.Sprintf("%d=%s", u.RecordOffset, u.Value))
			}
			out["partition/"+c.ID.Name+r.Partition] = fmt.Sprint(r.Offset, r.RecordOffset, r.Updates, hist)
		}
	}
	return out
}

// An outage, refused or blackholed, ends without operator action: the
// Tailer never says live while no fetch is answered, says disconnected or
// stalled within its bound, recovers once traffic passes, and then holds
// exactly what a fresh load holds: no record twice, none missed.
func TestTailerOutagesRecover(t *testing.T) {
	for _, mode := range []faultproxy.Mode{faultproxy.Refuse, faultproxy.Blackhole, faultproxy.Reset, faultproxy.Pause} {
		t.Run(mode.String(), func(t *testing.T) { testOutage(t, mode) })
	}
}

func testOutage(t *testing.T, mode faultproxy.Mode) {
	p, direct := proxiedBroker(t)
	createTopic(t, p.Addr(), "connect-offsets", 5)
	prod := directClient(direct)
	write := func(round int) {
		for part := 0; part < 5; part++ {
			produceDirect(t, prod, "connect-offsets", part,
				kv{key: keyIn("src", part, 5), value: fmt.Sprintf(`{"offset":%d}`, round)},
				kv{key: keyIn("other", part, 5), value: fmt.Sprintf(`{"offset":%d}`, round)})
		}
	}
	write(0)
	opts := TailerOptions{MaxWait: 200 * time.Millisecond, StallAfter: 2 * time.Second, Rescan: time.Second}
	tl, st := runTailer(t, p.Addr(), []string{"connect-offsets"}, opts)
	waitFor(t, "live", 15*time.Second, func() bool { return tl.Status().State == model.TailLive })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log stateLog
	go log.run(ctx, tl)

	down := time.Now()
	if err := p.Set(mode); err != nil {
		t.Fatal(err)
	}
	// Records keep arriving while koff cannot see them.
	for round := 1; round <= 3; round++ {
		time.Sleep(outage / 4)
		write(round)
	}
	time.Sleep(outage / 4)
	up := time.Now()
	if err := p.Set(faultproxy.Pass); err != nil {
		t.Fatal(err)
	}
	write(4)
	waitFor(t, "live again with every record", 60*time.Second, func() bool {
		rows := st.Partitions(model.ConnectorID{Topic: "connect-offsets", Name: "src"})
		return tl.Status().State == model.TailLive && len(rows) == 5 && rows[0].Offset == `{"offset":4}` && rows[4].Offset == `{"offset":4}`
	})
	t.Logf("%s outage of %s: live again %s after traffic passed", mode, up.Sub(down).Round(time.Millisecond), time.Since(up).Round(time.Millisecond))

	var states []string
	for _, s := range log.between(down, time.Now()) {
		if w := s.st.State.String(); len(states) == 0 || states[len(states)-1] != w {
			states = append(states, w)
			t.Logf("  %6s  %s: %s", s.at.Sub(down).Round(10*time.Millisecond), w, s.st.Reason)
		}
	}

	// The truth throughout: once the bound has passed, never live until
	// traffic passes; and one outage, with one start.
	bound := opts.StallAfter + 500*time.Millisecond
	var since time.Time
	for _, s := range log.between(down.Add(bound), up) {
		switch s.st.State {
		case model.TailDisconnected, model.TailStalled:
		default:
			t.Fatalf("%s after %s of outage: want disconnected or stalled", s.st.State, s.at.Sub(down).Round(time.Millisecond))
		}
		if since.IsZero() {
			since = s.st.Since
		} else if !s.st.Since.Equal(since) {
			t.Errorf("the outage's start moved from %s to %s", since, s.st.Since)
		}
		if since.Before(down.Add(-time.Second)) || since.After(down.Add(bound)) {
			t.Errorf("outage since %s, began at %s", since, down)
		}
	}

	fresh := store.NewStore(store.StoreOptions{})
	ftl := NewTailer(Config{Brokers: []string{direct}}, []string{"connect-offsets"}, fresh, TailerOptions{})
	fctx, fcancel := context.WithCancel(context.Background())
	fdone := make(chan struct{})
	go func() { ftl.Run(fctx); close(fdone) }()
	defer func() { fcancel(); <-fdone }()
	<-ftl.CaughtUp()
	got, want := snapshot(st), snapshot(fresh)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after the outage the model differs from a fresh load:\n got  %v\n want %v", got, want)
	}
}
