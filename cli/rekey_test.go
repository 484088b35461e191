package cli

import (
	"path/filepath"
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
