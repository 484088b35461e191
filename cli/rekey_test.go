package cli

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// koff rekey on the demo: the plan of every step, a refusal in one line
// with a non-zero exit, the offsets under the new key and the config
// changed, koff undo bringing back both.
func TestRekeyCommandAndUndo(t *testing.T) {
	c := demoCluster(t)
	flags := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL(), "--audit-log", filepath.Join(t.TempDir(), "audit.jsonl")}
	run := func(args ...string) (string, string, int) { return koff(t, append(args, flags...)...) }
	for _, bad := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"rekey", "debezium-inventory"}, "rekey needs --set FIELD=VALUE", ExitUsage},
		{[]string{"rekey", "debezium-inventory", "--set", "server"}, `--set "server": give FIELD=VALUE`, ExitUsage},
		// The dashboard's K refuses the same (planner.NewRekeyRequest).
		{[]string{"rekey", "debezium-inventory", "--set", "server=x", "--config", "topic.prefix=x", "--config", "topic.prefix=y"}, "--config topic.prefix is given twice", ExitUsage},
		{[]string{"rekey", "debezium-inventory", "--set", "server=x", "--rename", "debezium-inventory"}, "--rename debezium-inventory: that is its name now", ExitUsage},
		{[]string{"rekey", "debezium-inventory", "--set", "srver=x", "--config", "topic.prefix=x"}, `no partition of debezium-inventory has a field "srver" (its fields: server; closest: server)`, 1},
		{[]string{"rekey", "debezium-inventory", "--set", "server=dbz2", "--yes"}, "add --config topic.prefix=dbz2", 1},
		{[]string{"rekey", "debezium-inventry", "--set", "server=dbz2"}, "debezium-inventory", 1},
	} {
		_, errs, code := run(bad.args...)
		if code != bad.code || !strings.Contains(errs, bad.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d %q, want %d and %q in one line", bad.args, code, errs, bad.code, bad.want)
		}
	}
	out, errs, code := run("rekey", "debezium-inventory", "--set", "server=dbz2", "--config", "topic.prefix=dbz2", "--dry-run")
	for _, want := range []string{
		"Plan: rekey of debezium-inventory (4 steps)",
		"1. stop debezium-inventory (PUT /connectors/debezium-inventory/stop; it is RUNNING)",
		"2. change the config of debezium-inventory (PUT /connectors/debezium-inventory/config): topic.prefix inventory → dbz2",
		"3. rekey server=dbz2: 1 partition of debezium-inventory under new keys",
		`["debezium-inventory",{"server":"dbz2"}] (new key)`,
		"→ (deleted)",
		"4. resume debezium-inventory",
		"dry run: nothing done",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("dry run (exit %d %s) lacks %q:\n%s", code, errs, want, out)
		}
	}
	out, errs, code = run("rekey", "debezium-inventory", "--set", "server=dbz2", "--config", "topic.prefix=dbz2", "--yes")
	if code != 0 || !strings.Contains(out, "rekey of debezium-inventory: all 4 steps done") {
		t.Fatalf("rekey: exit %d %s\n%s", code, errs, out)
	}
	got, _, _ := koff(t, "get", "debezium-inventory", "-o", "json", "-b", c.Bootstrap())
	if !strings.Contains(got, `"partition":{"server":"dbz2"}`) || strings.Contains(got, `"server":"inventory"`) {
		t.Errorf("offsets after the rekey: %s", got)
	}
	out, errs, code = run("undo", "debezium-inventory", "--yes")
	if code != 0 || !strings.Contains(out, "undo of the rekey of debezium-inventory: all 4 steps done") {
		t.Fatalf("undo: exit %d %s\n%s", code, errs, out)
	}
	if c.ConnectorState("debezium-inventory") != "RUNNING" {
		t.Errorf("after undo: %q", c.ConnectorState("debezium-inventory"))
	}
}

// koff rekey --rename: the rename and the rekey in one plan, confirmed by
// the new name, done as one operation that koff undo takes back whole.
func TestRekeyWithRenameCommand(t *testing.T) {
	c := demoCluster(t)
	flags := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL(), "--audit-log", filepath.Join(t.TempDir(), "audit.jsonl")}
	run := func(args ...string) (string, string, int) { return koff(t, append(args, flags...)...) }
	args := []string{"rekey", "debezium-inventory", "--set", "server=dbz2", "--config", "topic.prefix=dbz2", "--rename", "dbz2-inventory"}
	out, errs, code := run(append(args, "--dry-run")...)
	for _, want := range []string{
		"Plan: rename of debezium-inventory to dbz2-inventory (6 steps)",
		"1. stop debezium-inventory",
		"2. create dbz2-inventory STOPPED (POST /connectors, initial_state STOPPED, PostgresConnector)",
		"topic.prefix=dbz2",
		"3. copy 1 partition rekeyed server=dbz2 of dbz2-inventory via offsets topic connect-offsets, then read back",
		`["dbz2-inventory",{"server":"dbz2"}] (new key)`,
		"4. tombstone the 1 partition of debezium-inventory",
		"5. delete debezium-inventory",
		"6. resume dbz2-inventory",
		"command: koff rekey debezium-inventory --set server=dbz2 --config topic.prefix=dbz2 --rename dbz2-inventory",
		"dry run: nothing done",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("dry run (exit %d %s) lacks %q:\n%s", code, errs, want, out)
		}
	}
	if strings.Contains(out, "takes a new snapshot") {
		t.Errorf("the plan says what debezium-inventory does without offsets, which it never restarts to do:\n%s", out)
	}
	if _, errs, code := run(append(slices.Clone(args[:len(args)-1]), "jdbc-shop", "--dry-run")...); code != 1 || !strings.Contains(errs, "connector jdbc-shop exists in Connect") {
		t.Errorf("--rename to a name Connect has: exit %d %q", code, errs)
	}
	if _, errs, code := run(args...); code != ExitUsage || !strings.Contains(errs, "stdin is not a terminal") {
		t.Fatalf("without --yes: exit %d %q", code, errs)
	}
	out, errs, code = run(append(args, "--yes")...)
	if code != 0 || !strings.Contains(out, "rename of debezium-inventory to dbz2-inventory: all 6 steps done") {
		t.Fatalf("rekey --rename: exit %d %s\n%s", code, errs, out)
	}
	if c.ConnectorState("debezium-inventory") != "" || c.ConnectorState("dbz2-inventory") != "RUNNING" {
		t.Fatalf("after: %q %q", c.ConnectorState("debezium-inventory"), c.ConnectorState("dbz2-inventory"))
	}
	got, _, _ := koff(t, "get", "dbz2-inventory", "debezium-inventory", "-o", "json", "-b", c.Bootstrap())
	if !strings.Contains(got, `"dbz2-inventory":{"offsets":[{"partition":{"server":"dbz2"}`) || strings.Contains(got, `"debezium-inventory":{"offsets":[{`) {
		t.Errorf("offsets after: %s", got)
	}
	out, errs, code = run("undo", "dbz2-inventory", "--yes")
	if code != 0 || !strings.Contains(out, "undo of the rename of debezium-inventory to dbz2-inventory: all 6 steps done") {
		t.Fatalf("undo: exit %d %s\n%s", code, errs, out)
	}
	if c.ConnectorState("debezium-inventory") != "RUNNING" || c.ConnectorState("dbz2-inventory") != "" {
		t.Fatalf("after undo: %q %q", c.ConnectorState("debezium-inventory"), c.ConnectorState("dbz2-inventory"))
	}
}
