package interop

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"koff/connect"
)

var recordFixtures = flag.Bool("record", false, "record the real worker's REST answers into testdata/connect-rest")

// The connectors the fixtures were recorded with; a replay maps them to its own.
const (
	fixtureSource  = "fixture-source"
	fixtureSink    = "fixture-sink"
	fixtureMissing = "nosuch"
	// fixtureCreated is made by the recorded requests themselves (POST
	// /connectors), so a replay creates it under the same name.
	fixtureCreated = "fixture-created"
)

// exchange is one request of the recorded sequence; its order matters (a
// PATCH needs a stopped connector).
type exchange struct {
	name, method, path, body string
	role, state              string
	maps, free               []string
	message                  bool
}

func connectorOf(role string) string {
	switch role {
	case "source":
		return fixtureSource
	case "sink":
		return fixtureSink
	case "missing":
		return fixtureMissing
	case "new":
		return fixtureCreated
	}
	return ""
}

// exchanges is every REST answer koff uses, and the errors it must read.
func exchanges() []exchange {
	src := "/connectors/" + fixtureSource
	sink := "/connectors/" + fixtureSink
	miss := "/connectors/" + fixtureMissing
	srcPatch := `{"offsets":[{"partition":{"filename":"/fixture/in.txt"},"offset":{"position":3}}]}`
	sinkPatch := fmt.Sprintf(`{"offsets":[{"partition":{"kafka_topic":"%s-in","kafka_partition":0},"offset":{"kafka_offset":1}}]}`, fixtureSink)
	offsets := []string{"$.offsets[].partition", "$.offsets[].offset"}
	return []exchange{
		{name: "server-info", method: "GET", path: "/"},
		{name: "connectors-expanded", method: "GET", path: "/connectors?expand=status&expand=info",
			maps: []string{"$", "$.*.info.config"}},
		{name: "status-source", method: "GET", path: src + "/status", role: "source", state: "RUNNING"},
		{name: "status-sink", method: "GET", path: sink + "/status", role: "sink", state: "RUNNING"},
		{name: "config-source", method: "GET", path: src + "/config", role: "source", state: "RUNNING", maps: []string{"$"}},
		{name: "topics-source", method: "GET", path: src + "/topics", role: "source", state: "RUNNING", maps: []string{"$"}},
		{name: "topics-sink", method: "GET", path: sink + "/topics", role: "sink", state: "RUNNING", maps: []string{"$"}},
		{name: "offsets-source", method: "GET", path: src + "/offsets", role: "source", state: "RUNNING", free: offsets},
		{name: "offsets-sink", method: "GET", path: sink + "/offsets", role: "sink", state: "RUNNING"},
		{name: "patch-running", method: "PATCH", path: src + "/offsets", body: srcPatch, role: "source", state: "RUNNING", message: true},
		{name: "pause-source", method: "PUT", path: src + "/pause", role: "source", state: "RUNNING"},
		{name: "status-source-paused", method: "GET", path: src + "/status", role: "source", state: "PAUSED"},
		{name: "patch-paused", method: "PATCH", path: src + "/offsets", body: srcPatch, role: "source", state: "PAUSED", message: true},
		{name: "delete-paused", method: "DELETE", path: src + "/offsets", role: "source", state: "PAUSED", message: true},
		{name: "resume-paused", method: "PUT", path: src + "/resume", role: "source", state: "PAUSED"},
		{name: "stop-source", method: "PUT", path: src + "/stop", role: "source", state: "RUNNING"},
		{name: "status-source-stopped", method: "GET", path: src + "/status", role: "source", state: "STOPPED"},
		{name: "stop-stopped", method: "PUT", path: src + "/stop", role: "source", state: "STOPPED"},
		{name: "patch-empty-body", method: "PATCH", path: src + "/offsets", body: `{}`, role: "source", state: "STOPPED", message: true},
		{name: "patch-empty-offsets", method: "PATCH", path: src + "/offsets", body: `{"offsets":[]}`, role: "source", state: "STOPPED", message: true},
		{name: "patch-source", method: "PATCH", path: src + "/offsets", body: srcPatch, role: "source", state: "STOPPED", message: true},
		{name: "offsets-source-patched", method: "GET", path: src + "/offsets", role: "source", state: "STOPPED", free: offsets},
		{name: "delete-source", method: "DELETE", path: src + "/offsets", role: "source", state: "STOPPED", message: true},
		{name: "resume-stopped", method: "PUT", path: src + "/resume", role: "source", state: "STOPPED"},
		{name: "stop-sink", method: "PUT", path: sink + "/stop", role: "sink", state: "RUNNING"},
		{name: "patch-sink", method: "PATCH", path: sink + "/offsets", body: sinkPatch, role: "sink", state: "STOPPED", message: true},
		{name: "delete-sink", method: "DELETE", path: sink + "/offsets", role: "sink", state: "STOPPED", message: true},
		{name: "resume-sink", method: "PUT", path: sink + "/resume", role: "sink", state: "STOPPED"},
		{name: "missing-status", method: "GET", path: miss + "/status", role: "missing", message: true},
		{name: "missing-config", method: "GET", path: miss + "/config", role: "missing", message: true},
		{name: "missing-topics", method: "GET", path: miss + "/topics", role: "missing", message: true},
		{name: "missing-offsets", method: "GET", path: miss + "/offsets", role: "missing", message: true},
		{name: "missing-patch", method: "PATCH", path: miss + "/offsets", body: srcPatch, role: "missing", message: true},
		{name: "missing-delete", method: "DELETE", path: miss + "/offsets", role: "missing", message: true},
		{name: "missing-stop", method: "PUT", path: miss + "/stop", role: "missing", message: true},
		{name: "missing-pause", method: "PUT", path: miss + "/pause", role: "missing", message: true},
		{name: "missing-resume", method: "PUT", path: miss + "/resume", role: "missing", message: true},
		{name: "no-resource", method: "GET", path: src + "/nosuchresource", role: "source", message: true},
		{name: "no-method", method: "POST", path: src + "/offsets", body: srcPatch, role: "source", message: true},
		// 409: creating a connector that exists.
		{name: "conflict-create", method: "POST", path: "/connectors", role: "source",
			body: fmt.Sprintf(`{"name":%q,"config":{"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","topic":"x"}}`, fixtureSource), message: true},
	}
}

// lifeExchanges create and delete connectors (POST /connectors with KIP-980's
// initial_state, PUT config, DELETE), and the 400s a create can get.
func lifeExchanges() []exchange {
	created := "/connectors/" + fixtureCreated
	info := []string{"$.config"}
	create := func(name, state string, config string) string {
		b := fmt.Sprintf(`{"name":%q,"config":%s`, name, config)
		if state != "" {
			b += fmt.Sprintf(`,"initial_state":%q`, state)
		}
		return b + "}"
	}
	file := func(name string) string {
		return fmt.Sprintf(`{"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","file":"/fixture/%s.txt","topic":"%s-out","tasks.max":"1"}`, name, name)
	}
	return []exchange{
		{name: "create-stopped", method: "POST", path: "/connectors", role: "new", maps: info,
			body: create(fixtureCreated, "STOPPED", file(fixtureCreated))},
		{name: "status-created-stopped", method: "GET", path: created + "/status", role: "new", state: "STOPPED"},
		{name: "offsets-created-stopped", method: "GET", path: created + "/offsets", role: "new", state: "STOPPED"},
		{name: "config-created-stopped", method: "GET", path: created + "/config", role: "new", state: "STOPPED", maps: []string{"$"}},
		{name: "create-exists", method: "POST", path: "/connectors", role: "new", message: true,
			body: create(fixtureCreated, "STOPPED", file(fixtureCreated))},
		{name: "create-name-mismatch", method: "POST", path: "/connectors", message: true,
			body: create("fixture-one", "", `{"name":"fixture-two","connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","topic":"x"}`)},
		{name: "create-bad-state", method: "POST", path: "/connectors", message: true,
			body: create("fixture-sleeping", "SLEEPING", file("fixture-sleeping"))},
		{name: "create-no-config", method: "POST", path: "/connectors", message: true, body: `{"name":"fixture-no-config"}`},
		{name: "create-no-class", method: "POST", path: "/connectors", message: true,
			body: create("fixture-no-class", "", `{"topic":"x"}`)},
		// Its message lists the worker's plugins and where they are on
		// disk, which differ by run: compared by its start (demo/rest).
		{name: "create-unknown-class", method: "POST", path: "/connectors",
			body: create("fixture-unknown-class", "", `{"connector.class":"com.example.NoSuchConnector"}`)},
		{name: "create-no-name", method: "POST", path: "/connectors", message: true, body: `{"config":` + file("fixture-no-name") + `}`},
		{name: "create-not-json", method: "POST", path: "/connectors", message: true, body: `{"name":`},
		{name: "create-unknown-field", method: "POST", path: "/connectors", message: true,
			body: `{"name":"fixture-unknown-field","config":{"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","topic":"x"},"state":"STOPPED"}`},
		{name: "delete-created", method: "DELETE", path: created, role: "new", state: "STOPPED"},
		// GONE: once the status topic has the deletion (at first the status
		// still answers, typed "unknown").
		{name: "status-deleted", method: "GET", path: created + "/status", role: "new", state: "GONE", message: true},
		{name: "delete-deleted", method: "DELETE", path: created, role: "new", message: true},
		{name: "create-paused", method: "POST", path: "/connectors", role: "new", maps: info,
			body: create(fixtureCreated, "paused", file(fixtureCreated))},
		{name: "status-created-paused", method: "GET", path: created + "/status", role: "new", state: "PAUSED"},
		{name: "delete-paused-connector", method: "DELETE", path: created, role: "new", state: "PAUSED"},
		{name: "create-running", method: "POST", path: "/connectors", role: "new", maps: info,
			body: create(fixtureCreated, "", file(fixtureCreated))},
		{name: "status-created-running", method: "GET", path: created + "/status", role: "new", state: "RUNNING"},
		{name: "put-config-update", method: "PUT", path: created + "/config", role: "new", state: "RUNNING", maps: info,
			body: file(fixtureCreated)},
		{name: "delete-running-connector", method: "DELETE", path: created, role: "new", state: "RUNNING"},
		{name: "put-config-create", method: "PUT", path: created + "/config", role: "new", maps: info,
			body: file(fixtureCreated)},
		{name: "status-put-created", method: "GET", path: created + "/status", role: "new", state: "RUNNING"},
		{name: "put-config-mismatch", method: "PUT", path: created + "/config", role: "new", message: true,
			body: `{"name":"fixture-other","connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","topic":"x"}`},
		{name: "delete-put-created", method: "DELETE", path: created, role: "new", state: "RUNNING"},
	}
}

// TestRESTShapes replays every exchange against the real worker. With
// -record it stores the answers as fixtures; without, it checks the
// worker still answers as recorded (names, types, status codes, messages).
func TestRESTShapes(t *testing.T) {
	s := realStack(t)
	in := s.writeFile(t, "fixture-in.txt", lines("fixture", 1, 3))
	s.createConnector(t, fixtureSource, fileSource(in, fixtureSource+"-out"))
	s.createTopic(t, fixtureSink+"-in", 1)
	s.produce(t, fixtureSink+"-in", 0, `"f1"`, `"f2"`)
	s.createConnector(t, fixtureSink, fileSink(s.FilesDir+"/fixture-sink.txt", fixtureSink+"-in"))
	s.waitOffset(t, fixtureSource, fmt.Sprintf(`{"filename":%q} => {"position":%d}`, in, fileSize(t, in)))
	s.waitOffset(t, fixtureSink, fmt.Sprintf(`{"kafka_partition":0,"kafka_topic":%q} => {"kafka_offset":2}`, fixtureSink+"-in"))

	t.Cleanup(func() { s.rest(t, "DELETE", "/connectors/"+fixtureCreated, nil) })

	var recorded map[string]Fixture
	if !*recordFixtures {
		fs, err := LoadFixtures(FixtureDir())
		if err != nil {
			t.Fatalf("%v (record them: go test ./interop -run TestRESTShapes -record)", err)
		}
		recorded = map[string]Fixture{}
		for _, f := range fs {
			recorded[f.Name] = f
		}
	}
	for i, x := range append(exchanges(), lifeExchanges()...) {
		switch {
		case x.role == "new" && x.state == "PAUSED":
			// Created PAUSED, a connector has no tasks to wait for.
			s.waitConnectorState(t, fixtureCreated, x.state)
		case x.state == "GONE":
			s.waitGone(t, connectorOf(x.role))
		case x.state != "":
			s.waitState(t, connectorOf(x.role), x.state)
		}
		var body any
		if x.body != "" {
			body = x.body
		}
		code, data := s.rest(t, x.method, x.path, body)
		f := Fixture{
			Name: fmt.Sprintf("%02d-%s", i+1, x.name), Method: x.method, Path: x.path,
			Connector: connectorOf(x.role), Role: x.role, State: x.state, RequestBody: x.body,
			Status: code, Maps: x.maps, Free: x.free, Message: x.message, Body: data,
		}
		if *recordFixtures {
			if err := f.Write(FixtureDir()); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, ok := recorded[f.Name]
		if !ok {
			t.Errorf("%s: not recorded (go test ./interop -run TestRESTShapes -record)", f.Name)
			continue
		}
		if d := old.Compare(code, data, old.Connector); d != nil {
			t.Errorf("%s %s %s: the worker now answers differently from the fixture:\n  %s\n  body: %s",
				f.Name, x.method, x.path, strings.Join(d, "\n  "), data)
		}
	}
}

// TestConnectClientParsesFixtures serves each recorded body to koff's
// connect client and checks what it makes of it. It needs no JVM: the
// fixtures are in the repository.
func TestConnectClientParsesFixtures(t *testing.T) {
	fs, err := LoadFixtures(FixtureDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, f := range fs {
		t.Run(f.Name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(f.Status)
				w.Write(f.Body)
			}))
			defer srv.Close()
			c, err := connect.New(connect.Config{URL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			name := f.Connector
			var callErr error
			switch {
			case f.Method == "GET" && f.Path == "/":
				var info connect.ServerInfo
				info, callErr = c.ServerInfo(ctx)
				if callErr == nil && (!info.SupportsAlterOffsets() || info.KafkaClusterID == "") {
					t.Errorf("ServerInfo %+v: want a 4.1 worker with a cluster id", info)
				}
			case strings.HasPrefix(f.Path, "/connectors?"):
				var all map[string]connect.Connector
				all, callErr = c.Connectors(ctx)
				if callErr == nil {
					src, sink := all[fixtureSource], all[fixtureSink]
					if src.Info.Type != "source" || sink.Info.Type != "sink" || src.Status.Connector.State != connect.StateRunning ||
						len(src.Status.Tasks) != 1 || src.Info.Config["connector.class"] == "" || len(src.Info.Tasks) != 1 {
						t.Errorf("Connectors: %+v", all)
					}
				}
			case strings.HasSuffix(f.Path, "/status"):
				var st connect.ConnectorStatus
				st, callErr = c.Status(ctx, name)
				role := f.Role
				if role == "new" {
					role = "source"
				}
				if callErr == nil && (st.Name != name || string(st.Connector.State) != f.State || st.Type != role ||
					st.Stopped() != (f.State == "STOPPED") || st.Connector.WorkerID == "") {
					t.Errorf("Status: %+v, want %s %s", st, f.Role, f.State)
				}
			case f.Method == "PUT" && strings.HasSuffix(f.Path, "/config"):
				// koff never PUTs a config; it reads the errors alike.
				_, callErr = c.RawOffsets(ctx, name)
			case strings.HasSuffix(f.Path, "/config"):
				var cfg map[string]string
				cfg, callErr = c.ConnectorConfig(ctx, name)
				if callErr == nil && cfg["name"] != name {
					t.Errorf("ConnectorConfig: %v", cfg)
				}
			case strings.HasSuffix(f.Path, "/topics"):
				var topics []string
				topics, callErr = c.Topics(ctx, name)
				// Connect answers an unknown connector's topics with 200 and
				// an empty list (ConnectorsResource.getConnectorActiveTopics).
				if want := map[bool]int{true: 0, false: 1}[f.Role == "missing"]; callErr == nil && len(topics) != want {
					t.Errorf("Topics: %v, want %d topics", topics, want)
				}
			case f.Method == "GET" && strings.HasSuffix(f.Path, "/offsets"):
				var o connect.Offsets
				o, callErr = c.Offsets(ctx, name)
				// A connector just created has none yet.
				if callErr == nil && len(o.Offsets) == 0 && f.Role != "new" {
					t.Errorf("Offsets: none in %s", f.Body)
				}
			case f.Method == "POST" && f.Path == "/connectors":
				var req struct {
					Name    string            `json:"name"`
					Config  map[string]string `json:"config"`
					Initial connect.State     `json:"initial_state"`
				}
				json.Unmarshal([]byte(f.RequestBody), &req)
				var info connect.ConnectorInfo
				info, callErr = c.CreateConnector(ctx, req.Name, req.Config, req.Initial)
				if callErr == nil && (info.Name != req.Name || info.Type != "source" || info.Config["name"] != req.Name) {
					t.Errorf("CreateConnector: %+v", info)
				}
			case f.Method == "DELETE" && !strings.HasSuffix(f.Path, "/offsets"):
				callErr = c.DeleteConnector(ctx, name)
			case f.Method == "PATCH":
				var msg string
				msg, callErr = c.AlterOffsets(ctx, name, []byte(f.RequestBody))
				if callErr == nil && !strings.Contains(msg, "altered successfully") {
					t.Errorf("AlterOffsets message %q", msg)
				}
			case f.Method == "DELETE":
				var msg string
				msg, callErr = c.ResetOffsets(ctx, name)
				if callErr == nil && !strings.Contains(msg, "reset successfully") {
					t.Errorf("ResetOffsets message %q", msg)
				}
			case strings.HasSuffix(f.Path, "/stop"):
				callErr = c.Stop(ctx, name)
			case strings.HasSuffix(f.Path, "/pause"):
				callErr = c.Pause(ctx, name)
			case strings.HasSuffix(f.Path, "/resume"):
				callErr = c.Resume(ctx, name)
			default:
				// Requests koff never makes (unknown resource, wrong method,
				// create): koff's client still reads their error bodies.
				_, callErr = c.RawOffsets(ctx, name)
			}
			checkFixtureError(t, f, callErr)
		})
	}
}

// checkFixtureError: a 2xx gives no error; any other status an error that
// is Connect's message verbatim, classified by its status.
func checkFixtureError(t *testing.T, f Fixture, err error) {
	t.Helper()
	if f.Status < 300 {
		if err != nil {
			t.Errorf("%d answer: error %v", f.Status, err)
		}
		return
	}
	var ce *connect.Error
	if !errors.As(err, &ce) {
		t.Fatalf("%d answer %s: error %v, want *connect.Error", f.Status, f.Body, err)
	}
	body, _ := decodeJSON(f.Body)
	msg, _ := body.(map[string]any)["message"].(string)
	if ce.Status != f.Status || ce.Message != msg || fmt.Sprint(ce.Code) != fmt.Sprint(body.(map[string]any)["error_code"]) {
		t.Errorf("error %+v, want status %d and Connect's body %s", ce, f.Status, f.Body)
	}
	if connect.IsNotFound(err) != (f.Status == 404) || connect.IsConflict(err) != (f.Status == 409) {
		t.Errorf("%d answer: IsNotFound %v, IsConflict %v", f.Status, connect.IsNotFound(err), connect.IsConflict(err))
	}
}
