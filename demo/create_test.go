package demo

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"koff/model"
)

// restCall sends one request to the cluster's REST emulator.
func restCall(t *testing.T, c *Cluster, method, path, body string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.ConnectURL()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// position reads a FileStream offset's position exactly.
func position(t *testing.T, value []byte) int64 {
	t.Helper()
	off, err := model.ParseOffset(value)
	if err != nil {
		t.Fatalf("offset %s: %v", value, err)
	}
	n, err := intField(off, "position")
	if err != nil {
		t.Fatalf("offset %s: %v", value, err)
	}
	return n
}

// A connector created STOPPED (KIP-980) runs nothing; the offsets written
// for it meanwhile are where its task starts when it is resumed, as a
// worker's task reads them in SourceTask.start.
func TestCreateStoppedStartsFromStoredOffsets(t *testing.T) {
	opts := testOptions(t)
	opts.ConnectListen = "127.0.0.1:0"
	c := startCluster(t, opts)
	cl := kafkaClient(t, c.Bootstrap())
	const name, file = "file-new", "/var/log/new.log"
	code, body := restCall(t, c, "POST", "/connectors", `{"name":"file-new","config":{"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","file":"/var/log/new.log","topic":"logs.new"},"initial_state":"STOPPED"}`)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	if got := c.ConnectorState(name); got != "STOPPED" {
		t.Fatalf("created STOPPED, state %s", got)
	}
	code, body = restCall(t, c, "GET", "/connectors/file-new/status", "")
	if code != 200 || !strings.Contains(string(body), `"tasks":[]`) {
		t.Fatalf("status of a connector created STOPPED: %d %s", code, body)
	}
	k := key(name, "filename", file)
	time.Sleep(3 * opts.FlushInterval)
	if _, ok := latest(t, cl, k); ok {
		t.Fatal("a connector created STOPPED wrote offsets")
	}
	code, body = restCall(t, c, "PATCH", "/connectors/file-new/offsets", `{"offsets":[{"partition":{"filename":"/var/log/new.log"},"offset":{"position":9007199254740993}}]}`)
	if code != 200 {
		t.Fatalf("PATCH: %d %s", code, body)
	}
	if code, body = restCall(t, c, "PUT", "/connectors/file-new/resume", ""); code != http.StatusAccepted {
		t.Fatalf("resume: %d %s", code, body)
	}
	waitFor(t, 10*time.Second, "a flush past the stored position", func() bool {
		r, ok := latest(t, cl, k)
		return ok && position(t, r.value) > 9007199254740993
	})
	// Its records go to the topic its config names, created on demand.
	code, body = restCall(t, c, "GET", "/connectors/file-new/topics", "")
	if code != 200 || !strings.Contains(string(body), `"logs.new"`) {
		t.Fatalf("topics: %d %s", code, body)
	}
}

// DELETE /connectors/NAME stops the tasks (their last flush) and tombstones
// the config topic's records of the connector; its offsets stay, so the
// same config created again continues from them.
func TestDeleteKeepsOffsetsAndTombstonesConfig(t *testing.T) {
	opts := testOptions(t)
	opts.ConnectListen = "127.0.0.1:0"
	c := startCluster(t, opts)
	cl := kafkaClient(t, c.Bootstrap())
	k := key("file-logs", "filename", "/var/log/app-1.log")
	waitFor(t, 10*time.Second, "file-logs flushes", func() bool { _, ok := latest(t, cl, k); return ok })
	code, cfg := restCall(t, c, "GET", "/connectors/file-logs/config", "")
	if code != 200 {
		t.Fatalf("config: %d %s", code, cfg)
	}
	if code, body := restCall(t, c, "DELETE", "/connectors/file-logs", ""); code != http.StatusNoContent || len(body) != 0 {
		t.Fatalf("delete: %d %s", code, body)
	}
	if code, body := restCall(t, c, "GET", "/connectors/file-logs/status", ""); code != http.StatusNotFound ||
		!strings.Contains(string(body), "No status found for connector file-logs") {
		t.Fatalf("status after delete: %d %s", code, body)
	}
	if code, body := restCall(t, c, "DELETE", "/connectors/file-logs", ""); code != http.StatusNotFound ||
		!strings.Contains(string(body), "Connector file-logs not found") {
		t.Fatalf("second delete: %d %s", code, body)
	}
	for _, n := range c.Connectors() {
		if n == "file-logs" {
			t.Fatal("file-logs still listed")
		}
	}
	configs := byKey(readTopic(t, cl, ConfigTopic, 1))
	for _, ck := range []string{"connector-file-logs", "target-state-file-logs"} {
		rs := configs[ck]
		if len(rs) == 0 || rs[len(rs)-1].value != nil {
			t.Errorf("%s: no tombstone last in the config topic: %d records", ck, len(rs))
		}
	}
	last, ok := latest(t, cl, k)
	if !ok || last.value == nil {
		t.Fatalf("the deleted connector's offset is gone: %v", last)
	}
	kept := position(t, last.value)
	time.Sleep(3 * opts.FlushInterval)
	if again, _ := latest(t, cl, k); again.offset != last.offset {
		t.Fatal("a deleted connector still flushes")
	}

	// The same config under the same name continues where it was.
	var config map[string]string
	if err := json.Unmarshal(cfg, &config); err != nil {
		t.Fatal(err)
	}
	req, _ := json.Marshal(map[string]any{"name": "file-logs", "config": config})
	if code, body := restCall(t, c, "POST", "/connectors", string(req)); code != http.StatusCreated {
		t.Fatalf("create again: %d %s", code, body)
	}
	waitFor(t, 10*time.Second, "a flush from the kept offset", func() bool {
		r, ok := latest(t, cl, k)
		return ok && r.offset != last.offset
	})
	r, _ := latest(t, cl, k)
	if p := position(t, r.value); p <= kept {
		t.Fatalf("created again at position %d, not past the kept %d", p, kept)
	}
}

// A second cluster's Connect group on the same broker has its own internal
// topics: connectors created there are not the first's.
func TestSecondConnect(t *testing.T) {
	opts := testOptions(t)
	opts.ConnectListen = "127.0.0.1:0"
	c := startCluster(t, opts)
	second, err := c.StartSecondConnect("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Connectors()) != 0 {
		t.Fatalf("a new Connect cluster has connectors: %v", second.Connectors())
	}
	code, body := restCall(t, second, "POST", "/connectors", `{"name":"file-logs","config":{"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","file":"/var/log/app-1.log","topic":"logs.app"},"initial_state":"STOPPED"}`)
	if code != http.StatusCreated {
		t.Fatalf("create on the second: %d %s", code, body)
	}
	if second.OffsetsTopic() == c.OffsetsTopic() || second.Bootstrap() != c.Bootstrap() {
		t.Fatalf("second cluster: offsets %s on %s", second.OffsetsTopic(), second.Bootstrap())
	}
	code, body = restCall(t, c, "GET", "/connectors/file-logs/status", "")
	if code != 200 || !strings.Contains(string(body), `"RUNNING"`) {
		t.Fatalf("the first cluster's file-logs: %d %s", code, body)
	}
	configs := byKey(readTopic(t, kafkaClient(t, c.Bootstrap()), second.ConfigTopic(), 1))
	if len(configs["connector-file-logs"]) != 1 {
		t.Fatalf("second config topic %s: %v", second.ConfigTopic(), configs)
	}
}

// GET /connector-plugins lists the classes the demo's workers run, on
// both Connect clusters, as Connect does: class, type, version, sorted.
func TestConnectorPlugins(t *testing.T) {
	opts := testOptions(t)
	opts.ConnectListen = "127.0.0.1:0"
	c := startCluster(t, opts)
	second, err := c.StartSecondConnect("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	for _, cl := range []*Cluster{c, second} {
		code, body := restCall(t, cl, "GET", "/connector-plugins", "")
		if code != http.StatusOK || !strings.HasPrefix(string(body), `[{"class":"io.confluent.connect.elasticsearch.ElasticsearchSinkConnector","type":"sink","version":`) ||
			!strings.Contains(string(body), `{"class":"org.apache.kafka.connect.mirror.MirrorSourceConnector","type":"source","version":"4.1.1"}`) {
			t.Errorf("GET /connector-plugins: %d %s", code, body)
		}
	}
}
