package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"koff/demo"
)

// clusterBroker is a broker with connect-offsets (and more offsets
// topics) whose cluster id is id.
func clusterBroker(t *testing.T, id string, more ...string) string {
	t.Helper()
	b, err := demo.StartBrokerWith(demo.BrokerOptions{Listen: "127.0.0.1:0", ClusterID: id})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	for _, topic := range append([]string{"connect-offsets"}, more...) {
		if err := b.CreateTopic(topic, 25, map[string]string{"cleanup.policy": "compact"}); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bootstrap()
}

// auditRows is koff audit -o json.
func auditRows(t *testing.T, args ...string) []auditRow {
	t.Helper()
	out, errs, code := koff(t, append([]string{"audit", "-o", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("koff audit %v: exit %d %s", args, code, errs)
	}
	var rows []auditRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("koff audit -o json: %v\n%s", err, out)
	}
	return rows
}

func offsetsOf(t *testing.T, addr, conn string) string {
	t.Helper()
	out, errs, code := koff(t, "get", conn, "-b", addr, "-o", "json")
	if code != 0 {
		t.Fatalf("get: %s", errs)
	}
	return out
}

// One audit log, two clusters, a connector named src on each: undo and
// audit on B never see A's edit as B's, and an edit undone is listed so.
func TestUndoAndAuditBelongToTheConnectedCluster(t *testing.T) {
	a, b := clusterBroker(t, "cluster-a"), clusterBroker(t, "cluster-b")
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	key := `["src",{"file":"x"}]`
	produceConnect(t, a, [2]string{key, `{"pos":1}`})
	produceConnect(t, b, [2]string{key, `{"pos":100}`})
	if _, errs, code := koff(t, "set", "src", "-b", a, "--audit-log", audit, "--yes", "--partition", `{"file":"x"}`, "--offset", `{"pos":5}`); code != 0 {
		t.Fatal(errs)
	}
	rows := auditRows(t, "-b", a, "--audit-log", audit)
	if len(rows) != 1 || rows[0].Cluster != "cluster-a" || rows[0].Connector != "src" || rows[0].Kind != "set" || rows[0].Outcome != "verified" ||
		rows[0].User == "" || rows[0].Partitions != 1 || len(rows[0].OffsetsTopics) != 1 {
		t.Fatalf("koff audit on A: %+v", rows)
	}
	id := rows[0].ID
	if rows := auditRows(t, "-b", b, "--audit-log", audit); len(rows) != 0 {
		t.Errorf("koff audit on B lists A's edit: %+v", rows)
	}
	if rows := auditRows(t, "--all-clusters", "--audit-log", audit); len(rows) != 1 {
		t.Errorf("koff audit --all-clusters: %+v", rows)
	}
	out, _, _ := koff(t, "audit", "-b", a, "--audit-log", audit)
	for _, want := range []string{"ID", "WHEN", "WHO", "CLUSTER", "CONNECTOR", "KIND", "OUTCOME", "PARTITIONS", id, "cluster-a", "verified"} {
		if !strings.Contains(out, want) {
			t.Errorf("koff audit table lacks %q:\n%s", want, out)
		}
	}

	before := endOffsets(t, b)
	_, errs, code := koff(t, "undo", "src", "-b", b, "--audit-log", audit, "--yes")
	if code != ExitFailed || !strings.Contains(errs, "no edit of src on this cluster to undo: the last edit of src was on cluster cluster-a") || !strings.Contains(errs, "connected to cluster-b") {
		t.Errorf("undo on B: exit %d %q", code, errs)
	}
	_, errs, code = koff(t, "undo", "--edit", id, "-b", b, "--audit-log", audit, "--yes")
	if code != ExitFailed || !strings.Contains(errs, "was made on cluster cluster-a; connected to cluster-b") {
		t.Errorf("undo --edit of A's edit on B: exit %d %q", code, errs)
	}
	if after := endOffsets(t, b); after != before || !strings.Contains(offsetsOf(t, b, "src"), `{"pos":100}`) {
		t.Errorf("B was written: end offsets %d → %d", before, after)
	}

	out, errs, code = koff(t, "undo", "--edit", id, "-b", a, "--audit-log", audit, "--yes")
	if code != 0 || !strings.Contains(out, "Undoing the set of src by ") || !strings.Contains(out, "(edit "+id+")") {
		t.Fatalf("undo --edit on A: exit %d %s\n%s", code, errs, out)
	}
	if !strings.Contains(offsetsOf(t, a, "src"), `{"pos":1}`) {
		t.Errorf("A after undo: %s", offsetsOf(t, a, "src"))
	}
	rows = auditRows(t, "src", "-b", a, "--audit-log", audit)
	if len(rows) != 2 || rows[0].UndoneBy != rows[1].ID || rows[1].Undoes != id || rows[1].Kind != "undo" {
		t.Errorf("audit after the undo: %+v", rows)
	}
	_, errs, code = koff(t, "undo", "--edit", id, "-b", a, "--audit-log", audit, "--yes")
	if code != ExitFailed || !strings.Contains(errs, "was undone already by the undo by") || !strings.Contains(errs, "--edit "+rows[1].ID) {
		t.Errorf("undo of an undone edit: exit %d %q", code, errs)
	}
	_, errs, code = koff(t, "undo", "--edit", "20990101", "-b", a, "--audit-log", audit, "--yes")
	if code != ExitFailed || !strings.Contains(errs, "no edit 20990101 in "+audit+" (koff audit lists") {
		t.Errorf("undo of an unknown id: exit %d %q", code, errs)
	}
	if _, errs, code := koff(t, "audit", "--audit-log", audit); code != ExitUsage || !strings.Contains(errs, "--all-clusters") {
		t.Errorf("audit without -b: exit %d %q", code, errs)
	}
}

// A task flushed after the edit: undo refuses, naming the partition, the
// newer value and who wrote it, and writes nothing; --force puts the
// before-value back.
func TestUndoRefusesANewerValueUnlessForced(t *testing.T) {
	addr := offsetsBroker(t)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	key := `["src",{"file":"x"}]`
	produceConnect(t, addr, [2]string{key, `{"pos":1}`})
	if _, errs, code := koff(t, "set", "src", "-b", addr, "--audit-log", audit, "--yes", "--partition", `{"file":"x"}`, "--offset", `{"pos":5}`); code != 0 {
		t.Fatal(errs)
	}
	produceConnect(t, addr, [2]string{key, `{"pos":6}`}) // the task flushed
	before := endOffsets(t, addr)
	out, errs, code := koff(t, "undo", "src", "-b", addr, "--audit-log", audit, "--yes")
	if code != ExitFailed || !strings.Contains(errs, `{"file":"x"} in connect-offsets/`+partitionOf(key)+` now holds {"pos":6}, not {"pos":5} as the edit wrote`) ||
		!strings.Contains(errs, "not written by koff") || !strings.Contains(errs, "pass --force") {
		t.Errorf("undo after a flush: exit %d %q", code, errs)
	}
	if !strings.Contains(out, `newer value: {"file":"x"}`) {
		t.Errorf("the newer value is not shown:\n%s", out)
	}
	if after := endOffsets(t, addr); after != before {
		t.Errorf("a refused undo wrote: %d → %d", before, after)
	}
	out, errs, code = koff(t, "undo", "src", "-b", addr, "--audit-log", audit, "--yes", "--force")
	if code != 0 || !strings.Contains(out, `{"pos":6} → {"pos":1}`) {
		t.Errorf("undo --force: exit %d %s\n%s", code, errs, out)
	}
	if !strings.Contains(offsetsOf(t, addr, "src"), `{"pos":1}`) {
		t.Errorf("after undo --force: %s", offsetsOf(t, addr, "src"))
	}
}

// The last edit was stopped by a signal before its first write (its
// write-ahead line, and an outcome naming the partition not written): a
// bare undo on a pipe names the older edit it would undo and refuses;
// --yes undoes it, saying so. (An edit killed without an outcome line may
// have had its first request in flight: that one is unknown, and undo puts
// its before-values back.)
func TestABareUndoAfterAnEditThatWroteNothingAsks(t *testing.T) {
	addr := offsetsBroker(t)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	key := `["src",{"file":"x"}]`
	produceConnect(t, addr, [2]string{key, `{"pos":1}`})
	if _, errs, code := koff(t, "set", "src", "-b", addr, "--audit-log", audit, "--yes", "--partition", `{"file":"x"}`, "--offset", `{"pos":5}`); code != 0 {
		t.Fatal(errs)
	}
	// The next edit, as a koff killed right after its write-ahead line
	// leaves it: the plan, the log-end offset, no outcome.
	data, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	var start map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(string(data), "\n", 2)[0]), &start); err != nil {
		t.Fatal(err)
	}
	tp := "connect-offsets/" + partitionOf(key)
	start["id"], start["time"], start["pid"], start["result"] = "20991231T000000.000Z-dead0001", "2099-12-31T00:00:00Z", 0, "in-progress"
	start["positions"] = map[string]int64{tp: endOffsets(t, addr)}
	ch := start["changes"].([]any)[0].(map[string]any)
	ch["after"] = map[string]any{"pos": 9}
	ch["before"] = map[string]any{"pos": 5}
	rec := ch["records"].([]any)[0].(map[string]any)
	rec["value"], rec["before"] = `{"pos":9}`, `{"pos":5}`
	line, _ := json.Marshal(start)
	outcome, _ := json.Marshal(map[string]any{
		"id": start["id"], "time": start["time"], "user": start["user"], "connector": "src", "kind": "set", "path": start["path"],
		"cluster": start["cluster"], "result": "interrupted", "not_written": []string{tp},
		"error": "interrupted by a signal: stopped after the produce request in flight",
	})
	f, err := os.OpenFile(audit, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append(line, '\n'))
	f.Write(append(outcome, '\n'))
	f.Close()
	rows := auditRows(t, "-b", addr, "--audit-log", audit)
	if len(rows) != 2 || !strings.HasPrefix(rows[1].Outcome, "interrupted") {
		t.Fatalf("audit: %+v", rows)
	}

	before := endOffsets(t, addr)
	_, errs, code := koff(t, "undo", "src", "-b", addr, "--audit-log", audit)
	if code == 0 || !strings.Contains(errs, "the last edit, the set of src by") || !strings.Contains(errs, "(edit 20991231T000000.000Z-dead0001), wrote nothing (interrupted") ||
		!strings.Contains(errs, "pass --edit "+rows[0].ID) {
		t.Errorf("bare undo on a pipe: exit %d %q", code, errs)
	}
	if after := endOffsets(t, addr); after != before {
		t.Errorf("it wrote: %d → %d", before, after)
	}
	out, errs, code := koff(t, "undo", "src", "-b", addr, "--audit-log", audit, "--yes")
	if code != 0 || !strings.Contains(out, "newer edit that wrote nothing: the set of src") || !strings.Contains(out, "so this undoes the older edit "+rows[0].ID) {
		t.Errorf("undo --yes: exit %d %s\n%s", code, errs, out)
	}
	if !strings.Contains(offsetsOf(t, addr, "src"), `{"pos":1}`) {
		t.Errorf("after undo: %s", offsetsOf(t, addr, "src"))
	}
}

// A Connect REST URL whose workers use another Kafka cluster than -b
// (GET / names it): undo refuses before planning anything.
func TestUndoRefusesAConnectOfAnotherCluster(t *testing.T) {
	c := demoCluster(t)                                       // cluster koff-demo-<hex>
	b := clusterBroker(t, "cluster-b", "connect-offsets-crm") // a demo connector's own offsets topic
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	produceConnect(t, b, [2]string{`["src",{"file":"x"}]`, `{"pos":1}`})
	if _, errs, code := koff(t, "set", "src", "-b", b, "--audit-log", audit, "--yes", "--partition", `{"file":"x"}`, "--offset", `{"pos":5}`); code != 0 {
		t.Fatal(errs)
	}
	before := endOffsets(t, b)
	_, errs, code := koff(t, "undo", "src", "-b", b, "--connect-url", c.ConnectURL(), "--audit-log", audit, "--yes")
	if code != ExitFailed || !regexp.MustCompile(`use Kafka cluster koff-demo-[0-9a-f]{8}, but the brokers koff reads are cluster cluster-b`).MatchString(errs) {
		t.Errorf("undo with another cluster's Connect: exit %d %q", code, errs)
	}
	if after := endOffsets(t, b); after != before {
		t.Errorf("it wrote: %d → %d", before, after)
	}
}
