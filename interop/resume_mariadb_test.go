package interop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"koff/model/resume"
	"koff/probe"
)

// The one MariaDB server of this package's binlog tests, started by the
// first of them; runMain stops it.
var (
	mariaOnce   sync.Once
	mariaServer *MariaDB
	mariaErr    error
)

// realMariaDB is the shared MariaDB server (binary log on), or skips the
// test saying what is missing (a failure under CI=true).
func realMariaDB(t *testing.T) *MariaDB {
	t.Helper()
	if m := MissingMariaDB(); m != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (CI=true: the MariaDB tests must run)", m)
		}
		t.Skip("MariaDB tests skipped: " + m)
	}
	mariaOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		mariaServer, mariaErr = StartMariaDB(ctx)
	})
	if mariaErr != nil {
		t.Fatal(mariaErr)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("\n==== mariadb\n" + mariaServer.Log(40))
		}
	})
	return mariaServer
}

func (m *MariaDB) mustSQL(t *testing.T, sql string) {
	t.Helper()
	if err := m.SQL(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// masterStatus is the server's current binlog file and position and its
// GTID position: where a Debezium connector that read everything stands.
func (m *MariaDB) masterStatus(t *testing.T) (file string, pos int64, gtids string) {
	t.Helper()
	var doDB, ignoreDB string
	if err := m.QueryRow(context.Background(), "SHOW MASTER STATUS", &file, &pos, &doDB, &ignoreDB); err != nil {
		t.Fatal(err)
	}
	if err := m.QueryRow(context.Background(), "SELECT @@GLOBAL.gtid_binlog_pos", &gtids); err != nil {
		t.Fatal(err)
	}
	return file, pos, gtids
}

// binlogOffset is a stored offset in debezium-connector-mysql 3.6.1's shape.
func binlogOffset(file string, pos int64, gtids string) string {
	o := fmt.Sprintf(`{"ts_sec":%d,"file":"%s","pos":%d,"row":1,"server_id":1,"event":2`, time.Now().Unix(), file, pos)
	if gtids != "" {
		o += `,"gtids":"` + gtids + `"`
	}
	return o + "}"
}

// dbPassFile writes a --db-pass-file (mode 0600) with the given lines.
func dbPassFile(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "db.pass")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestResumeMariaDBPurgedBinlog: a Debezium MySQL/MariaDB offset against a
// real MariaDB's binary logs. While the stored file is on the server koff
// says resumes, and how much binlog is left to read; after PURGE BINARY LOGS
// past it koff says gap, names the files gone, and says what Debezium 3.6.1
// does (BaseSourceTask.validateSchemaHistory with
// BinlogConnectorConnection.isBinlogPositionAvailable: the task fails, or
// with snapshot.mode=when_needed snapshots again). With the offset's GTIDs
// it counts the transactions purged unread. koff logs in as a monitoring
// user from the --db-pass-file (its password with an escaped colon and
// backslash), never as the connector's user, and without a line for the
// server it connects to nothing.
func TestResumeMariaDBPurgedBinlog(t *testing.T) {
	m := realMariaDB(t)
	m.mustSQL(t, `CREATE USER IF NOT EXISTS 'koff'@'127.0.0.1' IDENTIFIED BY 'pa:ss\\word';
GRANT BINLOG MONITOR ON *.* TO 'koff'@'127.0.0.1';
CREATE DATABASE IF NOT EXISTS inv; CREATE TABLE inv.purged (id bigint PRIMARY KEY);
INSERT INTO inv.purged VALUES (1), (2); FLUSH BINARY LOGS;`)
	t.Cleanup(func() { m.SQL(context.Background(), "DROP TABLE IF EXISTS inv.purged") })
	file, pos, gtids := m.masterStatus(t)
	// Six transactions after the stored position, in two binary logs that
	// are then purged.
	for i := 3; i <= 7; i++ {
		m.mustSQL(t, fmt.Sprintf("INSERT INTO inv.purged VALUES (%d)", i))
	}
	m.mustSQL(t, "FLUSH BINARY LOGS")
	m.mustSQL(t, "INSERT INTO inv.purged VALUES (8)")
	m.mustSQL(t, "FLUSH BINARY LOGS")
	m.mustSQL(t, "INSERT INTO inv.purged VALUES (9)")

	port := strconv.Itoa(m.Port)
	pass := dbPassFile(t, "# koff's monitoring account", "otherhost:"+port+":*:nobody:x", `127.0.0.1:`+port+`:*:koff:pa\:ss\\word`)
	dbs, err := probe.NewDatabases(pass, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	source := func(class string, offset string, extra ...string) probe.Source {
		cfg := map[string]string{"connector.class": class, "database.hostname": "127.0.0.1", "database.port": port,
			"database.user": "debezium", "topic.prefix": "inv", "snapshot.mode": "initial"}
		for i := 0; i+1 < len(extra); i += 2 {
			cfg[extra[i]] = extra[i+1]
		}
		return probe.Source{Name: "inv-binlog", Class: class, Type: "source", Config: cfg,
			Offsets: []probe.Offset{{Partition: `{"server":"inv"}`, Offset: offset}}}
	}
	check := func(s probe.Source) resume.Partition {
		t.Helper()
		c := dbs.Check(context.Background(), s)
		if len(c.Partitions) != 1 {
			t.Fatalf("check of %s: %+v", s.Class, c)
		}
		t.Logf("%s: %+v", s.Class, c.Partitions[0])
		return c.Partitions[0]
	}

	for _, class := range []string{probe.DebeziumMariaDBClass, probe.DebeziumMySQLClass} {
		p := check(source(class, binlogOffset(file, pos, "")))
		if p.State != resume.Resumes || !strings.Contains(p.Action, file+" from pos "+strconv.FormatInt(pos, 10)) {
			t.Errorf("%s before the purge: %+v, want resumes from %s pos %d", class, p, file, pos)
		}
	}

	newest, end, _ := m.masterStatus(t)
	// A position past the end of the newest file (a server reset, or a
	// restore from an older backup): the server refuses it.
	if p := check(source(probe.DebeziumMariaDBClass, binlogOffset(newest, end+4096, ""))); p.State != resume.Replay ||
		!strings.Contains(p.Action, fmt.Sprintf("pos %d lies past the end of %s (%d bytes)", end+4096, newest, end)) {
		t.Errorf("a pos past the end of %s: %+v, want replay", newest, p)
	}
	m.mustSQL(t, "PURGE BINARY LOGS TO '"+newest+"'")

	p := check(source(probe.DebeziumMariaDBClass, binlogOffset(file, pos, "")))
	if p.State != resume.Gap || !strings.Contains(p.Action, file+" is purged: 2 binary log file(s) gone") || !strings.Contains(p.Action, "oldest left is "+newest) ||
		!strings.Contains(p.Action, "the task fails on start") || !strings.Contains(p.Action, "no longer available on the server") {
		t.Errorf("after PURGE BINARY LOGS TO %s: %+v, want gap: %s purged, the task fails", newest, p, file)
	}
	if since := time.Since(p.Lost.Since); since < 0 || since > time.Minute {
		t.Errorf("the gap is dated %s: want the offset's ts_sec, moments ago", p.Lost.Since)
	}
	p = check(source(probe.DebeziumMySQLClass, binlogOffset(file, pos, ""), "snapshot.mode", "when_needed"))
	if p.State != resume.Gap || !strings.Contains(p.Action, "snapshots the captured tables again") {
		t.Errorf("after the purge, snapshot.mode=when_needed: %+v, want gap and a new snapshot", p)
	}
	// With the offset's GTIDs: the six transactions after it are gone,
	// counted from the GTID state where the oldest binary log left starts.
	p = check(source(probe.DebeziumMariaDBClass, binlogOffset(file, pos, gtids)))
	if p.State != resume.Gap || p.Lost.Records != 6 || !strings.Contains(p.Action, "Could not find GTID state") {
		t.Errorf("after the purge, with gtids %s: %+v, want gap of 6 transactions, and the server refusing the GTID position", gtids, p)
	}

	// No line for the server: unknown, and koff does not connect.
	other, err := probe.NewDatabases(dbPassFile(t, "db1:5432:inventory:koff:x"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c := other.Check(context.Background(), source(probe.DebeziumMariaDBClass, binlogOffset(file, pos, "")))
	if c.State() != resume.Unknown || !strings.Contains(c.Partitions[0].Reason, "no credentials for 127.0.0.1:"+port+" in --db-pass-file") {
		t.Errorf("no line for the server: %+v", c)
	}
	// A wrong password: unknown, with the server's refusal in one line.
	wrong, err := probe.NewDatabases(dbPassFile(t, "127.0.0.1:"+port+":*:koff:wrong"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c = wrong.Check(context.Background(), source(probe.DebeziumMariaDBClass, binlogOffset(file, pos, "")))
	if r := c.Partitions[0].Reason; c.State() != resume.Unknown || !strings.Contains(r, "Access denied") || strings.Contains(r, "\n") {
		t.Errorf("a wrong password: %+v", c)
	}
}
