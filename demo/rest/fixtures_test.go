package rest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"koff/demo"
	"koff/interop"
)

// The emulator's stand-ins for the connectors the fixtures were recorded
// with: a FileStreamSource and a sink consuming logs.app.
var fixtureStandIns = map[string]string{"source": "file-logs", "sink": "es-search", "missing": "nosuch"}

// classMessages: success messages that depend on the connector class. The
// fixtures' sink is a FileStreamSink, whose alterOffsets returns true, so
// Connect says the short message; the emulator's stand-in es-search
// (Elasticsearch sink) keeps SinkConnector's default alterOffsets (false),
// for which Worker.alterConnectorOffsets answers the framework-managed one.
var classMessages = map[string]string{
	"patch-sink": "The Connect framework-managed offsets for this connector have been altered successfully. " +
		"However, if this connector manages offsets externally, they will need to be manually altered in the system that the connector uses.",
	"delete-sink": "The Connect framework-managed offsets for this connector have been reset successfully. " +
		"However, if this connector manages offsets externally, they will need to be manually reset in the system that the connector uses.",
}

// Requests the emulator does not serve, because koff never makes them.
var notEmulated = map[string]string{}

// messagePrefixes: messages that list what the worker has (its plugins,
// with their versions and places on disk) are compared up to that list.
var messagePrefixes = map[string]string{
	"create-unknown-class": "Failed to find any class that implements Connector and which name matches com.example.NoSuchConnector, available connectors are: PluginDesc{klass=class ",
}

// TestRESTEmulatorMatchesRealConnect replays the real Connect 4.1.1 worker's
// recorded answers (testdata/connect-rest, recorded by interop's
// TestRESTShapes -record) against the emulator, in the order they were
// recorded, and compares status codes, field names, JSON types and messages.
func TestRESTEmulatorMatchesRealConnect(t *testing.T) {
	fixtures, err := interop.LoadFixtures(interop.FixtureDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := demo.Start(ctx, demo.Options{ConnectListen: "127.0.0.1:0", FlushInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}

	replace := strings.NewReplacer(
		"fixture-sink-in", "logs.app",
		"fixture-source", fixtureStandIns["source"],
		"fixture-sink", fixtureStandIns["sink"],
	)
	call := func(method, path, body string) (int, []byte) {
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
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, data
	}
	waitState := func(name, state string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			code, data := call("GET", "/connectors/"+name+"/status", "")
			if state == "GONE" {
				if code == http.StatusNotFound {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s never gone: %s", name, data)
				}
				time.Sleep(50 * time.Millisecond)
				continue
			}
			var st struct {
				Connector struct{ State string }   `json:"connector"`
				Tasks     []struct{ State string } `json:"tasks"`
			}
			json.Unmarshal(data, &st)
			ok := code == 200 && st.Connector.State == state
			for _, task := range st.Tasks {
				ok = ok && task.State == state
			}
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never %s: %s", name, state, data)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	for _, f := range fixtures {
		short := f.Name[strings.IndexByte(f.Name, '-')+1:]
		if why, ok := notEmulated[short]; ok {
			t.Logf("%s: %s", f.Name, why)
			continue
		}
		name, ok := fixtureStandIns[f.Role]
		if !ok {
			name = f.Connector // made by the fixtures themselves
		}
		if f.State != "" {
			waitState(name, f.State)
		}
		code, body := call(f.Method, replace.Replace(f.Path), replace.Replace(f.RequestBody))
		if msg, ok := classMessages[short]; ok {
			f.Body, _ = json.Marshal(map[string]string{"message": msg})
		}
		if prefix, ok := messagePrefixes[short]; ok {
			var got struct{ Message string }
			json.Unmarshal(body, &got)
			if !strings.HasPrefix(got.Message, prefix) {
				t.Errorf("%s: message %q, want it to start %q", f.Name, got.Message, prefix)
			}
			f.Message = false
		}
		if d := f.Compare(code, body, name); d != nil {
			t.Errorf("%s %s %s: the emulator differs from Connect 4.1.1:\n  %s\n  emulator: %s\n  Connect:  %s",
				f.Name, f.Method, replace.Replace(f.Path), strings.Join(d, "\n  "), body, f.Body)
		}
	}
}
