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

func writePass(t *testing.T, mode os.FileMode, lines ...string) string {
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

// TestPassfileLookup: PostgreSQL's .pgpass format: first match wins, *
// matches anything, \: and \\ escape, a * user is the connector's own.
func TestPassfileLookup(t *testing.T) {
	p, err := LoadPassfile(writePass(t, 0o600,
		"# comment",
		"",
		`db1:5432:inventory:monitor:s3cret`,
		`db1:5432:*:other:never`,
		`fe80\:\:1:5433:orders:koff:pa\:ss\\w:rd`,
		`*:3306:*:*:mysqlpw`,
	))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		host, port, db, defUser string
		user, password          string
		ok                      bool
	}{
		{"db1", "5432", "inventory", "debezium", "monitor", "s3cret", true},
		{"db1", "5432", "sales", "debezium", "other", "never", true},
		{"fe80::1", "5433", "orders", "", "koff", `pa:ss\w:rd`, true},
		{"mysql1", "3306", "", "debezium", "debezium", "mysqlpw", true},
		{"mysql1", "3306", "", "", "", "", false}, // a * user and no database.user
		{"db2", "5432", "inventory", "debezium", "", "", false},
		{"db1", "5433", "inventory", "debezium", "", "", false},
	}
	for _, c := range cases {
		user, pw, ok := p.Lookup(c.host, c.port, c.db, c.defUser)
		if user != c.user || pw != c.password || ok != c.ok {
			t.Errorf("Lookup(%s, %s, %s): %q %q %v, want %q %q %v", c.host, c.port, c.db, user, pw, ok, c.user, c.password, c.ok)
		}
	}
}

// TestPassfileRefused: like libpq, a file the group or others can read is
// refused, in one line naming the fix; so is a line koff cannot read
// (without echoing it: it may hold a password), and a missing file.
func TestPassfileRefused(t *testing.T) {
	for _, mode := range []os.FileMode{0o640, 0o604, 0o644} {
		_, err := NewDatabases(writePass(t, mode, "db1:5432:*:u:p"), 0)
		if err == nil || !strings.Contains(err.Error(), "group or world access") || !strings.Contains(err.Error(), "0600") || strings.Contains(err.Error(), "\n") {
			t.Errorf("mode %04o: %v", mode, err)
		}
	}
	_, err := NewDatabases(writePass(t, 0o600, "db1:5432:secretpw"), 0)
	if err == nil || !strings.Contains(err.Error(), "line 1 has 3 fields") || strings.Contains(err.Error(), "secretpw") {
		t.Errorf("a short line: %v", err)
	}
	if _, err := NewDatabases(filepath.Join(t.TempDir(), "none"), 0); err == nil || !strings.HasPrefix(err.Error(), "--db-pass-file") {
		t.Errorf("a missing file: %v", err)
	}
	if d, err := NewDatabases(writePass(t, 0o400, "db1:5432:*:u:p"), 0); err != nil || d.Timeout != DefaultDBTimeout || d.ConnectTimeout != DefaultConnectTimeout {
		t.Errorf("a read-only 0400 file: %v %+v", err, d)
	}
}

func pgSource(host, port string) Source {
	return Source{Name: "inv", Class: PostgresClass, Type: "source",
		Config:  map[string]string{"database.hostname": host, "database.port": port, "database.dbname": "inventory", "slot.name": "dbz"},
		Offsets: []Offset{{Partition: `{"server":"inv"}`, Offset: `{"lsn_proc":100,"lsn":90}`}}}
}

// TestCheckUnknownWithoutCredentials: no --db-pass-file, or no line for the
// database: every partition unknown, saying what to add; nothing dialled.
func TestCheckUnknownWithoutCredentials(t *testing.T) {
	var none *Databases
	c := none.Check(context.Background(), pgSource("db1", "5432"))
	if c.State() != resume.Unknown || !strings.Contains(c.Partitions[0].Reason, "no --db-pass-file") {
		t.Errorf("no pass file: %+v", c)
	}
	d, err := NewDatabases(writePass(t, 0o600, "db2:5432:*:u:p"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c = d.Check(context.Background(), pgSource("db1", "5432"))
	want := "no credentials for db1:5432/inventory in --db-pass-file: add a line db1:5432:inventory:USER:PASSWORD"
	if c.State() != resume.Unknown || c.Partitions[0].Reason != want || c.Reason != want || c.Partitions[0].Partition != `{"server":"inv"}` {
		t.Errorf("no line: %+v, want %q", c, want)
	}
	my := Source{Name: "m", Class: MySQLClass, Config: map[string]string{"database.hostname": "my1"}, Offsets: []Offset{{Partition: `{"server":"m"}`, Offset: `{"file":"b.000001","pos":4}`}}}
	if c := d.Check(context.Background(), my); !strings.Contains(c.Reason, "no credentials for my1:3306 in --db-pass-file: add a line my1:3306:*:USER:PASSWORD") {
		t.Errorf("MySQL, default port: %+v", c)
	}
	if c := d.Check(context.Background(), Source{Name: "j", Class: "io.confluent.connect.jdbc.JdbcSourceConnector"}); c.State() != resume.Unknown || !strings.Contains(c.Reason, "JdbcSourceConnector") {
		t.Errorf("another class: %+v", c)
	}
	if c := d.Check(context.Background(), Source{Name: "fresh", Class: PostgresClass}); c.State() != resume.Resumes {
		t.Errorf("no offset yet: %+v", c)
	}
}

// TestCheckUnreachableIsQuick: a closed port, and a port that accepts but
// never answers, make the partition unknown with the reason in one line,
// within the timeout: the check never hangs.
func TestCheckUnreachableIsQuick(t *testing.T) {
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
	d, err := NewDatabases(writePass(t, 0o600, "127.0.0.1:*:*:koff:pw"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ what, port, class, why string }{
		{"closed, PostgreSQL", closedPort, PostgresClass, "refused"},
		{"closed, MariaDB", closedPort, MariaDBClass, "refused"},
		{"silent, PostgreSQL", silentPort, PostgresClass, "timeout"},
		{"silent, MySQL", silentPort, MySQLClass, "timeout"},
	} {
		src := pgSource("127.0.0.1", c.port)
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
