package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kgo"
)

// normJSON renders JSON with sorted fields and numbers as written.
func normJSON(t *testing.T, s string) string {
	t.Helper()
	v, err := decodeJSON([]byte(s))
	if err != nil {
		return "invalid JSON " + s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// offsetRecord is one record of an offsets topic.
type offsetRecord struct {
	Partition int
	Offset    int64
	Key       []byte
	Value     []byte
}

// offsetsTopic reads every committed record of an offsets topic.
func (s *Stack) offsetsTopic(t *testing.T, topic string) []offsetRecord {
	t.Helper()
	c := &kafka.Client{Addr: kafka.TCP(s.Bootstrap), Timeout: 10 * time.Second}
	var out []offsetRecord
	for _, p := range s.waitLeaders(t, c, topic, 0) {
		end := s.endOffset(t, topic, p.ID)
		if end == 0 {
			continue
		}
		r := kafka.NewReader(kafka.ReaderConfig{
			Brokers: []string{s.Bootstrap}, Topic: topic, Partition: p.ID,
			IsolationLevel: kafka.ReadCommitted, MinBytes: 1, MaxBytes: 1 << 20, MaxWait: 200 * time.Millisecond,
		})
		// Transaction markers take offsets too: stop when the next record
		// does not come.
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			m, err := r.ReadMessage(ctx)
			cancel()
			if err != nil {
				break
			}
			out = append(out, offsetRecord{p.ID, m.Offset, m.Key, m.Value})
			if m.Offset >= end-1 {
				break
			}
		}
		r.Close()
	}
	return out
}

// shapesResumed waits for the first record of partition name that the
// shapes task produced after from, and returns its resumed_from.
func (s *Stack) shapesResumed(t *testing.T, topic, partition string, from int64) string {
	t.Helper()
	var resumed string
	s.readUntil(t, topic, 0, from, 60*time.Second, func(rs []record) bool {
		for _, r := range rs {
			var v struct {
				Partition   string          `json:"partition"`
				ResumedFrom json.RawMessage `json:"resumed_from"`
			}
			if json.Unmarshal(r.Value, &v) == nil && v.Partition == partition && v.ResumedFrom != nil {
				resumed = string(v.ResumedFrom)
				return true
			}
		}
		return false
	})
	return resumed
}

// TestOwnOffsetsTopicWithExactlyOnce: a source connector with its own
// offsets.storage.topic and exactly.once.support=required. Its offsets are
// written in transactions; koff reads them read_committed (a record of an
// aborted transaction is neither shown nor read by the task), marks the
// copies the worker also writes to connect-offsets as secondary, writes an
// edit to the connector's own topic, and the real task resumes from it.
func TestOwnOffsetsTopicWithExactlyOnce(t *testing.T) {
	s := realStack(t)
	name, own, out := "eos-shapes", "eos-shapes-offsets", "eos-shapes-out"
	cfg := shapesConfig(out, 3)
	cfg["offsets.storage.topic"] = own
	cfg["exactly.once.support"] = "required"
	s.createConnector(t, name, cfg)
	typed := `{"shard":3,"primary":true,"weight":0.5}`
	s.waitOffset(t, name, typed+` => {"seq":3,"lsn":9007199254740996,"ratio":0.75,"done":false}`)
	s.stop(t, name)

	// The task's key of its "typed" partition, where it lives in its own topic.
	var key []byte
	var part int
	for _, r := range s.offsetsTopic(t, own) {
		if bytes.Contains(r.Key, []byte(`"shard":3`)) {
			key, part = r.Key, r.Partition
		}
	}
	if key == nil {
		t.Fatalf("no key of the typed partition in %s", own)
	}
	// A record of an aborted transaction for that key: read_committed
	// readers (the worker, koff) never see it.
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.Bootstrap), kgo.TransactionalID("koff-interop-aborted"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: own, Partition: int32(part), Key: key, Value: []byte(`{"seq":999}`)}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := cl.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
	cl.Close()

	topics := []string{"--offsets-topic", "connect-offsets", "--offsets-topic", own}
	get := mustKoff(t, s.withTopic(append([]string{"get", name, "-o", "json"}, topics...)...)...)
	if strings.Contains(get, "999") || !strings.Contains(get, `{"seq":3,"lsn":9007199254740996,"ratio":0.75,"done":false}`) {
		t.Errorf("koff get should show the committed seq 3, not the aborted 999:\n%s", get)
	}

	// The worker's copies in connect-offsets are secondary; the
	// connector's own topic is what its tasks read.
	st := koffStatus(t, s.withREST(append([]string{name}, topics...)...)...)
	seen := map[string]bool{}
	for _, c := range st.Connectors {
		if c.Name != name {
			continue
		}
		seen[c.OffsetsTopic] = c.Authoritative
	}
	if auth, ok := seen[own]; !ok || !auth {
		t.Errorf("koff status: %s should be authoritative for %s: %v", own, name, seen)
	}
	if auth, ok := seen["connect-offsets"]; !ok || auth {
		t.Errorf("koff status: the copy in connect-offsets should be listed as secondary: %v", seen)
	}
	table := mustKoff(t, s.withREST(append([]string{"status", name}, topics...)...)...)
	if !strings.Contains(table, "connect-offsets (secondary)") {
		t.Errorf("koff status does not mark the worker-topic copy secondary:\n%s", table)
	}

	// An edit lands in the connector's own topic. (Through REST: without
	// it koff cannot tell which of the topics given is the connector's own.)
	from := s.endOffset(t, out, 0)
	plan := mustKoff(t, s.withREST(append([]string{"set", name, "--partition", typed, "--offset", `{"seq":100,"lsn":9007199254741093,"ratio":25.0,"done":true}`, "--yes"}, topics...)...)...)
	t.Logf("koff set:\n%s", plan)
	var landed bool
	for _, r := range s.offsetsTopic(t, own) {
		if bytes.Equal(r.Key, key) && bytes.Contains(r.Value, []byte(`"seq":100`)) {
			landed = r.Partition == part
		}
	}
	if !landed {
		t.Errorf("the edit is not in %s partition %d under the task's key %s", own, part, key)
	}
	s.resume(t, name)
	if got := s.shapesResumed(t, out, "typed", from); normJSON(t, got) != normJSON(t, `{"seq":100,"lsn":9007199254741093,"ratio":25.0,"done":true}`) {
		t.Errorf("the real task resumed the typed partition from %s, want koff's edit", got)
	}
}
