package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"koff/demo/rest"
)

// The exact messages Connect answers with.
const (
	msgNotStopped = "Connectors must be in the STOPPED state before their offsets can be modified. " +
		"This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/%s/stop' endpoint"
	msgNeedOffsets = "Partitions / offsets need to be provided for an alter offsets request"
)

// startRESTCluster starts a demo cluster with the REST emulator on a free
// port, and an HTTP client whose connections the test closes.
func startRESTCluster(t *testing.T, opts Options) (*Cluster, *restClient) {
	t.Helper()
	opts.ConnectListen = "127.0.0.1:0"
	c := startCluster(t, opts)
	if !strings.HasPrefix(c.ConnectURL(), "http://127.0.0.1:") {
		t.Fatalf("ConnectURL() = %q", c.ConnectURL())
	}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return c, &restClient{t: t, base: c.ConnectURL(), hc: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// restClient calls the emulator with plain net/http, as any Connect client
// would.
type restClient struct {
	t    *testing.T
	base string
	hc   *http.Client
}

type response struct {
	code int
	ct   string
	body []byte
}

func (c *restClient) do(method, path, body string, header ...string) response {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	return response{resp.StatusCode, resp.Header.Get("Content-Type"), b}
}

// json calls and decodes a 2xx JSON answer into v.
func (c *restClient) json(method, path, body string, want int, v any) {
	c.t.Helper()
	r := c.do(method, path, body)
	if r.code != want || r.ct != "application/json" {
		c.t.Fatalf("%s %s = %d %q %s, want %d application/json", method, path, r.code, r.ct, r.body, want)
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		c.t.Fatalf("%s %s: %v in %s", method, path, err, r.body)
	}
}

// wantError checks an error answer: status, JSON content type and the body
// {"error_code":N,"message":"..."} with exactly msg.
func (c *restClient) wantError(method, path, body string, code int, msg string) {
	c.t.Helper()
	r := c.do(method, path, body)
	var e struct {
		Code    *int    `json:"error_code"`
		Message *string `json:"message"`
	}
	err := json.Unmarshal(r.body, &e)
	if r.code != code || r.ct != "application/json" || err != nil || e.Code == nil || *e.Code != code || e.Message == nil || *e.Message != msg {
		c.t.Errorf("%s %s %s:\n got %d %q %s\nwant %d {\"error_code\":%d,\"message\":%q}", method, path, body, r.code, r.ct, r.body, code, code, msg)
	}
}

// wantEmpty checks an answer without a body (204, 202).
func (c *restClient) wantEmpty(method, path string, code int) {
	c.t.Helper()
	if r := c.do(method, path, ""); r.code != code || len(r.body) != 0 {
		c.t.Errorf("%s %s = %d %s, want %d and no body", method, path, r.code, r.body, code)
	}
}

type statusInfo struct {
	Name      string
	Connector struct {
		State    string
		WorkerID string `json:"worker_id"`
	}
	Tasks []struct {
		ID       int
		State    string
		WorkerID string `json:"worker_id"`
	}
	Type string
}

func (c *restClient) status(name string) statusInfo {
	c.t.Helper()
	var s statusInfo
	c.json("GET", "/connectors/"+name+"/status", "", 200, &s)
	return s
}

// connectorType is the type the demo's connectors have in Connect.
func connectorType(name string) string {
	if name == "es-search" || name == "s3-archive" {
		return "sink"
	}
	return "source"
}

func (c *restClient) checkStatus(name, state string, tasks int) {
	c.t.Helper()
	s := c.status(name)
	worker := strings.TrimPrefix(c.base, "http://")
	ok := s.Name == name && s.Type == connectorType(name) && s.Connector.State == state && s.Connector.WorkerID == worker && len(s.Tasks) == tasks
	for i, task := range s.Tasks {
		ok = ok && task.ID == i && task.State == state && task.WorkerID == worker
	}
	if !ok {
		c.t.Errorf("status of %s = %+v, want %s with %d tasks %s on %s", name, s, state, tasks, state, worker)
	}
}

func TestRESTServerInfo(t *testing.T) {
	t.Parallel()
	c, api := startRESTCluster(t, testOptions(t))
	var info map[string]string
	api.json("GET", "/", "", 200, &info)
	if info["version"] != rest.DefaultConnectVersion || info["commit"] != rest.ConnectCommit || !strings.HasPrefix(info["kafka_cluster_id"], "koff-demo-") || len(info) != 3 {
		t.Errorf("GET / = %v", info)
	}

	// An old Connect: no PATCH or DELETE of offsets before 3.6.
	opts := testOptions(t)
	opts.ConnectVersion = "3.5.2"
	_, old := startRESTCluster(t, opts)
	old.json("GET", "/", "", 200, &info)
	if info["version"] != "3.5.2" {
		t.Errorf("GET / with ConnectVersion 3.5.2 = %v", info)
	}
	var offsets map[string][]any
	old.json("GET", "/connectors/file-logs/offsets", "", 200, &offsets)
	old.wantEmpty("PUT", "/connectors/file-logs/stop", 204)
	old.wantError("PATCH", "/connectors/file-logs/offsets", `{"offsets":[{"partition":{"filename":"a"},"offset":null}]}`, 405, "HTTP 405 Method Not Allowed")
	old.wantError("DELETE", "/connectors/file-logs/offsets", "", 405, "HTTP 405 Method Not Allowed")

	c.Close()
	if c.ConnectURL() == "" {
		t.Error("ConnectURL() empty after Close")
	}
	if _, err := http.Get(c.ConnectURL() + "/"); err == nil {
		t.Error("REST still answers after Close")
	}
}

func TestRESTListAndShapes(t *testing.T) {
	t.Parallel()
	c, api := startRESTCluster(t, testOptions(t))

	var names []string
	api.json("GET", "/connectors", "", 200, &names)
	if !slices.Equal(names, c.Connectors()) {
		t.Errorf("GET /connectors = %v, want %v", names, c.Connectors())
	}

	type info struct {
		Name   string
		Config map[string]string
		Tasks  []struct {
			Connector string
			Task      int
		}
		Type string
	}
	var expanded map[string]struct {
		Status *statusInfo
		Info   *info
	}
	api.json("GET", "/connectors?expand=status&expand=info", "", 200, &expanded)
	if len(expanded) != len(names) {
		t.Errorf("expand: %d connectors, want %d", len(expanded), len(names))
	}
	for _, name := range names {
		e := expanded[name]
		ci, _ := c.Connector(name)
		if e.Status == nil || e.Status.Name != name || e.Status.Connector.State != "RUNNING" || len(e.Status.Tasks) != ci.Tasks {
			t.Errorf("expand status of %s = %+v", name, e.Status)
		}
		if e.Info == nil || e.Info.Name != name || e.Info.Type != connectorType(name) || ci.Type != e.Info.Type || len(e.Info.Tasks) != ci.Tasks ||
			e.Info.Config["connector.class"] != ci.Class || e.Info.Config["name"] != name {
			t.Errorf("expand info of %s = %+v", name, e.Info)
		} else {
			for i, task := range e.Info.Tasks {
				if task.Connector != name || task.Task != i {
					t.Errorf("info tasks of %s = %+v", name, e.Info.Tasks)
				}
			}
		}
	}
	var onlyUnknown map[string]map[string]any
	api.json("GET", "/connectors?expand=nothing", "", 200, &onlyUnknown)
	if len(onlyUnknown) != len(names) || len(onlyUnknown["jdbc-shop"]) != 0 {
		t.Errorf("?expand=nothing = %v, want every connector mapped to {}", onlyUnknown)
	}

	api.checkStatus("mm2-primary", "RUNNING", 3)
	var ci info
	api.json("GET", "/connectors/jdbc-shop", "", 200, &ci)
	if ci.Name != "jdbc-shop" || ci.Config["tasks.max"] != "2" || len(ci.Tasks) != 2 {
		t.Errorf("GET /connectors/jdbc-shop = %+v", ci)
	}

	var cfg map[string]string
	api.json("GET", "/connectors/jdbc-shop/config", "", 200, &cfg)
	for k, v := range map[string]string{
		"name": "jdbc-shop", "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector", "tasks.max": "2",
		"topic.prefix": "shop.", "mode": "incrementing",
		"table.whitelist": "public.orders,public.customers,public.payments,public.order_items",
	} {
		if cfg[k] != v {
			t.Errorf("jdbc-shop config %s = %q, want %q (config %v)", k, cfg[k], v, cfg)
		}
	}
	api.json("GET", "/connectors/debezium-inventory/config", "", 200, &cfg)
	if cfg["topic.prefix"] != "inventory" || cfg["tasks.max"] != "1" {
		t.Errorf("debezium-inventory config = %v", cfg)
	}

	// Topics appear once the tasks produced to them.
	waitFor(t, 10*time.Second, "file-logs to produce", func() bool {
		var topics map[string]map[string][]string
		api.json("GET", "/connectors/file-logs/topics", "", 200, &topics)
		return slices.Equal(topics["file-logs"]["topics"], []string{"logs.app"})
	})
	// Connect does not check the name here.
	if r := api.do("GET", "/connectors/no-such/topics", ""); r.code != 200 || string(r.body) != `{"no-such":{"topics":[]}}` {
		t.Errorf("topics of an unknown connector = %d %s", r.code, r.body)
	}

	api.wantError("GET", "/connectors/no-such", "", 404, "Connector no-such not found")
	api.wantError("GET", "/connectors/no-such/status", "", 404, "No status found for connector no-such")
	api.wantError("GET", "/connectors/no-such/config", "", 404, "Connector no-such not found")
	api.wantError("GET", "/connectors/no-such/offsets", "", 404, "Connector no-such not found")
	for _, op := range []string{"stop", "pause", "resume"} {
		api.wantError("PUT", "/connectors/no-such/"+op, "", 404, "Unknown connector no-such")
	}
	api.wantError("PATCH", "/connectors/no-such/offsets", `{"offsets":[{"partition":{"a":"b"},"offset":null}]}`, 404, "Connector no-such not found")
	api.wantError("DELETE", "/connectors/no-such/offsets", "", 404, "Connector no-such not found")
	// The body is read before the connector is looked up.
	api.wantError("PATCH", "/connectors/no-such/offsets", `{}`, 400, msgNeedOffsets)

	api.wantError("GET", "/nothing/here", "", 404, "HTTP 404 Not Found")
	api.wantError("GET", "/connectors/jdbc-shop/nothing", "", 404, "HTTP 404 Not Found")
	api.wantError("POST", "/connectors/jdbc-shop/stop", "", 405, "HTTP 405 Method Not Allowed")
	api.wantError("DELETE", "/connectors/jdbc-shop/status", "", 405, "HTTP 405 Method Not Allowed")
	r := api.do("PATCH", "/connectors/jdbc-shop/offsets", "offsets=1", "Content-Type", "application/x-www-form-urlencoded")
	if r.code != 415 || !bytes.Contains(r.body, []byte(`"HTTP 415 Unsupported Media Type"`)) {
		t.Errorf("PATCH as a form = %d %s, want 415", r.code, r.body)
	}
}

func TestRESTStateChecks(t *testing.T) {
	t.Parallel()
	c, api := startRESTCluster(t, testOptions(t))
	const path = "/connectors/jdbc-legacy/offsets"
	const body = `{"offsets":[{"partition":{"protocol":"1","table":"legacy.public.accounts"},"offset":{"incrementing":1}}]}`
	notStopped := strings.ReplaceAll(msgNotStopped, "%s", "jdbc-legacy")

	api.wantError("PATCH", path, body, 400, notStopped)
	api.wantError("DELETE", path, "", 400, notStopped)

	api.wantEmpty("PUT", "/connectors/jdbc-legacy/pause", 202)
	if s := c.ConnectorState("jdbc-legacy"); s != "PAUSED" {
		t.Errorf("state after pause = %q", s)
	}
	api.checkStatus("jdbc-legacy", "PAUSED", 1)
	api.wantEmpty("PUT", "/connectors/jdbc-legacy/pause", 202) // idempotent
	api.wantError("PATCH", path, body, 400, notStopped)
	api.wantError("DELETE", path, "", 400, notStopped)

	api.wantEmpty("PUT", "/connectors/jdbc-legacy/stop", 204)
	api.checkStatus("jdbc-legacy", "STOPPED", 0)
	api.wantEmpty("PUT", "/connectors/jdbc-legacy/stop", 204) // idempotent

	// Body checks on a stopped connector, in Connect's order.
	npe := `Cannot invoke "org.apache.kafka.connect.runtime.rest.entities.ConnectorOffsets.offsets()" because "offsets" is null`
	api.wantError("PATCH", path, "", 500, npe)
	api.wantError("PATCH", path, `{}`, 400, msgNeedOffsets)
	api.wantError("PATCH", path, `{"offsets":[]}`, 400, msgNeedOffsets)
	api.wantError("PATCH", path, `{"offsets":[{"partition":{"protocol":"1","table":"t"},"offset":{"incrementing":{"nested":1}}}]}`,
		500, "Offsets may only contain primitive types as values, but field incrementing contains MAP")
	api.wantError("PATCH", path, `{"offsets":[{"partition":{"table":["a"]},"offset":null}]}`,
		500, "Offsets may only contain primitive types as values, but field table contains ARRAY")
	if r := api.do("PATCH", path, `{"offsets": {}}`); r.code != 500 || !bytes.Contains(r.body, []byte("Cannot deserialize value")) {
		t.Errorf(`PATCH {"offsets": {}} = %d %s`, r.code, r.body)
	}

	api.wantEmpty("PUT", "/connectors/jdbc-legacy/resume", 202)
	api.checkStatus("jdbc-legacy", "RUNNING", 1)
	api.wantEmpty("PUT", "/connectors/jdbc-legacy/resume", 202) // idempotent
	api.wantError("PATCH", path, body, 400, notStopped)
}

// TestRESTCloseLeavesNothing: Close stops the REST server with the rest,
// even with clients keeping connections open, and frees its port.
func TestRESTCloseLeavesNothing(t *testing.T) {
	checkNoLeaks(t)
	opts := testOptions(t)
	opts.ConnectListen = "127.0.0.1:0"
	c, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{} // keeps its connection open
	defer tr.CloseIdleConnections()
	api := &restClient{t: t, base: c.ConnectURL(), hc: &http.Client{Transport: tr}}
	api.status("file-logs")
	api.wantEmpty("PUT", "/connectors/file-logs/pause", 202)
	api.offsets("file-logs")
	addr := strings.TrimPrefix(c.ConnectURL(), "http://")
	c.Close()
	checkNoLeaks(t)

	opts.ConnectListen = addr
	c2, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("restart with the REST API on %s: %v", addr, err)
	}
	if c2.ConnectURL() != "http://"+addr {
		t.Errorf("ConnectURL() = %s, want http://%s", c2.ConnectURL(), addr)
	}
	c2.Close()
	checkNoLeaks(t)

	// Without ConnectListen there is no REST API.
	opts.ConnectListen = ""
	c3 := startCluster(t, opts)
	if c3.ConnectURL() != "" {
		t.Errorf("ConnectURL() without ConnectListen = %q", c3.ConnectURL())
	}
}
