package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"koff/cli"
)

// koffIn runs koff with a contexts file in its own config directory.
func koffIn(t *testing.T, configHome string, args ...string) (string, string, int) {
	t.Helper()
	var out, errs bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env := map[string]string{"XDG_STATE_HOME": auditDir, "HOME": auditDir, "XDG_CONFIG_HOME": configHome, "USER": "interop", "NO_COLOR": "1"}
	code := cli.Main(args, cli.Env{Context: ctx, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs,
		Getenv: func(k string) string { return env[k] }})
	return out.String(), errs.String(), code
}

// call is one REST call to a worker, its status and body.
func call(t *testing.T, method, url string, body any) (int, string) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, r)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestMirrorMakerMoveToSecondConnect: a MirrorSourceConnector moved with
// koff move to a second Connect cluster (a second worker group on the same
// broker, a koff context): on the target it continues from the next
// record, counted on the target topic; the first cluster no longer has it
// and its offsets there are gone. A move whose target runs a connector of
// that name is refused and changes nothing.
func TestMirrorMakerMoveToSecondConnect(t *testing.T) {
	s := realStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w2, err := s.StartSecondWorker(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("\n==== worker-2\n" + w2.Log(60))
		}
		w2.Stop()
	})
	const name, src = "mm-move", "mm-move-a"
	target := "src." + src
	s.createTopic(t, src, 1)
	s.produce(t, src, 0, "v0", "v1", "v2", "v3", "v4")
	s.createConnector(t, name, s.mirrorSource(src))
	s.waitCopies(t, target, map[string]int{"v0": 1, "v1": 1, "v2": 1, "v3": 1, "v4": 1})
	p0 := fmt.Sprintf(`{"cluster":"src","partition":0,"topic":%q}`, src)
	s.waitOffset(t, name, p0+` => {"offset":4}`)

	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "koff"), 0o700); err != nil {
		t.Fatal(err)
	}
	contexts := fmt.Sprintf("contexts:\n  one:\n    bootstrap-servers: %s\n    connect-url: %s\n  two:\n    bootstrap-servers: %s\n    offsets-topics: %s\n    config-topic: %s\n    connect-url: %s\n",
		s.Bootstrap, s.ConnectURL, s.Bootstrap, w2.OffsetsTopic, w2.ConfigTopic, w2.ConnectURL)
	if err := os.WriteFile(filepath.Join(home, "koff", "config.yaml"), []byte(contexts), 0o600); err != nil {
		t.Fatal(err)
	}

	// The target runs a connector of that name (copying nothing): refused,
	// nothing changed on either cluster.
	other := s.mirrorSource("mm-move-none")
	other["name"] = name
	if code, body := call(t, "POST", w2.ConnectURL+"/connectors", map[string]any{"name": name, "config": other}); code != http.StatusCreated {
		t.Fatalf("create on the second worker: %d %s", code, body)
	}
	waitFor(t, 90*time.Second, name+" running on the second worker", func() (bool, string) {
		_, body := call(t, "GET", w2.ConnectURL+"/connectors/"+name+"/status", nil)
		return strings.Contains(body, `"connector":{"state":"RUNNING"`), body
	})
	before := canonical(t, s.connectOffsets(t, name))
	out, errs, code := koffIn(t, home, "move", name, "--to-context", "two", "--context", "one", "--yes")
	if code == 0 || !strings.Contains(errs, "refused: "+name+" exists on two already (RUNNING)") {
		t.Fatalf("move to a taken name: exit %d\n%s\n%s", code, out, errs)
	}
	s.waitState(t, name, "RUNNING")
	if after := canonical(t, s.connectOffsets(t, name)); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("offsets after the refused move %v, were %v", after, before)
	}
	if _, body := call(t, "GET", w2.ConnectURL+"/connectors/"+name+"/config", nil); !strings.Contains(body, `"topics":"mm-move-none"`) {
		t.Errorf("the target's connector changed: %s", body)
	}
	call(t, "DELETE", w2.ConnectURL+"/connectors/"+name, nil)
	waitFor(t, 90*time.Second, name+" gone from the second worker", func() (bool, string) {
		code, body := call(t, "GET", w2.ConnectURL+"/connectors/"+name+"/status", nil)
		return code == http.StatusNotFound, body
	})
	// Its offsets there (it copied nothing, but Connect may have written
	// none): none, so the move writes new keys.

	out = func() string {
		out, errs, code := koffIn(t, home, "move", name, "--to-context", "two", "--context", "one", "--yes")
		if code != 0 {
			t.Fatalf("koff move: exit %d\n%s\n%s", code, out, errs)
		}
		return out
	}()
	t.Logf("koff move:\n%s", out)
	if !strings.Contains(out, "move of "+name+" to two: all 6 steps done") {
		t.Errorf("koff move's output lacks its outcome")
	}
	if code, body := s.rest(t, "GET", "/connectors/"+name, nil); code != http.StatusNotFound {
		t.Errorf("the first cluster still has %s: %d %s", name, code, body)
	}
	left := mustKoff(t, s.withTopic("get", name, "-o", "json")...)
	if strings.Contains(left, `"partition"`) {
		t.Errorf("offsets left on the first cluster: %s", left)
	}
	waitFor(t, 90*time.Second, name+" running on the second worker", func() (bool, string) {
		_, body := call(t, "GET", w2.ConnectURL+"/connectors/"+name+"/status", nil)
		return strings.Contains(body, `"connector":{"state":"RUNNING"`) && strings.Contains(body, `"tasks":[{"id":0,"state":"RUNNING"`), body
	})
	_, there := call(t, "GET", w2.ConnectURL+"/connectors/"+name+"/offsets", nil)
	if !strings.Contains(there, `"offset":{"offset":4}`) {
		t.Errorf("Connect's GET on the second worker: %s", there)
	}
	s.produce(t, src, 0, "v5", "v6")
	s.waitCopies(t, target, map[string]int{"v0": 1, "v1": 1, "v2": 1, "v3": 1, "v4": 1, "v5": 1, "v6": 1})
	t.Cleanup(func() { call(t, "DELETE", w2.ConnectURL+"/connectors/"+name, nil) })
}
