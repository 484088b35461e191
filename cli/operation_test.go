package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// koff rename on the demo: the plan with every step, the result, the old
// name gone with its offsets, the new one running from them; koff undo
// brings back the start.
func TestRenameCommandAndUndo(t *testing.T) {
	c := demoCluster(t)
	flags := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL(), "--audit-log", filepath.Join(t.TempDir(), "audit.jsonl")}
	dry := withAudit(t, append([]string{"rename", "jdbc-billing", "billing", "--dry-run"}, flags...)...)
	out, errs, code := koff(t, dry...)
	if code != 0 {
		t.Fatalf("dry run: exit %d %s\n%s", code, errs, out)
	}
	for _, want := range []string{
		"Plan: rename of jdbc-billing to billing (6 steps)",
		"1. stop jdbc-billing (PUT /connectors/jdbc-billing/stop; it is RUNNING)",
		"2. create billing STOPPED (POST /connectors, initial_state STOPPED, JdbcSourceConnector)",
		"3. copy 2 partitions of billing via offsets topic connect-offsets, then read back",
		`(none) → {"timestamp_nanos":`,
		"4. tombstone all 2 partitions of jdbc-billing via",
		"5. delete jdbc-billing",
		"6. resume billing",
		"dry run: nothing done",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	if c.ConnectorState("jdbc-billing") != "RUNNING" || c.ConnectorState("billing") != "" {
		t.Fatal("a dry run changed Connect")
	}
	// Not a terminal and no --yes: refused, nothing done.
	real := append([]string{"rename", "jdbc-billing", "billing"}, flags...)
	if _, errs, code := koff(t, real...); code != ExitUsage || !strings.Contains(errs, "stdin is not a terminal") {
		t.Fatalf("without --yes: exit %d %q", code, errs)
	}
	out, errs, code = koff(t, append(real, "--yes")...)
	if code != 0 || !strings.Contains(out, "rename of jdbc-billing to billing: all 6 steps done") || !strings.Contains(out, "undo: koff undo billing --edit ") {
		t.Fatalf("rename: exit %d %s\n%s", code, errs, out)
	}
	if c.ConnectorState("jdbc-billing") != "" || c.ConnectorState("billing") != "RUNNING" {
		t.Fatalf("after rename: jdbc-billing %q billing %q", c.ConnectorState("jdbc-billing"), c.ConnectorState("billing"))
	}
	got, _, _ := koff(t, "get", "jdbc-billing", "billing", "-o", "json", "-b", c.Bootstrap())
	if !strings.Contains(got, `"billing":{"offsets":[{"partition":{"protocol":"1","table":"billing.public.invoices"}`) || strings.Contains(got, `"jdbc-billing":{"offsets":[{`) {
		t.Errorf("offsets after rename: %s", got)
	}
	// The audit log shows it as one entry.
	audit, _, _ := koff(t, append([]string{"audit"}, flags...)...)
	if !strings.Contains(audit, "rename") {
		t.Errorf("koff audit:\n%s", audit)
	}

	// The old name finds it too: the rename is an edit of both.
	out, errs, code = koff(t, append([]string{"undo", "jdbc-billing", "--dry-run"}, flags...)...)
	if code != 0 || !strings.Contains(out, "Undoing the rename of jdbc-billing to billing") {
		t.Fatalf("undo by the old name: exit %d %s\n%s", code, errs, out)
	}
	out, errs, code = koff(t, append([]string{"undo", "billing", "--yes"}, flags...)...)
	if code != 0 || !strings.Contains(out, "Undoing the rename of jdbc-billing to billing") || !strings.Contains(out, "undo of the rename of jdbc-billing to billing: all 6 steps done") {
		t.Fatalf("undo: exit %d %s\n%s", code, errs, out)
	}
	if c.ConnectorState("jdbc-billing") != "RUNNING" || c.ConnectorState("billing") != "" {
		t.Fatalf("after undo: jdbc-billing %q billing %q", c.ConnectorState("jdbc-billing"), c.ConnectorState("billing"))
	}
}

// An orphan (offsets, not in Connect) has no config to rename or rekey
// (or move): each says so and points at koff copy, not "unknown connector";
// a typo is still an unknown connector with the names it is close to.
func TestOperationsOfAnOrphanPointAtCopy(t *testing.T) {
	c := demoCluster(t)
	flags := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL(), "--audit-log", filepath.Join(t.TempDir(), "audit.jsonl")}
	for _, args := range [][]string{
		{"rename", "jdbc-old-orders", "orders-2", "--dry-run"},
		{"rekey", "jdbc-old-orders", "--set", "table=orders2", "--dry-run"},
	} {
		_, errs, code := koff(t, withAudit(t, append(args, flags...)...)...)
		if code == 0 || !strings.Contains(errs, "jdbc-old-orders is not in Connect: koff has only its offsets") ||
			!strings.Contains(errs, "koff copy jdbc-old-orders NEW") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("koff %s: exit %d %q", args[0], code, errs)
		}
	}
	_, errs, code := koff(t, withAudit(t, append([]string{"rename", "jdbc-bililng", "x", "--dry-run"}, flags...)...)...)
	if code == 0 || !strings.Contains(errs, "unknown connector jdbc-bililng") || !strings.Contains(errs, "did you mean jdbc-billing?") {
		t.Errorf("a typo: exit %d %q", code, errs)
	}
}

// koff create -f takes Connect's create request or a flat config, with
// --offsets as an export or Connect's GET offsets body; bad input is one
// line and a non-zero exit.
func TestCreateCommand(t *testing.T) {
	c := demoCluster(t)
	flags := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	flat := write("flat.json", `{"name":"file-new","connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","file":"/var/log/new.log","topic":"logs.new","tasks.max":1}`)
	offsets := write("offsets.json", `{"offsets":[{"partition":{"filename":"/var/log/new.log"},"offset":{"position":9007199254740993}}]}`)
	out, errs, code := koff(t, withAudit(t, append([]string{"create", "-f", flat, "--offsets", offsets, "--start", "stopped", "--yes"}, flags...)...)...)
	if code != 0 || !strings.Contains(out, "1. create file-new STOPPED") || !strings.Contains(out, `(none) → {"position":9007199254740993}`) ||
		!strings.Contains(out, "path: PATCH /connectors/file-new/offsets (once created)") || strings.Contains(out, "resume file-new") ||
		!strings.Contains(out, "create of file-new: all 2 steps done") {
		t.Fatalf("create: exit %d %s\n%s", code, errs, out)
	}
	if c.ConnectorState("file-new") != "STOPPED" {
		t.Fatalf("--start stopped: %s", c.ConnectorState("file-new"))
	}
	got, _, _ := koff(t, "get", "file-new", "-o", "json", "-b", c.Bootstrap())
	if !strings.Contains(got, `"offset":{"position":9007199254740993}`) {
		t.Errorf("offsets after create: %s", got)
	}

	wrapped := write("wrapped.json", `{"name":"file-newer","config":{"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","file":"/var/log/app-1.log","topic":"logs.app"}}`)
	out, errs, code = koff(t, withAudit(t, append([]string{"create", "-f", wrapped, "--offsets-from", "file-logs", "--dry-run"}, flags...)...)...)
	if code != 0 || !strings.Contains(out, "Plan: create of file-newer (3 steps)") || !strings.Contains(out, "copy 1 partition of file-newer") {
		t.Fatalf("create --offsets-from: exit %d %s\n%s", code, errs, out)
	}

	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"create", "-f", wrapped}, ExitFailed, ""},
		{[]string{"create"}, ExitUsage, "create needs -f CONFIG.json"},
		{[]string{"create", "-f", wrapped, "--start", "paused"}, ExitUsage, "--start is running or stopped"},
		{[]string{"create", "-f", wrapped, "--offsets", offsets, "--offsets-from", "file-logs"}, ExitUsage, "give one"},
		{[]string{"create", "-f", wrapped, "--no-offsets", "--offsets-from", "file-logs"}, ExitUsage, "--no-offsets starts it from none: leave out --offsets and --offsets-from"},
		{[]string{"create", "-f", write("noclass.json", `{"name":"x","config":{"topic":"t"}}`)}, ExitFailed, `no "connector.class"`},
		{[]string{"create", "-f", write("mismatch.json", `{"name":"x","config":{"name":"y","connector.class":"c"}}`)}, ExitFailed, `the config's name "y" is not the request's "x"`},
		{[]string{"create", "-f", write("nested.json", `{"name":"x","config":{"connector.class":"c","a":{"b":1}}}`)}, ExitFailed, `config "a" is not a string`},
		{[]string{"create", "-f", write("state.json", `{"name":"x","config":{"connector.class":"c"},"initial_state":"RUNNING"}`)}, ExitFailed, "initial_state"},
		{[]string{"create", "-f", write("bad.json", `{"name":`)}, ExitFailed, "not a JSON object"},
		{[]string{"create", "-f", flat}, ExitFailed, "connector file-new exists in Connect"},
		{[]string{"rename", "file-logs"}, ExitUsage, "rename needs the OLD and the NEW connector name"},
		{[]string{"rename", "file-logs", "jdbc-shop", "--dry-run"}, ExitFailed, "connector jdbc-shop exists in Connect"},
		{[]string{"rename", "es-search", "es-search-v3", "--dry-run"}, 0, ""},
		{[]string{"rename", "file-logs", "file-logs-v2", "--read-only", "--yes"}, ExitFailed, "read-only"},
		{[]string{"create", "-f", wrapped, "--read-only", "--yes"}, ExitFailed, "read-only"},
		{[]string{"rename", "s3-archive", "s3-archive-v2", "--dry-run"}, ExitFailed, "s3-archive is a sink: its offsets are its consumer group connect-s3-archive"},
	} {
		args := withAudit(t, append(tc.args, flags...)...)
		if tc.code == ExitFailed && tc.err == "" {
			continue // the first row only names the file
		}
		_, errs, code := koff(t, args...)
		if code != tc.code || !strings.Contains(errs, tc.err) || strings.Count(errs, "\n") > 1 {
			t.Errorf("koff %s: exit %d %q, want %d and %q in one line", strings.Join(tc.args, " "), code, errs, tc.code, tc.err)
		}
	}
}

// koff create --offsets checks the offsets it would write as koff set
// does: a FileStream position past its file's end is said before confirm,
// with what the task does there; one within the file says nothing of the
// kind. Its help names the resume check's flags.
func TestCreatePlanWarnsWhenItsOffsetDoesNotExist(t *testing.T) {
	c := demoCluster(t)
	flags := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(in, []byte(strings.Repeat("line\n", 4)), 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg := write("fs.json", `{"name":"fs-new","config":{"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","file":"`+in+`","topic":"lines"}}`)
	create := func(position string) string {
		t.Helper()
		offsets := write("offsets.json", `{"offsets":[{"partition":{"filename":"`+in+`"},"offset":{"position":`+position+`}}]}`)
		out, errs, code := koff(t, withAudit(t, append([]string{"create", "-f", cfg, "--offsets", offsets, "--dry-run"}, flags...)...)...)
		if code != 0 {
			t.Fatalf("create --offsets position %s: exit %d %s\n%s", position, code, errs, out)
		}
		return out
	}
	out := create("50")
	want := `warning: FileStream: the new offset of {"filename":"` + in + `"} does not exist (gap): ` + in + ` has 20 bytes, fewer than the position 50`
	if !strings.Contains(out, want) {
		t.Errorf("a created FileStream connector's position past its file's end: want\n%s\nin\n%s", want, out)
	}
	if out := create("10"); strings.Contains(out, "does not exist") || strings.Contains(out, "could not check") {
		t.Errorf("a position within the file:\n%s", out)
	}
	// Created from the gone position, a rename's copy says it is gone too.
	offsets := write("gone.json", `{"offsets":[{"partition":{"filename":"`+in+`"},"offset":{"position":50}}]}`)
	if out, errs, code := koff(t, withAudit(t, append([]string{"create", "-f", cfg, "--offsets", offsets, "--start", "stopped", "--yes"}, flags...)...)...); code != 0 {
		t.Fatalf("create: exit %d %s\n%s", code, errs, out)
	}
	out, errs, code := koff(t, withAudit(t, append([]string{"rename", "fs-new", "fs-newer", "--dry-run"}, flags...)...)...)
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("a rename's copy of a gone position: exit %d %s\n%s", code, errs, out)
	}
	for _, cmd := range []string{"create", "rename", "rekey", "move"} {
		help, _, _ := koff(t, cmd, "--help")
		if !strings.Contains(help, "--db-pass-file") || !strings.Contains(help, "--source-cluster") {
			t.Errorf("koff %s --help lacks the resume check's flags:\n%s", cmd, help)
		}
	}
}
