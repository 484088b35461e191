package store

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"koff/model"
)

// ConfigFeed reads Connect's config topic into a Store, as the workers'
// KafkaConfigBackingStore reads it: it is a Tailer's Handler for that topic.
// Its snapshot is published to the Store by Publish, once the topic was read
// to its end, and after every batch from then on.
type ConfigFeed struct {
	Store *Store
	Topic string

	mu        sync.Mutex
	configs   map[string]map[string]string
	targets   map[string]string
	since     map[string]time.Time // when each target state was set
	published bool
}

// Ingest applies a batch of config records, keyed by string, in order.
func (f *ConfigFeed) Ingest(batch []Record) {
	f.mu.Lock()
	for _, r := range batch {
		f.apply(string(r.Key), r.Value, r.Time)
	}
	pub := f.published
	f.mu.Unlock()
	if pub {
		f.Publish()
	}
}

// Publish hands the Store what the config topic says now: call it once the
// topic was read to its end (a half-read topic would say a connector has
// no config).
func (f *ConfigFeed) Publish() {
	f.mu.Lock()
	f.published = true
	snap := model.ConnectConfigs{Topic: f.Topic, Connectors: map[string]model.ConnectorConfig{}}
	for name, st := range f.targets {
		snap.Connectors[name] = model.ConnectorConfig{Name: name, Config: f.configs[name], TargetState: st, TargetSince: f.since[name]}
	}
	f.mu.Unlock()
	f.Store.SetConnectConfigs(snap)
}

// SetStatus, SetTopicPartitions: the config topic's reading state is not
// the offsets topics'; the Store's header keeps theirs.
func (f *ConfigFeed) SetStatus(model.TailStatus) {}

func (f *ConfigFeed) SetTopicPartitions(string, int) {}

// Reset forgets what was read: the topic is read again from scratch.
func (f *ConfigFeed) Reset() {
	f.mu.Lock()
	f.configs, f.targets, f.since = nil, nil, nil
	f.mu.Unlock()
}

// apply is KafkaConfigBackingStore's processConnectorConfigRecord and
// processTargetStateRecord (Apache Kafka 4.1.1): values are JSON written by
// the workers' internal JsonConverter with schemas.enable=false; a value
// Connect cannot read is ignored, as Connect logs and ignores it. Task
// configs, commits, restarts and session keys say nothing koff needs.
func (f *ConfigFeed) apply(key string, value []byte, at time.Time) {
	if f.configs == nil {
		f.configs, f.targets, f.since = map[string]map[string]string{}, map[string]string{}, map[string]time.Time{}
	}
	tombstone := value == nil || len(bytes.TrimSpace(value)) == 0 || string(bytes.TrimSpace(value)) == "null"
	switch {
	case strings.HasPrefix(key, "target-state-"):
		name := key[len("target-state-"):]
		if tombstone {
			delete(f.targets, name)
			delete(f.since, name)
			if _, ok := f.configs[name]; ok {
				f.targets[name] = model.TargetStarted
			}
			return
		}
		var v map[string]any
		if json.Unmarshal(value, &v) != nil {
			return
		}
		st, ok := v["state.v2"].(string)
		if !ok {
			// Written by an older worker: it has only "state", where a
			// newer one writes STOPPED as PAUSED.
			if st, ok = v["state"].(string); !ok {
				return
			}
		}
		switch st {
		case model.TargetStarted, model.TargetPaused, model.TargetStopped:
			if f.targets[name] != st || f.since[name].IsZero() {
				// The same state written again changes nothing: its tasks
				// were told when it was first set. A record without a
				// timestamp (-1) says nothing of when.
				f.since[name] = at
				if at.Before(time.Unix(0, 0)) {
					f.since[name] = time.Time{}
				}
			}
			f.targets[name] = st
		}
	case strings.HasPrefix(key, "connector-"):
		name := key[len("connector-"):]
		if tombstone {
			// Its target state goes by a tombstone of its own.
			delete(f.configs, name)
			return
		}
		var v map[string]any
		dec := json.NewDecoder(bytes.NewReader(value))
		dec.UseNumber()
		if dec.Decode(&v) != nil {
			return
		}
		props, ok := v["properties"].(map[string]any)
		if !ok {
			return
		}
		cfg := make(map[string]string, len(props))
		for k, x := range props {
			if s, ok := x.(string); ok {
				cfg[k] = s
			}
		}
		f.configs[name] = cfg
		if _, ok := f.targets[name]; !ok {
			f.targets[name] = model.TargetStarted
		}
	}
}

// SetConnectConfigs records what Connect's config topic says (ConfigFeed).
func (s *Store) SetConnectConfigs(c model.ConnectConfigs) {
	s.configs.Store(&c)
	s.bump()
}

// ConnectConfigs is the latest snapshot of the config topic (zero, Topic
// "", when none was read).
func (s *Store) ConnectConfigs() model.ConnectConfigs {
	if c := s.configs.Load(); c != nil {
		return *c
	}
	return model.ConnectConfigs{}
}

// ConnectorConfig is the config topic's word on one connector; ok is false
// when koff reads no config topic.
func (s *Store) ConnectorConfig(name string) (model.ConnectorConfig, bool) {
	return s.ConnectConfigs().Connector(name)
}
