package probe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPassfileLookup: PostgreSQL's .pgpass format: first match wins, *
// matches anything, \: and \\ escape, a * user is the connector's own.
func TestPassfileLookup(t *testing.T) {
	p, err := LoadPassfile(writeDBPass(t, 0o600,
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
		_, err := NewDatabases(writeDBPass(t, mode, "db1:5432:*:u:p"), 0)
		if err == nil || !strings.Contains(err.Error(), "group or world access") || !strings.Contains(err.Error(), "0600") || strings.Contains(err.Error(), "\n") {
			t.Errorf("mode %04o: %v", mode, err)
		}
	}
	_, err := NewDatabases(writeDBPass(t, 0o600, "db1:5432:secretpw"), 0)
	if err == nil || !strings.Contains(err.Error(), "line 1 has 3 fields") || strings.Contains(err.Error(), "secretpw") {
		t.Errorf("a short line: %v", err)
	}
	if _, err := NewDatabases(filepath.Join(t.TempDir(), "none"), 0); err == nil || !strings.HasPrefix(err.Error(), "--db-pass-file") {
		t.Errorf("a missing file: %v", err)
	}
	if d, err := NewDatabases(writeDBPass(t, 0o400, "db1:5432:*:u:p"), 0); err != nil || d.Timeout != DefaultDBTimeout || d.ConnectTimeout != DefaultConnectTimeout {
		t.Errorf("a read-only 0400 file: %v %+v", err, d)
	}
}
