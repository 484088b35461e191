package probe

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"koff/model/resume"
)

func writeDBPass(t *testing.T, mode os.FileMode, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func debeziumSource(host, port string) Source {
	return Source{Name: "inv", Class: DebeziumPostgresClass, Type: "source",
		Config:  map[string]string{"database.hostname": host, "database.port": port, "database.dbname": "inventory", "slot.name": "dbz"},
		Offsets: []Offset{{Partition: `{"server":"inv"}`, Offset: `{"lsn_proc":100,"lsn":90}`}}}
}

// TestDatabasesUnknownWithoutCredentials: no --db-pass-file, or no line for the
// database: every partition unknown, saying what to add; nothing dialled.
func TestDatabasesUnknownWithoutCredentials(t *testing.T) {
	var none *Databases
	c := none.Check(context.Background(), debeziumSource("db1", "5432"))
	if c.State() != resume.Unknown || !strings.Contains(c.Partitions[0].Reason, "no --db-pass-file") {
		t.Errorf("no pass file: %+v", c)
	}
	d, err := NewDatabases(writeDBPass(t, 0o600, "db2:5432:*:u:p"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c = d.Check(context.Background(), debeziumSource("db1", "5432"))
	want := "no credentials for db1:5432/inventory in --db-pass-file: add a line db1:5432:inventory:USER:PASSWORD"
	if c.State() != resume.Unknown || c.Partitions[0].Reason != want || c.Reason != want || c.Partitions[0].Partition != `{"server":"inv"}` {
		t.Errorf("no line: %+v, want %q", c, want)
	}
	my := Source{Name: "m", Class: DebeziumMySQLClass, Config: map[string]string{"database.hostname": "my1"}, Offsets: []Offset{{Partition: `{"server":"m"}`, Offset: `{"file":"b.000001","pos":4}`}}}
	if c := d.Check(context.Background(), my); !strings.Contains(c.Reason, "no credentials for my1:3306 in --db-pass-file: add a line my1:3306:*:USER:PASSWORD") {
		t.Errorf("MySQL, default port: %+v", c)
	}
	if c := d.Check(context.Background(), Source{Name: "j", Class: "io.confluent.connect.jdbc.JdbcSourceConnector"}); c.State() != resume.Unknown || !strings.Contains(c.Reason, "JdbcSourceConnector") {
		t.Errorf("another class: %+v", c)
	}
	if c := d.Check(context.Background(), Source{Name: "fresh", Class: DebeziumPostgresClass}); c.State() != resume.Resumes {
		t.Errorf("no offset yet: %+v", c)
	}
}

// TestDatabasesUnreachableIsQuick: a closed port, and a port that accepts but
// never answers, make the partition unknown with the reason in one line,
// within the timeout: the check never hangs.
func TestDatabasesUnreachableIsQuick(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := strconv.Itoa(closed.Addr().(*net.TCPAddr).Port)
	closed.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	silentPort := strconv.Itoa(silent.Addr().(*net.TCPAddr).Port)
	d, err := NewDatabases(writeDBPass(t, 0o600, "127.0.0.1:*:*:koff:pw"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ what, port, class, why string }{
		{"closed, PostgreSQL", closedPort, DebeziumPostgresClass, "refused"},
		{"closed, MariaDB", closedPort, DebeziumMariaDBClass, "refused"},
		{"silent, PostgreSQL", silentPort, DebeziumPostgresClass, "timeout"},
		{"silent, MySQL", silentPort, DebeziumMySQLClass, "timeout"},
	} {
		src := debeziumSource("127.0.0.1", c.port)
		src.Class = c.class
		began := time.Now()
		got := d.Check(context.Background(), src)
		took := time.Since(began)
		r := got.Partitions[0].Reason
		t.Logf("%s: %s in %s", c.what, r, took.Round(time.Millisecond))
		if got.State() != resume.Unknown || !strings.Contains(r, "127.0.0.1:"+c.port) || !strings.Contains(r, c.why) || strings.Contains(r, "\n") {
			t.Errorf("%s: %+v, want unknown, %q", c.what, got, c.why)
		}
		if took > 2500*time.Millisecond {
			t.Errorf("%s: the check took %s, past its 1s timeout", c.what, took)
		}
	}
}
