package cli

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"koff/demo"
)

// koff move between the demo's two Connect clusters, each a context: the
// plan of every step, the connector there with its offsets and gone here,
// koff undo bringing it back; a target that has the name is refused in one
// line and nothing changes; bad flags are one line and exit 2.
func TestMoveCommandAndUndo(t *testing.T) {
	c := demoCluster(t)
	c2, err := c.StartSecondConnect("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	env := writeContexts(t, fmt.Sprintf(`contexts:
  one:
    bootstrap-servers: %s
    connect-url: %s
  two:
    bootstrap-servers: %s
    offsets-topics: %s
    config-topic: %s
    connect-url: %s
`, c.Bootstrap(), c.ConnectURL(), c.Bootstrap(), demo.SecondOffsetsTopic, demo.SecondConfigTopic, c2.ConnectURL()))
	env["XDG_STATE_HOME"] = filepath.Join(env["HOME"], "state")
	run := func(args ...string) (string, string, int) {
		return koffEnv(t, env, append(args, "--context", "one")...)
	}

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"move", "file-logs"}, "move needs --to-context CTX"},
		{[]string{"move", "file-logs", "--to-context", "three"}, "--to-context three: no such context"},
		{[]string{"move", "file-logs", "--to-context", "one"}, "is the context koff is connected to"},
	} {
		_, errs, code := run(bad.args...)
		if code != ExitUsage || !strings.Contains(errs, bad.want) {
			t.Errorf("%v: exit %d %q", bad.args, code, errs)
		}
	}
	out, errs, code := run("move", "file-logs", "--to-context", "two", "--dry-run")
	for _, want := range []string{
		"Plan: move of file-logs to two (6 steps)",
		"2. create file-logs on two STOPPED (POST /connectors, initial_state STOPPED, FileStreamSourceConnector)",
		"3. copy 1 partition of file-logs on two via offsets topic connect-cluster-2-offsets, then read back",
		"write connect-cluster-2-offsets/",
		"4. tombstone the 1 partition of file-logs via",
		"5. delete file-logs (DELETE /connectors/file-logs",
		"6. resume file-logs on two",
		"must read back on two before file-logs is deleted here",
		"dry run: nothing done",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("dry run (exit %d %s) lacks %q:\n%s", code, errs, want, out)
		}
	}
	if _, errs, code := run("move", "file-logs", "--to-context", "two"); code != ExitUsage || !strings.Contains(errs, "stdin is not a terminal") {
		t.Fatalf("without --yes: exit %d %q", code, errs)
	}
	out, errs, code = run("move", "file-logs", "--to-context", "two", "--yes")
	if code != 0 || !strings.Contains(out, "move of file-logs to two: all 6 steps done") {
		t.Fatalf("move: exit %d %s\n%s", code, errs, out)
	}
	if c.ConnectorState("file-logs") != "" || c2.ConnectorState("file-logs") != "RUNNING" {
		t.Fatalf("after the move: here %q there %q", c.ConnectorState("file-logs"), c2.ConnectorState("file-logs"))
	}
	there, _, _ := koffEnv(t, env, "get", "file-logs", "-o", "json", "--context", "two")
	if strings.Count(there, `"partition":{"filename"`) != 1 {
		t.Errorf("offsets there: %s", there)
	}
	// Back again: the first cluster has no file-logs now, the second has:
	// a move of jdbc-shop to two is fine, a move of file-logs from two to
	// one after it was created again here is refused.
	out, errs, code = run("undo", "file-logs", "--yes")
	if code != 0 || !strings.Contains(out, "undo of the move of file-logs to two: all 6 steps done") {
		t.Fatalf("undo: exit %d %s\n%s", code, errs, out)
	}
	if c.ConnectorState("file-logs") != "RUNNING" || c2.ConnectorState("file-logs") != "" {
		t.Fatalf("after undo: here %q there %q", c.ConnectorState("file-logs"), c2.ConnectorState("file-logs"))
	}
	// The name taken on the target: refused in one line, nothing changed.
	resp, err := http.Post(c2.ConnectURL()+"/connectors", "application/json", strings.NewReader(
		`{"name":"file-logs","config":{"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","file":"/var/log/other.log","topic":"logs.other"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	_, errs, code = run("move", "file-logs", "--to-context", "two", "--yes")
	if code != 1 || !strings.Contains(errs, "refused: file-logs exists on two already (RUNNING): a move never replaces a connector; nothing changed") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Fatalf("move to a taken name: exit %d %q", code, errs)
	}
	if c.ConnectorState("file-logs") != "RUNNING" {
		t.Errorf("the refused move changed the source: %q", c.ConnectorState("file-logs"))
	}
}

// A move to a Connect cluster whose workers lack the connector's class is
// refused in one line, exit 1, before anything is done (the demo's second
// Connect cluster started without the JDBC plugin, as koff demo-cluster
// --second-connect-without does).
func TestMoveRefusedWhereTheClassIsMissing(t *testing.T) {
	const jdbc = "io.confluent.connect.jdbc.JdbcSourceConnector"
	c := demoCluster(t)
	c2, err := c.StartSecondConnect("127.0.0.1:0", jdbc)
	if err != nil {
		t.Fatal(err)
	}
	env := writeContexts(t, fmt.Sprintf(`contexts:
  one:
    bootstrap-servers: %s
    connect-url: %s
  two:
    bootstrap-servers: %s
    offsets-topics: %s
    config-topic: %s
    connect-url: %s
`, c.Bootstrap(), c.ConnectURL(), c.Bootstrap(), demo.SecondOffsetsTopic, demo.SecondConfigTopic, c2.ConnectURL()))
	env["XDG_STATE_HOME"] = filepath.Join(env["HOME"], "state")
	for _, args := range [][]string{{"--dry-run"}, {"--yes"}} {
		out, errs, code := koffEnv(t, env, append([]string{"move", "jdbc-shop", "--to-context", "two", "--context", "one"}, args...)...)
		if code != ExitFailed || !strings.Contains(errs, "refused: the workers of two have no plugin "+jdbc+" (GET /connector-plugins lists ") ||
			strings.Count(errs, "\n") > 1 || strings.Contains(out, "done") {
			t.Errorf("move %v: exit %d %q\n%s", args, code, errs, out)
		}
	}
	if c.ConnectorState("jdbc-shop") != "RUNNING" || c2.ConnectorState("jdbc-shop") != "" {
		t.Errorf("after the refusal: here %q there %q", c.ConnectorState("jdbc-shop"), c2.ConnectorState("jdbc-shop"))
	}
	// demo-cluster's flag needs the second cluster it names.
	if _, errs, code := koff(t, "demo-cluster", "--second-connect-without", jdbc); code != ExitUsage || !strings.Contains(errs, "--second-connect-without needs --second-connect-listen") {
		t.Errorf("--second-connect-without alone: exit %d %q", code, errs)
	}
}
