package connect

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// Connect's exact messages (research/connect-offsets-facts.md §6).
const (
	msgAltered     = "The offsets for this connector have been altered successfully"
	msgReset       = "The Connect framework-managed offsets for this connector have been reset successfully. However, if this connector manages offsets externally, they will need to be manually reset in the system that the connector uses."
	msgNoOffsets   = "Partitions / offsets need to be provided for an alter offsets request"
	msgRebalance   = "Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)"
	msgTopicsOff   = "Topic tracking is disabled."
	msgStoppedTmpl = "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/%s/stop' endpoint"
)

// fakeConnect mimics a Connect worker's REST API: shapes, status codes and
// messages as Connect sends them.
type fakeConnect struct {
	mu          sync.Mutex
	version     string
	connectors  map[string]*fakeConnector
	noTracking  bool
	rebalancing bool
	user, pass  string // required basic auth when user != ""

	// what the last request carried
	lastMethod, lastURI, lastAccept, lastType string
	lastBody                                  []byte
}

type fakeConnector struct {
	typ     string
	state   State
	tasks   int
	config  map[string]string
	topics  []string
	offsets string // raw GET offsets body
}

func newFake() *fakeConnect {
	return &fakeConnect{
		version: "3.7.0",
		connectors: map[string]*fakeConnector{
			"jdbc-src": {
				typ: "source", state: StateRunning, tasks: 2,
				config:  map[string]string{"connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector", "name": "jdbc-src", "tasks.max": "2"},
				topics:  []string{"db.orders", "db.users"},
				offsets: `{"offsets":[{"partition":{"table":"orders"},"offset":{"incrementing":42}}]}`,
			},
			"my sink": {
				typ: "sink", state: StateStopped,
				config:  map[string]string{"connector.class": "FileStreamSink", "name": "my sink", "topics": "t"},
				topics:  []string{},
				offsets: `{"offsets":[{"partition":{"kafka_partition":0,"kafka_topic":"t"},"offset":{"kafka_offset":5}}]}`,
			},
		},
	}
}

func (f *fakeConnect) start(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if s, ok := v.(string); ok {
		io.WriteString(w, s)
		return
	}
	json.NewEncoder(w).Encode(v)
}

func writeErr(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error_code": status, "message": msg})
}

func (f *fakeConnect) status(name string, c *fakeConnector) ConnectorStatus {
	st := ConnectorStatus{Name: name, Type: c.typ, Tasks: []TaskState{},
		Connector: ConnectorState{State: c.state, WorkerID: "10.0.0.5:8083"}}
	for i := 0; i < c.tasks; i++ {
		st.Tasks = append(st.Tasks, TaskState{ID: i, State: StateRunning, WorkerID: "10.0.0.5:8083"})
	}
	return st
}

func (f *fakeConnect) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	f.lastMethod, f.lastURI, f.lastBody = r.Method, r.RequestURI, body
	f.lastAccept, f.lastType = r.Header.Get("Accept"), r.Header.Get("Content-Type")

	if f.user != "" {
		u, p, ok := r.BasicAuth()
		if !ok || u != f.user || p != f.pass {
			// Connect's JaasBasicAuthFilter answers in plain text.
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, "User cannot access the resource.")
			return
		}
	}

	segs := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	switch {
	case r.URL.Path == "/" && r.Method == http.MethodGet:
		writeJSON(w, 200, map[string]string{"version": f.version, "commit": "abc123", "kafka_cluster_id": "kc-1"})
		return
	case r.URL.Path == "/connectors" && r.Method == http.MethodGet:
		out := map[string]any{}
		for name, c := range f.connectors {
			tasks := []TaskID{}
			for i := 0; i < c.tasks; i++ {
				tasks = append(tasks, TaskID{Connector: name, Task: i})
			}
			out[name] = map[string]any{
				"status": f.status(name, c),
				"info":   ConnectorInfo{Name: name, Config: c.config, Tasks: tasks, Type: c.typ},
			}
		}
		if got := r.URL.Query()["expand"]; len(got) != 2 {
			writeErr(w, 400, fmt.Sprintf("test fake wants expand twice, got %q", got))
			return
		}
		writeJSON(w, 200, out)
		return
	case len(segs) != 3 || segs[0] != "connectors":
		writeErr(w, 404, "HTTP 404 Not Found")
		return
	}
	name, err := url.PathUnescape(segs[1])
	if err != nil {
		writeErr(w, 400, err.Error())
		return
	}
	c := f.connectors[name]
	route := r.Method + " " + segs[2]

	// Topics does not check that the connector exists (AbstractHerder#connectorActiveTopics).
	if route == "GET topics" {
		if f.noTracking {
			writeErr(w, 403, msgTopicsOff)
			return
		}
		var topics []string
		if c != nil {
			topics = c.topics
		}
		writeJSON(w, 200, map[string]any{name: map[string]any{"topics": topics}})
		return
	}
	if (route == "PATCH offsets" || route == "DELETE offsets") && f.rebalancing {
		writeErr(w, 409, msgRebalance)
		return
	}
	if route == "PATCH offsets" && (len(body) == 0 || string(body) == "{}" || string(body) == `{"offsets":[]}`) {
		writeErr(w, 400, msgNoOffsets)
		return
	}
	if c == nil {
		switch route {
		case "GET status":
			writeErr(w, 404, "No status found for connector "+name)
		case "PUT stop", "PUT pause", "PUT resume":
			writeErr(w, 404, "Unknown connector "+name)
		default:
			writeErr(w, 404, "Connector "+name+" not found")
		}
		return
	}
	switch route {
	case "GET status":
		writeJSON(w, 200, f.status(name, c))
	case "GET config":
		writeJSON(w, 200, c.config)
	case "GET offsets":
		writeJSON(w, 200, c.offsets)
	case "PUT stop":
		c.state, c.tasks = StateStopped, 0
		w.WriteHeader(http.StatusNoContent)
	case "PUT pause":
		c.state = StatePaused
		w.WriteHeader(http.StatusAccepted)
	case "PUT resume":
		c.state, c.tasks = StateRunning, 1
		w.WriteHeader(http.StatusAccepted)
	case "PATCH offsets", "DELETE offsets":
		if c.state != StateStopped || c.tasks != 0 {
			writeErr(w, 400, fmt.Sprintf(msgStoppedTmpl, name))
			return
		}
		if r.Method == http.MethodPatch {
			writeJSON(w, 200, map[string]string{"message": msgAltered})
		} else {
			writeJSON(w, 200, map[string]string{"message": msgReset})
		}
	default:
		writeErr(w, 405, "HTTP 405 Method Not Allowed")
	}
}

// set changes the fake while its server runs.
func (f *fakeConnect) set(change func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change()
}

func (f *fakeConnect) last() (method, uri, accept, ctype string, body []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastMethod, f.lastURI, f.lastAccept, f.lastType, f.lastBody
}

func mustNew(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	return c
}
