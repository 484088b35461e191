package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Debezium connector's check asks its database only with --db-pass-file
// (or a context's db-pass-file): without it, or without a line for the
// database, the connector is unknown saying what to add; a file others can
// read is refused in one line, as libpq refuses it; a database named but
// out of reach is unknown with the reason, quickly.
func TestCheckDebeziumNeedsTheOperatorsCredentials(t *testing.T) {
	closed := freeAddr(t)
	host, port, _ := strings.Cut(closed, ":")
	cfg, _ := json.Marshal(map[string]string{
		"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "name": "dbz",
		"database.hostname": host, "database.port": port, "database.dbname": "inventory",
		"database.user": "debezium", "topic.prefix": "inventory", "slot.name": "debezium",
	})
	addr := checkBroker(t, map[string]string{"dbz": string(cfg)}, nil)
	key, _ := json.Marshal([]any{"dbz", map[string]string{"server": "inventory"}})
	produceConnect(t, addr, [2]string{string(key), `{"lsn_proc":23911416,"lsn_commit":23911416,"lsn":23911416,"txId":750,"ts_usec":1796464427228527}`})

	c, code := koffCheckJSON(t, "dbz", "-b", addr)
	if code != ExitResumeUnknown || c.Connectors[0].State != "unknown" || !strings.Contains(c.Connectors[0].Reason+partitionReasons(c), "--db-pass-file") {
		t.Errorf("no --db-pass-file: exit %d %+v", code, c.Connectors[0])
	}

	dir := t.TempDir()
	pass := filepath.Join(dir, "pgpass")
	if err := os.WriteFile(pass, []byte("otherhost:5432:*:koff:secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := koff(t, "check", "dbz", "-b", addr, "--db-pass-file", pass)
	if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "0600") || out != "" {
		t.Errorf("a file others can read: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	if err := os.Chmod(pass, 0o600); err != nil {
		t.Fatal(err)
	}
	c, code = koffCheckJSON(t, "dbz", "-b", addr, "--db-pass-file", pass)
	if code != ExitResumeUnknown || !strings.Contains(partitionReasons(c)+c.Connectors[0].Reason, "no credentials for "+host+":"+port+"/inventory") {
		t.Errorf("no line for the database: exit %d %+v", code, c.Connectors[0])
	}

	if err := os.WriteFile(pass, []byte("*:*:*:koff:secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, code = koffCheckJSON(t, "dbz", "-b", addr, "--db-pass-file", pass, "--probe-timeout", "2s")
	if code != ExitResumeUnknown || !strings.Contains(partitionReasons(c)+c.Connectors[0].Reason, "refused") {
		t.Errorf("a database out of reach: exit %d %+v", code, c.Connectors[0])
	}

	// A context names the file as the flag does.
	env := writeContexts(t, "contexts:\n  prod:\n    bootstrap-servers: ["+addr+"]\n    db-pass-file: "+pass+"\n")
	out, errs, code = koffEnv(t, env, "check", "dbz", "--context", "prod", "--probe-timeout", "2s", "-o", "json")
	if code != ExitResumeUnknown || strings.Contains(out, "--db-pass-file FILE") || !strings.Contains(out, "refused") {
		t.Errorf("the context's db-pass-file is not used: exit %d %s\n%s", code, errs, out)
	}
}

// partitionReasons joins the reasons of a check's first connector's
// partitions.
func partitionReasons(c checkOut) string {
	var b strings.Builder
	for _, p := range c.Connectors[0].Partitions {
		b.WriteString(p.Reason + "\n")
	}
	return b.String()
}
