package interop

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"koff/kafka"
	"koff/model"
	"koff/model/store"
)

// readConfigTopic reads the worker's config topic (connect-configs, see
// writeConfigs in stack.go) to its end the way koff does (a Tailer into a
// store.ConfigFeed), and returns koff's parse and the raw records.
func (s *Stack) readConfigTopic(t *testing.T) (model.ConnectConfigs, map[string]string) {
	t.Helper()
	st := store.NewStore(store.StoreOptions{})
	raw := &rawRecords{last: map[string]string{}}
	feed := &store.ConfigFeed{Store: st, Topic: "connect-configs"}
	tl := kafka.NewTailer(kafka.Config{Brokers: []string{s.Bootstrap}}, []string{"connect-configs"}, teeHandler{feed, raw}, kafka.TailerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tl.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	select {
	case <-tl.CaughtUp():
	case <-time.After(60 * time.Second):
		t.Fatal("config topic not read to its end within 60s")
	}
	feed.Publish()
	return st.ConnectConfigs(), raw.last
}

type rawRecords struct{ last map[string]string }

// teeHandler hands each batch to the feed and keeps every key's last raw
// value.
type teeHandler struct {
	*store.ConfigFeed
	raw *rawRecords
}

func (h teeHandler) Ingest(batch []store.Record) {
	for _, r := range batch {
		h.raw.last[string(r.Key)] = string(r.Value)
	}
	h.ConfigFeed.Ingest(batch)
}

// TestConfigTopicOfTheRealWorker: koff's parse of the worker's config topic
// says what REST says (class, own offsets topic, target state after stop,
// pause and resume), the records have the shapes koff reads; and koff
// reset without --connect-url of a stopped connector with its own
// offsets.storage.topic, learnt from the config topic alone, makes the real
// task read its file again from the start after resume.
func TestConfigTopicOfTheRealWorker(t *testing.T) {
	s := realStack(t)
	const own = "cfg-own-offsets"
	f := s.newFileConnectorWith(t, "cfg-own", 5, map[string]string{"offsets.storage.topic": own})

	check := func(target string) {
		t.Helper()
		cfgs, raw := s.readConfigTopic(t)
		c, ok := cfgs.Connector(f.name)
		var rest map[string]string
		decode(t, s.mustREST(t, 200, "GET", "/connectors/"+f.name+"/config", nil), &rest)
		if !ok || c.Class() != rest["connector.class"] || c.OwnOffsetsTopic() != own || c.TargetState != target {
			t.Errorf("koff's parse of the config topic: class %q own %q target %q; REST: class %q own %q, target %s",
				c.Class(), c.OwnOffsetsTopic(), c.TargetState, rest["connector.class"], rest["offsets.storage.topic"], target)
		}
		for k, v := range rest {
			if c.Config[k] != v {
				t.Errorf("config %s: config topic %q, REST %q", k, c.Config[k], v)
			}
		}
		// The bytes as KafkaConfigBackingStore writes them: JSON without a
		// schema envelope, STOPPED written as PAUSED in "state".
		old := target
		if target == "STOPPED" {
			old = "PAUSED"
		}
		if got, want := raw["target-state-"+f.name], `{"state":"`+old+`","state.v2":"`+target+`"}`; got != want && target != "STARTED" {
			t.Errorf("target-state record: %s, want %s", got, want)
		}
		if got := raw["connector-"+f.name]; !strings.HasPrefix(got, `{"properties":{`) {
			t.Errorf("connector record: %s", got)
		}
	}
	check("STARTED")
	s.mustREST(t, 202, "PUT", "/connectors/"+f.name+"/pause", nil)
	s.waitState(t, f.name, "PAUSED")
	check("PAUSED")
	s.stop(t, f.name)
	check("STOPPED")

	// Without --connect-url: koff learns the own topic from the config
	// topic and resets the offset there.
	out := mustKoff(t, s.withTopic("reset", f.name, "--yes")...)
	if !strings.Contains(out, "offsets topic "+own) || !strings.Contains(out, "write "+own+"/") || !strings.Contains(out, "verified: reset") ||
		!strings.Contains(out, "target state STOPPED (config topic connect-configs)") {
		t.Errorf("koff reset without REST:\n%s", out)
	}
	from := s.endOffset(t, f.topic, 0)
	s.resume(t, f.name)
	rs := s.readUntil(t, f.topic, 0, from, 120*time.Second, func(rs []record) bool { return len(rs) >= 5 })
	for i, r := range rs[:5] {
		if got, want := lineText(t, r.Value), f.name+"-"+strconv.Itoa(i+1); got != want {
			t.Errorf("record %d after koff reset through the config topic's own offsets topic and resume: %q, want %q (the file again from line 1)", i, got, want)
		}
	}
	check("STARTED")
}
