package interop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"koff/model/resume"
	"koff/probe"
)

// TestResumePostgresProbe: koff's probe of a real PostgreSQL 15 (no worker
// needed): it logs in with the password file's account (SCRAM, a password
// with a colon), reads the slot's row and the WAL position, and judges a
// Debezium offset in the connector's shape as the slot moves: resumes while
// the slot holds it, gap in WAL bytes once the slot is advanced past it,
// gap and "fails on start" once it is dropped. A wrong password is unknown,
// in one line, with PostgreSQL's refusal.
func TestResumePostgresProbe(t *testing.T) {
	pg := realPostgres(t)
	const slot, role = "koff_probe", "koff_mon"
	pg.mustSQL(t, fmt.Sprintf(`DO $$ BEGIN CREATE ROLE %s LOGIN PASSWORD 'mon:pw'; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
CREATE TABLE IF NOT EXISTS koff_probe_t (id int);`, role))
	hba := filepath.Join(pg.Dir, "data", "pg_hba.conf")
	old, err := os.ReadFile(hba)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(old), role) {
		if err := os.WriteFile(hba, append([]byte("host all "+role+" 127.0.0.1/32 scram-sha-256\n"), old...), 0o600); err != nil {
			t.Fatal(err)
		}
		pg.mustSQL(t, "SELECT pg_reload_conf()")
	}
	pg.mustSQL(t, fmt.Sprintf("SELECT pg_create_logical_replication_slot('%s', 'pgoutput')", slot))
	t.Cleanup(func() {
		pg.SQL(context.Background(), fmt.Sprintf("SELECT pg_drop_replication_slot('%s') FROM pg_replication_slots WHERE slot_name = '%s'", slot, slot))
		pg.SQL(context.Background(), "DROP TABLE IF EXISTS koff_probe_t")
	})
	confirmed := pgLSN(t, pg.mustSQL(t, fmt.Sprintf("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '%s'", slot)))
	// Where a connector that streamed everything the slot confirmed stands.
	offset := fmt.Sprintf(`{"lsn_proc":%d,"messageType":"INSERT","lsn_commit":%d,"lsn":%d,"txId":800,"ts_usec":%d}`, confirmed, confirmed, confirmed, time.Now().UnixMicro())
	port := strconv.Itoa(pg.Port)
	cfg := map[string]string{"database.hostname": "127.0.0.1", "database.port": port, "database.dbname": "postgres",
		"database.user": "debezium", "slot.name": slot, "plugin.name": "pgoutput", "topic.prefix": "probe"}
	src := probe.Source{Name: "probe", Class: probe.DebeziumPostgresClass, Type: "source", Config: cfg,
		Offsets: []probe.Offset{{Partition: `{"server":"probe"}`, Offset: offset}}}
	dbs, err := probe.NewDatabases(dbPassFile(t, "127.0.0.1:"+port+":postgres:"+role+`:mon\:pw`), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string) resume.Partition {
		t.Helper()
		c := dbs.Check(context.Background(), src)
		p := c.Partitions[0]
		t.Logf("%s: %s at %s, lost %d bytes: %s%s", what, p.State, p.Position, p.Lost.Bytes, p.Action, p.Reason)
		return p
	}

	pg.mustSQL(t, "INSERT INTO koff_probe_t SELECT g FROM generate_series(1, 100) g")
	if p := check("the slot holds the offset"); p.State != resume.Resumes || !strings.Contains(p.Action, "streams from lsn "+resume.LSN(uint64(confirmed))) {
		t.Errorf("the slot holds the offset: %+v", p)
	}
	current := pgLSN(t, pg.mustSQL(t, "SELECT pg_current_wal_lsn()"))
	pg.mustSQL(t, fmt.Sprintf("SELECT pg_replication_slot_advance('%s', pg_current_wal_lsn())", slot))
	advanced := pgLSN(t, pg.mustSQL(t, fmt.Sprintf("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '%s'", slot)))
	if p := check("the slot advanced"); p.State != resume.Gap || p.Lost.Bytes != advanced-confirmed || p.Lost.Bytes < current-confirmed {
		t.Errorf("the slot advanced from %d to %d: %+v, want gap of %d bytes", confirmed, advanced, p, advanced-confirmed)
	}
	pg.mustSQL(t, fmt.Sprintf("SELECT pg_drop_replication_slot('%s')", slot))
	if p := check("the slot dropped"); p.State != resume.Gap || p.Lost.Bytes <= 0 || !strings.Contains(p.Action, "the task fails on start") {
		t.Errorf("the slot dropped: %+v", p)
	}

	wrong, err := probe.NewDatabases(dbPassFile(t, "127.0.0.1:"+port+":postgres:"+role+":wrong"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c := wrong.Check(context.Background(), src)
	if r := c.Partitions[0].Reason; c.State() != resume.Unknown || !strings.Contains(r, "password authentication failed") || strings.Contains(r, "\n") || strings.Contains(r, "wrong") {
		t.Errorf("a wrong password: %+v", c)
	}
	t.Logf("a wrong password: %s", c.Reason)
}
