package cli

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"koff/demo"
	"koff/internal/faultproxy"
	"koff/model"
)

// An outage is shown as an outage. While Kafka cannot be reached — from
// the first seconds of silence, before the Tailer says it stalled — no
// connector turns late or stalled because koff is blind: its flush is
// "unknown (…)". While Connect's REST API cannot be reached, a connector's
// state is the last one REST gave, with its age, and no evidence. After
// each outage everything returns by itself.
func TestAnOutageIsShownAsAnOutage(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0") // a free port for the broker, known to the proxy first
	if err != nil {
		t.Fatal(err)
	}
	listen := ln.Addr().String()
	ln.Close()
	kp, err := faultproxy.Listen(listen)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kp.Close)
	c, err := demo.Start(context.Background(), demo.Options{FlushInterval: 4 * time.Second, StallAfter: time.Hour, ConnectListen: "127.0.0.1:0", KafkaListen: listen, KafkaAdvertise: kp.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	t.Cleanup(func() { kp.Set(faultproxy.Pass) }) // first: the workers close through it
	rp, err := faultproxy.NewREST(c.ConnectURL())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)

	g := &Globals{Bootstrap: []string{kp.Addr()}, OffsetsTopics: []string{"connect-offsets"}, Refresh: 200 * time.Millisecond,
		ConnectURL: srv.URL, logger: log.New(io.Discard, "", 0)}
	rest, err := g.connectClient()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := observe(ctx, g, rest)
	defer o.stop()
	o.run()

	// judged is every authoritative source's flush status now, by name.
	judged := func() map[string]model.FlushReport {
		out := map[string]model.FlushReport{}
		now := time.Now()
		for _, r := range o.store.Connectors() {
			if r.Type == "source" && r.Authoritative() && r.ID.Topic != "" && !r.Orphaned {
				out[r.ID.Name] = r.Flush(now, 0)
			}
		}
		return out
	}
	blamed := func(reps map[string]model.FlushReport) string {
		var s []string
		for name, r := range reps {
			if r.Status == model.FlushLate || r.Status == model.FlushStalled {
				s = append(s, fmt.Sprintf("%s %s (%s)", name, r.Status, r.Reason))
			}
		}
		return strings.Join(s, "; ")
	}
	waitUntil(t, "every connector flushing live, none late", func() bool {
		reps := judged()
		mm2 := reps["mm2-primary"]
		return o.store.Stats().Status.State == model.TailLive && blamed(reps) == "" && mm2.Status == model.FlushOK && mm2.Interval < 8*time.Second
	})

	kp.Set(faultproxy.Blackhole)
	var silent, stalled bool
	deadline := time.Now().Add(30 * time.Second)
	for !stalled || time.Now().Before(deadline.Add(-25*time.Second)) {
		if time.Now().After(deadline) {
			t.Fatalf("the Tailer never said it stalled: %+v\n%+v", o.store.Stats().Status, judged())
		}
		st := o.store.Stats().Status
		reps := judged()
		if b := blamed(reps); b != "" {
			t.Fatalf("koff is blind (tailer %s, silent since %v), yet: %s", st.State, st.Silent, b)
		}
		for _, r := range reps {
			silent = silent || r.Status == model.FlushUnknown && strings.HasPrefix(r.Reason, "no answer from Kafka for ")
			// The Tailer says stalled, or disconnected once a fetch times out.
			stalled = stalled || r.Status == model.FlushUnknown && (strings.HasPrefix(r.Reason, "Kafka stalled since ") || strings.HasPrefix(r.Reason, "Kafka disconnected since "))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !silent {
		t.Errorf("no connector was shown unknown before the Tailer stalled")
	}
	kp.Set(faultproxy.Pass)
	waitUntil(t, "flushes seen again after Kafka came back", func() bool {
		reps := judged()
		return o.store.Stats().Status.State == model.TailLive && reps["mm2-primary"].Status == model.FlushOK && blamed(reps) == ""
	})

	rp.Set(faultproxy.REST503, "", "/connectors")
	var row model.ConnectorRow
	waitUntil(t, "REST's state to be marked old", func() bool {
		for _, r := range o.store.Connectors() {
			if r.ID.Name == "mm2-primary" && r.RESTStale != "" && time.Since(r.RESTAt) > time.Second {
				row = r
				return true
			}
		}
		return false
	})
	if s := stateOf(row, time.Now()); !strings.HasPrefix(s, "RUNNING (") || !strings.HasSuffix(s, " ago)") {
		t.Errorf("a state REST gave before its outage is shown as %q, want its age", s)
	}
	rp.Set(faultproxy.RESTPass, "", "/connectors")
	waitUntil(t, "REST's state to be current again", func() bool {
		for _, r := range o.store.Connectors() {
			if r.ID.Name == "mm2-primary" {
				return r.RESTStale == "" && stateOf(r, time.Now()) == "RUNNING"
			}
		}
		return false
	})
}
