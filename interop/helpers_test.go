package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"koff/cli"
)

// koff runs koff's command line in-process, as the binary does, with its
// audit log in the stack's directory.
func koff(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env := map[string]string{"XDG_STATE_HOME": auditDir, "HOME": auditDir, "USER": "interop", "NO_COLOR": "1"}
	code = cli.Main(args, cli.Env{
		Context: ctx,
		Stdin:   strings.NewReader(""),
		Stdout:  &out, Stderr: &errs,
		Getenv: func(k string) string { return env[k] },
	})
	return out.String(), errs.String(), code
}

// mustKoff runs koff and fails the test unless it exits 0.
func mustKoff(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := koff(t, args...)
	if code != 0 {
		t.Fatalf("koff %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// withREST and withTopic are the global flags of the two ways to reach it.
func (s *Stack) withREST(args ...string) []string {
	return append(args, "-b", s.Bootstrap, "--connect-url", s.ConnectURL)
}

func (s *Stack) withTopic(args ...string) []string { return append(args, "-b", s.Bootstrap) }

// rest calls the worker's REST API and returns status and body. While the
// worker's group rebalances (after another test's connector came or went)
// Connect answers 500 "Request cannot be completed because a rebalance is
// expected" (DistributedHerder's RebalanceNeededException, which
// ConnectExceptionMapper does not map to 409) or 409 "Cannot complete request
// because of a conflicting operation (e.g. worker rebalance)"
// (HerderRequestHandler); those are asked again.
func (s *Stack) rest(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	var data []byte
	switch b := body.(type) {
	case nil:
	case string:
		data = []byte(b)
	case []byte:
		data = b
	default:
		var err error
		if data, err = json.Marshal(b); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, resp := s.restOnce(t, method, path, body != nil, data)
		if !rebalancing(code, resp) || time.Now().After(deadline) {
			return code, resp
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func rebalancing(code int, body []byte) bool {
	return code == http.StatusInternalServerError && bytes.Contains(body, []byte("rebalance is expected")) ||
		code == http.StatusConflict && bytes.Contains(body, []byte("conflicting operation"))
}

func (s *Stack) restOnce(t *testing.T, method, path string, hasBody bool, data []byte) (int, []byte) {
	t.Helper()
	var r io.Reader
	if hasBody {
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, s.ConnectURL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := (&http.Client{Timeout: 90 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

func (s *Stack) mustREST(t *testing.T, want int, method, path string, body any) []byte {
	t.Helper()
	code, data := s.rest(t, method, path, body)
	if code != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, code, want, data)
	}
	return data
}

// createConnector PUTs config and, unless the connector is created
// stopped, waits until it and all its tasks run. It is deleted when the test
// ends, so the worker's load stays small.
func (s *Stack) createConnector(t *testing.T, name string, config map[string]string) {
	t.Helper()
	config["name"] = name
	code, body := s.rest(t, "PUT", "/connectors/"+name+"/config", config)
	if code != http.StatusCreated && code != http.StatusOK {
		t.Fatalf("create %s: %d %s", name, code, body)
	}
	t.Cleanup(func() { s.rest(t, "DELETE", "/connectors/"+name, nil) })
	s.waitState(t, name, "RUNNING")
}

type connectorStatus struct {
	Connector struct {
		State string `json:"state"`
	} `json:"connector"`
	Tasks []struct {
		ID    int    `json:"id"`
		State string `json:"state"`
		Trace string `json:"trace"`
	} `json:"tasks"`
}

// waitState waits until the connector and (but for STOPPED, which has no
// tasks) at least one task, all of them, are in state.
func (s *Stack) waitState(t *testing.T, name, state string) {
	t.Helper()
	waitFor(t, 90*time.Second, name+" "+state, func() (bool, string) {
		code, body := s.rest(t, "GET", "/connectors/"+name+"/status", nil)
		if code != 200 {
			return false, fmt.Sprintf("%d %s", code, body)
		}
		var st connectorStatus
		if err := json.Unmarshal(body, &st); err != nil {
			return false, err.Error()
		}
		for _, task := range st.Tasks {
			if task.State == "FAILED" {
				t.Fatalf("%s task %d FAILED: %s", name, task.ID, task.Trace)
			}
		}
		if st.Connector.State != state {
			return false, string(body)
		}
		if state == "STOPPED" {
			return len(st.Tasks) == 0, string(body)
		}
		if len(st.Tasks) == 0 {
			return false, string(body)
		}
		for _, task := range st.Tasks {
			if task.State != state {
				return false, string(body)
			}
		}
		return true, ""
	})
}

// waitConnectorState waits until the connector itself is in state,
// whatever its tasks are.
func (s *Stack) waitConnectorState(t *testing.T, name, state string) {
	t.Helper()
	waitFor(t, 90*time.Second, name+" "+state, func() (bool, string) {
		code, body := s.rest(t, "GET", "/connectors/"+name+"/status", nil)
		var st connectorStatus
		if code != 200 || json.Unmarshal(body, &st) != nil {
			return false, fmt.Sprintf("%d %s", code, body)
		}
		return st.Connector.State == state, string(body)
	})
}

// waitGone waits until a deleted connector has no status.
func (s *Stack) waitGone(t *testing.T, name string) {
	t.Helper()
	waitFor(t, 90*time.Second, name+" gone", func() (bool, string) {
		code, body := s.rest(t, "GET", "/connectors/"+name+"/status", nil)
		return code == http.StatusNotFound, fmt.Sprintf("%d %s", code, body)
	})
}

func (s *Stack) stop(t *testing.T, name string) {
	t.Helper()
	s.mustREST(t, http.StatusNoContent, "PUT", "/connectors/"+name+"/stop", nil)
	s.waitState(t, name, "STOPPED")
}

func (s *Stack) resume(t *testing.T, name string) {
	t.Helper()
	s.mustREST(t, http.StatusAccepted, "PUT", "/connectors/"+name+"/resume", nil)
	s.waitState(t, name, "RUNNING")
}

// waitFor polls cond until it holds or d passes; the last reason is in the
// failure.
func waitFor(t *testing.T, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s: %s", d, what, why)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// record is one record of a data topic, read committed.
type record struct {
	Offset int64
	Key    []byte
	Value  []byte
}

// endOffset is the topic partition's log-end offset.
func (s *Stack) endOffset(t *testing.T, topic string, partition int) int64 {
	t.Helper()
	c := &kafka.Client{Addr: kafka.TCP(s.Bootstrap), Timeout: 10 * time.Second}
	resp, err := c.ListOffsets(context.Background(), &kafka.ListOffsetsRequest{
		Topics: map[string][]kafka.OffsetRequest{topic: {kafka.LastOffsetOf(partition)}},
	})
	if err != nil {
		t.Fatalf("list offsets %s: %v", topic, err)
	}
	ps := resp.Topics[topic]
	if len(ps) != 1 {
		t.Fatalf("list offsets %s/%d: %d answers", topic, partition, len(ps))
	}
	if ps[0].Error != nil {
		t.Fatalf("list offsets %s/%d: %v", topic, partition, ps[0].Error)
	}
	return ps[0].LastOffset
}

// readUntil reads topic partition from offset (read_committed) until done
// says it has enough or d passes, and returns what it read.
func (s *Stack) readUntil(t *testing.T, topic string, partition int, from int64, d time.Duration, done func([]record) bool) []record {
	t.Helper()
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers: []string{s.Bootstrap}, Topic: topic, Partition: partition,
		IsolationLevel: kafka.ReadCommitted, MinBytes: 1, MaxBytes: 1 << 20, MaxWait: 300 * time.Millisecond,
	})
	defer r.Close()
	if err := r.SetOffset(from); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var got []record
	for !done(got) {
		m, err := r.ReadMessage(ctx)
		if err != nil {
			t.Fatalf("reading %s/%d from %d: %v; read %d records: %s", topic, partition, from, err, len(got), showRecords(got))
		}
		got = append(got, record{Offset: m.Offset, Key: m.Key, Value: m.Value})
	}
	return got
}

func showRecords(rs []record) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "\n  %d %s = %s", r.Offset, r.Key, r.Value)
	}
	return b.String()
}

// writeFile writes name in the stack's files dir and returns its path.
func (s *Stack) writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(s.FilesDir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func appendFile(t *testing.T, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
}

// lines makes n lines "<prefix>-<i>" (1-based), each ending in a newline.
func lines(prefix string, from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%s-%d\n", prefix, i)
	}
	return b.String()
}

// offsetsBody is Connect's GET /connectors/NAME/offsets, numbers kept as
// written.
type offsetsBody struct {
	Offsets []offsetEntry `json:"offsets"`
}

type offsetEntry struct {
	Partition map[string]any `json:"partition"`
	Offset    map[string]any `json:"offset"`
}

func decode(t *testing.T, data []byte, v any) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}

// canonical renders entries sorted, numbers as their literal text, so two
// bodies compare value for value whatever their order.
func canonical(t *testing.T, body offsetsBody) []string {
	t.Helper()
	var out []string
	for _, e := range body.Offsets {
		p, _ := json.Marshal(e.Partition)
		o, _ := json.Marshal(e.Offset)
		out = append(out, string(p)+" => "+string(o))
	}
	sort.Strings(out)
	return out
}

// connectOffsets is GET /connectors/NAME/offsets from the worker.
func (s *Stack) connectOffsets(t *testing.T, name string) offsetsBody {
	t.Helper()
	var b offsetsBody
	decode(t, s.mustREST(t, 200, "GET", "/connectors/"+name+"/offsets", nil), &b)
	return b
}

// fileSource is the config of a FileStreamSource reading path into topic.
func fileSource(path, topic string) map[string]string {
	return map[string]string{
		"connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
		"file":            path, "topic": topic, "tasks.max": "1",
		// The line as a JSON string: what the test reads back.
		"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
	}
}

// lineText is the text of a FileStreamSource record's JSON string value.
func lineText(t *testing.T, v []byte) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		t.Fatalf("value %q: %v", v, err)
	}
	return s
}

// createTopic makes a topic with n partitions, replication factor 1.
func (s *Stack) createTopic(t *testing.T, topic string, n int) {
	t.Helper()
	c := &kafka.Client{Addr: kafka.TCP(s.Bootstrap), Timeout: 30 * time.Second}
	resp, err := c.CreateTopics(context.Background(), &kafka.CreateTopicsRequest{
		Topics: []kafka.TopicConfig{{Topic: topic, NumPartitions: n, ReplicationFactor: 1}},
	})
	if err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
	if err := resp.Errors[topic]; err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
	s.waitLeaders(t, c, topic, n)
}

// waitLeaders waits until the topic has n partitions (any number when n is
// 0), each with a leader, and returns them. The controller answers
// CreateTopics, and the worker creates its topics, before the broker knows
// and leads them: a produce or read in between fails with
// UNKNOWN_TOPIC_OR_PARTITION or NOT_LEADER_OR_FOLLOWER.
func (s *Stack) waitLeaders(t *testing.T, c *kafka.Client, topic string, n int) []kafka.Partition {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		md, err := c.Metadata(context.Background(), &kafka.MetadataRequest{Topics: []string{topic}})
		if err == nil && len(md.Topics) == 1 && md.Topics[0].Error == nil && len(md.Topics[0].Partitions) > 0 &&
			(n == 0 || len(md.Topics[0].Partitions) == n) {
			ps := md.Topics[0].Partitions
			led := 0
			for _, p := range ps {
				if p.Error == nil && p.Leader.Host != "" {
					led++
				}
			}
			if led == len(ps) {
				return ps
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("topic %s: not every partition has a leader after 30 s (%v %+v)", topic, err, md)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// produce writes values to one partition of topic, keyless.
func (s *Stack) produce(t *testing.T, topic string, partition int, values ...string) {
	t.Helper()
	var recs []rawRecord
	for _, v := range values {
		recs = append(recs, rawRecord{value: []byte(v)})
	}
	s.produceRecords(t, topic, partition, recs...)
}

// rawRecord is a record to produce; nil key for none.
type rawRecord struct{ key, value []byte }

// produceRecords writes recs to one partition of topic, as kcat -P -p would.
func (s *Stack) produceRecords(t *testing.T, topic string, partition int, recs ...rawRecord) {
	t.Helper()
	c := &kafka.Client{Addr: kafka.TCP(s.Bootstrap), Timeout: 30 * time.Second}
	s.waitLeaders(t, c, topic, 0)
	// Metadata can name the broker leader a moment before its replica
	// manager leads the new partition: retry retriable errors as the Java
	// producer does, within a bound. Each attempt gets fresh record readers:
	// kafka-go's Bytes are drained by the attempt that failed, and sent
	// again they would be null values.
	deadline := time.Now().Add(30 * time.Second)
	for {
		batch := make([]kafka.Record, len(recs))
		for i, r := range recs {
			batch[i] = kafka.Record{Value: kafka.NewBytes(r.value)}
			if r.key != nil {
				batch[i].Key = kafka.NewBytes(r.key)
			}
		}
		resp, err := c.Produce(context.Background(), &kafka.ProduceRequest{
			Topic: topic, Partition: partition, RequiredAcks: kafka.RequireAll,
			Records: kafka.NewRecordReader(batch...),
		})
		if err == nil {
			err = resp.Error
		}
		if err == nil {
			return
		}
		// kafka-go's transport also fails a request while its metadata
		// cache has not seen the topic yet ("topic not found").
		var kerr kafka.Error
		retriable := errors.As(err, &kerr) && kerr.Temporary() || strings.Contains(err.Error(), "topic not found")
		if !retriable || time.Now().After(deadline) {
			t.Fatalf("produce %s/%d: %v", topic, partition, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
}
