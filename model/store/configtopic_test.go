package store

import (
	"testing"
	"time"

	"koff/model"
)

// The records as Apache Kafka 4.1.1's KafkaConfigBackingStore writes them
// (the worker's internal JsonConverter, schemas.enable=false), read as its
// processConnectorConfigRecord and processTargetStateRecord read them.
func TestConfigFeedReadsWhatWorkersWrite(t *testing.T) {
	s := NewStore(StoreOptions{})
	f := &ConfigFeed{Store: s, Topic: "connect-configs"}
	rec := func(k, v string) Record {
		r := Record{Topic: "connect-configs", Key: []byte(k)}
		if v != "" {
			r.Value = []byte(v)
		}
		return r
	}
	f.Ingest([]Record{
		rec("connector-files", `{"properties":{"connector.class":"FileStreamSource","offsets.storage.topic":"files-offsets","name":"files"}}`),
		rec("task-files-0", `{"properties":{"file":"/tmp/in"}}`),
		rec("commit-files", `{"tasks":1}`),
		rec("connector-es", `{"properties":{"connector.class":"ElasticsearchSink","consumer.override.group.id":"es-group"}}`),
		rec("target-state-es", `{"state":"PAUSED","state.v2":"STOPPED"}`),
		rec("connector-old", `{"properties":{"connector.class":"X"}}`),
		rec("target-state-old", `{"state":"PAUSED"}`), // an older worker: no state.v2
		rec("connector-gone", `{"properties":{"connector.class":"X"}}`),
		rec("connector-gone", ""),
		rec("target-state-gone", ""),
		rec("connector-bad", `{"properties":"not a map"}`),
	})
	if _, ok := s.ConnectorConfig("files"); ok {
		t.Fatal("a config topic not yet read to its end says nothing")
	}
	f.Publish()
	want := map[string][3]string{ // class, own topic / group, target
		"files": {"FileStreamSource", "files-offsets", model.TargetStarted},
		"es":    {"ElasticsearchSink", "es-group", model.TargetStopped},
		"old":   {"X", "", model.TargetPaused},
	}
	for name, w := range want {
		c, ok := s.ConnectorConfig(name)
		got := [3]string{c.Class(), c.OwnOffsetsTopic() + c.GroupOverride(), c.TargetState}
		if !ok || c.Config == nil || got != w {
			t.Errorf("%s: %v (ok %v), want %v", name, got, ok, w)
		}
	}
	for _, name := range []string{"gone", "bad", "never"} {
		if c, ok := s.ConnectorConfig(name); !ok || c.Config != nil {
			t.Errorf("%s: %+v (ok %v): want known to be absent from Connect", name, c, ok)
		}
	}
	// Live: a stop after the read is seen.
	f.Ingest([]Record{rec("target-state-files", `{"state":"PAUSED","state.v2":"STOPPED"}`)})
	if c, _ := s.ConnectorConfig("files"); c.TargetState != model.TargetStopped {
		t.Errorf("after a stop: %s", c.TargetState)
	}
	if g := s.SinkGroups(); len(g) != 1 || g[0] != "es-group" {
		t.Errorf("sink groups to poll: %v", g)
	}
}

// A target state remembers when it was set: the stop, not a repeat of it.
func TestConfigFeedKeepsWhenTheTargetStateWasSet(t *testing.T) {
	s := NewStore(StoreOptions{})
	f := &ConfigFeed{Store: s, Topic: "connect-configs"}
	t0 := time.Date(2026, 12, 5, 4, 0, 0, 0, time.UTC)
	rec := func(k, v string, at time.Time) Record {
		return Record{Topic: "connect-configs", Key: []byte(k), Value: []byte(v), Time: at}
	}
	f.Ingest([]Record{
		rec("connector-files", `{"properties":{"connector.class":"FileStreamSource"}}`, t0),
		rec("target-state-files", `{"state":"PAUSED","state.v2":"STOPPED"}`, t0.Add(time.Minute)),
		rec("target-state-files", `{"state":"PAUSED","state.v2":"STOPPED"}`, t0.Add(2*time.Minute)),
	})
	f.Publish()
	if c, _ := s.ConnectorConfig("files"); c.TargetState != model.TargetStopped || !c.TargetSince.Equal(t0.Add(time.Minute)) {
		t.Errorf("stopped: %s since %s", c.TargetState, c.TargetSince)
	}
	f.Ingest([]Record{rec("target-state-files", `{"state":"STARTED"}`, t0.Add(3*time.Minute))})
	if c, _ := s.ConnectorConfig("files"); c.TargetState != model.TargetStarted || !c.TargetSince.Equal(t0.Add(3*time.Minute)) {
		t.Errorf("started: %s since %s", c.TargetState, c.TargetSince)
	}
}
