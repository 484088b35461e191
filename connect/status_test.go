package connect

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

func TestServerInfo(t *testing.T) {
	f := newFake()
	f.version = "7.6.1-ccs"
	c := mustNew(t, Config{URL: f.start(t).URL})
	info, err := c.ServerInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := ServerInfo{Version: "7.6.1-ccs", Commit: "abc123", KafkaClusterID: "kc-1"}
	if info != want {
		t.Errorf("got %+v, want %+v", info, want)
	}
	if !info.SupportsGetOffsets() || !info.SupportsAlterOffsets() {
		t.Errorf("7.6.1-ccs should support both")
	}
}

func TestConnectors(t *testing.T) {
	f := newFake()
	c := mustNew(t, Config{URL: f.start(t).URL})
	got, err := c.Connectors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d connectors: %+v", len(got), got)
	}
	src := got["jdbc-src"]
	if src.Status.Connector.State != StateRunning || len(src.Status.Tasks) != 2 || src.Status.Type != "source" {
		t.Errorf("jdbc-src status %+v", src.Status)
	}
	if src.Info.Config["tasks.max"] != "2" || !reflect.DeepEqual(src.Info.Tasks, []TaskID{{"jdbc-src", 0}, {"jdbc-src", 1}}) {
		t.Errorf("jdbc-src info %+v", src.Info)
	}
	sink := got["my sink"]
	if !sink.Status.Stopped() || sink.Info.Type != "sink" {
		t.Errorf("my sink %+v", sink)
	}
	if _, uri, _, _, _ := f.last(); uri != "/connectors?expand=status&expand=info" {
		t.Errorf("sent %s", uri)
	}
}

func TestConnectorsBeforeExpand(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `["a","b"]`)
	}))
	defer srv.Close()
	c := mustNew(t, Config{URL: srv.URL})
	_, err := c.Connectors(context.Background())
	want := "GET /connectors?expand=status&expand=info: Kafka Connect at " + srv.URL + " ignored ?expand (it is older than 2.3)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v", err)
	}
}

func TestStatusShapes(t *testing.T) {
	body := `{"name":"src","connector":{"state":"RUNNING","worker_id":"10.0.0.5:8083"},
	"tasks":[{"id":0,"state":"FAILED","worker_id":"10.0.0.5:8083","trace":"org.apache.kafka.connect.errors.ConnectException: boom"},
	{"id":1,"state":"RUNNING","worker_id":"10.0.0.6:8083"}],"type":"source"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, body)
	}))
	defer srv.Close()
	c := mustNew(t, Config{URL: srv.URL})
	st, err := c.Status(context.Background(), "src")
	if err != nil {
		t.Fatal(err)
	}
	want := ConnectorStatus{
		Name:      "src",
		Connector: ConnectorState{State: StateRunning, WorkerID: "10.0.0.5:8083"},
		Tasks: []TaskState{
			{ID: 0, State: StateFailed, WorkerID: "10.0.0.5:8083", Trace: "org.apache.kafka.connect.errors.ConnectException: boom"},
			{ID: 1, State: StateRunning, WorkerID: "10.0.0.6:8083"},
		},
		Type: "source",
	}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("got %+v\nwant %+v", st, want)
	}
	if st.Stopped() {
		t.Error("a RUNNING connector is not Stopped")
	}
}

func TestConfigAndTopics(t *testing.T) {
	f := newFake()
	c := mustNew(t, Config{URL: f.start(t).URL})
	ctx := context.Background()

	cfg, err := c.ConnectorConfig(ctx, "my sink")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg, f.connectors["my sink"].config) {
		t.Errorf("config %v", cfg)
	}

	topics, err := c.Topics(ctx, "jdbc-src")
	if err != nil || !reflect.DeepEqual(topics, []string{"db.orders", "db.users"}) {
		t.Errorf("topics %v, %v", topics, err)
	}
	topics, err = c.Topics(ctx, "my sink")
	if err != nil || topics == nil || len(topics) != 0 {
		t.Errorf("empty topics %#v, %v", topics, err)
	}

	f.set(func() { f.noTracking = true })
	_, err = c.Topics(ctx, "jdbc-src")
	if err == nil || err.Error() != "Connect REST: 403 Topic tracking is disabled." || !IsTopicTrackingDisabled(err) {
		t.Errorf("tracking off: err = %v", err)
	}
}

func TestStopPauseResume(t *testing.T) {
	f := newFake()
	c := mustNew(t, Config{URL: f.start(t).URL})
	ctx := context.Background()
	steps := []struct {
		call  func(context.Context, string) error
		verb  string
		state State
	}{
		{c.Pause, "pause", StatePaused},
		{c.Resume, "resume", StateRunning},
		{c.Stop, "stop", StateStopped},
		{c.Stop, "stop", StateStopped}, // idempotent
	}
	for _, s := range steps {
		if err := s.call(ctx, "jdbc-src"); err != nil {
			t.Fatalf("%s: %v", s.verb, err)
		}
		method, uri, _, _, _ := f.last()
		if method != "PUT" || uri != "/connectors/jdbc-src/"+s.verb {
			t.Errorf("%s sent %s %s", s.verb, method, uri)
		}
		st, err := c.Status(ctx, "jdbc-src")
		if err != nil || st.Connector.State != s.state {
			t.Errorf("after %s: %+v, %v", s.verb, st.Connector, err)
		}
	}
}

// Connect's error messages reach the caller word for word.
func TestErrorsVerbatim(t *testing.T) {
	f := newFake()
	c := mustNew(t, Config{URL: f.start(t).URL})
	ctx := context.Background()
	drop := func(_ any, err error) error { return err }

	tests := []struct {
		name   string
		call   func() error
		status int
		method string
		path   string
		msg    string
	}{
		{"status", func() error { return drop(c.Status(ctx, "x")) }, 404, "GET", "/connectors/x/status", "No status found for connector x"},
		{"config", func() error { return drop(c.ConnectorConfig(ctx, "x")) }, 404, "GET", "/connectors/x/config", "Connector x not found"},
		{"offsets", func() error { return drop(c.Offsets(ctx, "x")) }, 404, "GET", "/connectors/x/offsets", "Connector x not found"},
		{"raw offsets", func() error { return drop(c.RawOffsets(ctx, "x")) }, 404, "GET", "/connectors/x/offsets", "Connector x not found"},
		{"alter", func() error {
			return drop(c.AlterOffsets(ctx, "x", []byte(`{"offsets":[{"partition":{},"offset":null}]}`)))
		}, 404, "PATCH", "/connectors/x/offsets", "Connector x not found"},
		{"reset", func() error { return drop(c.ResetOffsets(ctx, "x")) }, 404, "DELETE", "/connectors/x/offsets", "Connector x not found"},
		{"stop", func() error { return c.Stop(ctx, "x") }, 404, "PUT", "/connectors/x/stop", "Unknown connector x"},
		{"pause", func() error { return c.Pause(ctx, "x") }, 404, "PUT", "/connectors/x/pause", "Unknown connector x"},
		{"resume", func() error { return c.Resume(ctx, "x") }, 404, "PUT", "/connectors/x/resume", "Unknown connector x"},
		{"alter running", func() error {
			return drop(c.AlterOffsets(ctx, "jdbc-src", []byte(`{"offsets":[{"partition":{"table":"orders"},"offset":null}]}`)))
		}, 400, "PATCH", "/connectors/jdbc-src/offsets", fmt.Sprintf(msgStoppedTmpl, "jdbc-src")},
		{"reset running", func() error { return drop(c.ResetOffsets(ctx, "jdbc-src")) }, 400, "DELETE", "/connectors/jdbc-src/offsets",
			"Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/jdbc-src/stop' endpoint"},
		{"alter empty", func() error { return drop(c.AlterOffsets(ctx, "my sink", []byte(`{"offsets":[]}`))) }, 400, "PATCH", "/connectors/my%20sink/offsets", msgNoOffsets},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %#v, want *Error", err)
			}
			// Connect's words verbatim, said to come from Connect.
			if ce.Message != tt.msg || err.Error() != fmt.Sprintf("Connect REST: %d %s", ce.Status, tt.msg) {
				t.Errorf("Error() = %q\nwant      %q", err, tt.msg)
			}
			want := Error{Status: tt.status, Code: tt.status, Message: tt.msg, Method: tt.method, Path: tt.path}
			if *ce != want {
				t.Errorf("got %+v\nwant %+v", *ce, want)
			}
			if IsNotFound(err) != (tt.status == 404) {
				t.Errorf("IsNotFound = %v", IsNotFound(err))
			}
		})
	}

	f.set(func() { f.rebalancing = true })
	_, err := c.ResetOffsets(ctx, "my sink")
	if err == nil || err.Error() != "Connect REST: 409 "+msgRebalance || !IsConflict(err) {
		t.Errorf("rebalance: err = %v", err)
	}
}

func TestNonJSONErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		ctype  string
		body   string
		want   string
	}{
		{"nginx 502", 502, "text/html", "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n",
			"GET /connectors/x/status: HTTP 502 Bad Gateway"},
		{"plain 500", 500, "text/plain", "java.lang.NullPointerException\n\tat Foo.bar(Foo.java:1)\n",
			"GET /connectors/x/status: HTTP 500 Internal Server Error: java.lang.NullPointerException"},
		{"empty 503", 503, "", "", "GET /connectors/x/status: HTTP 503 Service Unavailable"},
		{"long line", 500, "text/plain", strings.Repeat("é", 300),
			"GET /connectors/x/status: HTTP 500 Internal Server Error: " + strings.Repeat("é", 200) + "…"},
		{"JSON without message", 500, "application/json", `{"servlet":"x"}`,
			`GET /connectors/x/status: HTTP 500 Internal Server Error: {"servlet":"x"}`},
		{"odd status", 599, "", "nope", "GET /connectors/x/status: HTTP 599: nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.ctype != "" {
					w.Header().Set("Content-Type", tt.ctype)
				}
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c := mustNew(t, Config{URL: srv.URL})
			_, err := c.Status(context.Background(), "x")
			var ce *Error
			if !errors.As(err, &ce) || ce.Status != tt.status || ce.Code != 0 {
				t.Fatalf("err = %#v", err)
			}
			if ce.Message != tt.want || err.Error() != "Connect REST: "+tt.want {
				t.Errorf("Error() = %q\nwant      %q", err, tt.want)
			}
		})
	}

	// A 200 that is not Connect's JSON (a proxy's login page).
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html><body>Please log in</body></html>"))
	}))
	defer srv.Close()
	c := mustNew(t, Config{URL: srv.URL})
	_, err := c.ConnectorConfig(context.Background(), "x")
	want := "GET /connectors/x/config: answer is not Kafka Connect JSON (invalid character '<' looking for beginning of value): Please log in"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
}
