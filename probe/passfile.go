package probe

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// Passfile is the operator's database credentials, in PostgreSQL's
// password file format (.pgpass), one line a database:
//
//	hostname:port:database:username:password
//
// Each of the first three fields may be * (any); \: and \\ stand for a
// colon and a backslash; blank lines and lines starting with # are
// skipped. The first line matching a database's host, port and name wins,
// as libpq reads it. koff takes the user from the line too (a * user is the
// connector's database.user), so a read-only monitoring account can differ
// from the connector's replication account. For MySQL and MariaDB the
// database field is not compared (write *).
type Passfile struct {
	Path  string
	lines []passLine
}

type passLine struct {
	host, port, database, user, password string
}

// LoadPassfile reads a password file. Like libpq it refuses one that the
// group or others can read: such a file leaks the passwords it holds.
func LoadPassfile(path string) (*Passfile, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("--db-pass-file: %v", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("--db-pass-file %s: not a regular file", path)
	}
	if info.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("--db-pass-file %s: has group or world access (%04o); permissions should be u=rw (0600) or less", path, info.Mode().Perm())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--db-pass-file: %v", err)
	}
	defer f.Close()
	p := &Passfile{Path: path}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := splitPassLine(text)
		if len(fields) < 5 {
			// libpq skips such a line silently; koff says so, without
			// printing it (it may hold a password).
			return nil, fmt.Errorf("--db-pass-file %s: line %d has %d fields, want hostname:port:database:username:password", path, n, len(fields))
		}
		p.lines = append(p.lines, passLine{fields[0], fields[1], fields[2], fields[3], strings.Join(fields[4:], ":")})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--db-pass-file %s: %v", path, err)
	}
	return p, nil
}

// splitPassLine splits a line at its unescaped colons, unescaping \: and
// \\ (a backslash before any other character stands for that character).
func splitPassLine(s string) []string {
	var fields []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case c == ':':
			fields = append(fields, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(fields, b.String())
}

func matchField(pattern, value string) bool { return pattern == "*" || pattern == value }

// Lookup finds the credentials for a database: the user and password of
// the first line whose host, port and database match (database "" matches
// any line: MySQL's). defaultUser stands in for a * user.
func (p *Passfile) Lookup(host, port, database, defaultUser string) (user, password string, ok bool) {
	if p == nil {
		return "", "", false
	}
	for _, l := range p.lines {
		if !matchField(l.host, host) || !matchField(l.port, port) || (database != "" && !matchField(l.database, database)) {
			continue
		}
		user = l.user
		if user == "*" {
			user = defaultUser
		}
		if user == "" {
			return "", "", false
		}
		return user, l.password, true
	}
	return "", "", false
}
