package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"koff/edit/audit"
	"koff/edit/plan"
)

// pollutedHome is the home of someone who used koff: an edit interrupted
// on a cluster the line does not name (an older koff: announced on every
// cluster) and a current context that is read-only and points nowhere.
func pollutedHome(t *testing.T) (string, map[string][]byte) {
	t.Helper()
	home := t.TempDir()
	en := audit.Entry{ID: "20261201T100000.000Z-deadbeef", Time: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), User: "someone", Host: "another-host", PID: 1,
		Connector: "jdbc-shop", Kind: plan.KindImport, Path: plan.PathTopic, Result: audit.ResultInProgress,
		Changes:   []audit.Change{{Partition: json.RawMessage(`{"t":1}`), Before: json.RawMessage(`{"id":1}`), After: json.RawMessage(`{"id":2}`), Writes: []string{"connect-offsets/3"}}},
		Positions: map[string]int64{"connect-offsets/3": 0}}
	line, err := json.Marshal(en)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		filepath.Join(home, ".local", "state", "koff", "audit.jsonl"): append(line, '\n'),
		filepath.Join(home, ".config", "koff", "config.yaml"):         []byte("current-context: prod\ncontexts:\n  prod:\n    bootstrap-servers: 127.0.0.1:1\n    read-only: true\n"),
	}
	for path, b := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home, files
}

// The tests never see the home they were started in: run with a real
// HOME holding an interrupted edit and a read-only current context, tests
// that run koff with an empty environment (status, every command's
// output, a rewind and its undo) still pass, and that home is unchanged.
func TestTheTestsNeverSeeTheUsersHome(t *testing.T) {
	if os.Getenv("KOFF_TEST_IN_POLLUTED_HOME") != "" {
		t.Skip("already in the polluted home")
	}
	if testing.Short() {
		t.Skip("runs other tests in a child process")
	}
	home, files := pollutedHome(t)
	tests := []string{"TestNoRawControlReachesTheTerminal", "TestStatusReportsStalledSourcesAndSinkLag", "TestARewindIsAuditedAndToldAsARewind", "TestStopAndResumeAreAuditedOrRefused"}
	cmd := exec.Command(os.Args[0], "-test.run", "^("+strings.Join(tests, "|")+")$", "-test.v")
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "HOME" && k != "XDG_STATE_HOME" && k != "XDG_CONFIG_HOME" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HOME="+home, "KOFF_TEST_IN_POLLUTED_HOME=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("with a polluted HOME the tests fail: %v\n%s", err, out)
	}
	for _, name := range tests {
		if !strings.Contains(string(out), "\n--- PASS: "+name+" ") {
			t.Errorf("%s did not pass in the polluted home:\n%s", name, out)
		}
	}
	for path, want := range files {
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
			t.Errorf("the tests changed %s: %v\n%s", path, err, got)
		}
	}
	if eds, _ := filepath.Glob(filepath.Join(home, ".local", "state", "koff", "*")); len(eds) != 1 {
		t.Errorf("the tests wrote in the polluted home: %v", eds)
	}
}
