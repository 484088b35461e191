package probe

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"koff/model/resume"
)

// The Debezium connector classes whose database Databases checks.
const (
	DebeziumPostgresClass = "io.debezium.connector.postgresql.PostgresConnector"
	DebeziumMySQLClass    = "io.debezium.connector.mysql.MySqlConnector"
	DebeziumMariaDBClass  = "io.debezium.connector.mariadb.MariaDbConnector"
)

// DBPassFileFlag is the flag that names the credentials file.
const DBPassFileFlag = "--db-pass-file"

// Timeouts of a database check: connecting, and the whole check of one
// connector's database (every query of it).
const (
	DefaultConnectTimeout = 3 * time.Second
	DefaultDBTimeout      = 5 * time.Second
)

// Databases checks Debezium connectors against the databases they capture:
// a PostgreSQL connector's replication slot, a MySQL or MariaDB connector's
// binary logs. Host, port, database and slot come from the connector's
// config; the credentials only from the operator's password file, so koff
// connects to no database the operator has not named there. Every query is
// a SELECT or SHOW; a PostgreSQL session is also read-only
// (default_transaction_read_only). A nil *Databases (no --db-pass-file)
// checks nothing and says so.
type Databases struct {
	pass *Passfile
	// ConnectTimeout bounds connecting (TLS included); Timeout the whole
	// check of one database.
	ConnectTimeout, Timeout time.Duration
	// Now stamps Connector.Checked.
	Now func() time.Time
}

// NewDatabases reads the password file at path (refusing one the group or
// others can read). timeout bounds each database's check (0: 5 s).
func NewDatabases(path string, timeout time.Duration) (*Databases, error) {
	p, err := LoadPassfile(path)
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		timeout = DefaultDBTimeout
	}
	return &Databases{pass: p, ConnectTimeout: min(DefaultConnectTimeout, timeout), Timeout: timeout, Now: time.Now}, nil
}

// HandlesDatabase says whether Check judges connectors of this class.
func HandlesDatabase(class string) bool {
	switch class {
	case DebeziumPostgresClass, DebeziumMySQLClass, DebeziumMariaDBClass:
		return true
	}
	return false
}

// Check judges each stored offset of a Debezium connector against its
// database. It never takes longer than Timeout (plus a moment), and a
// database it cannot reach makes every partition Unknown with the reason.
func (d *Databases) Check(ctx context.Context, s Source) resume.Connector {
	c := resume.Connector{Name: s.Name, Class: s.Class, Type: dbOr(s.Type, "source"), Checked: time.Now()}
	if d != nil && d.Now != nil {
		c.Checked = d.Now()
	}
	if !HandlesDatabase(s.Class) {
		c.Reason = "koff cannot check " + s.Class + "'s source"
		return c
	}
	if len(s.Offsets) == 0 {
		return c // no offset: it starts afresh, as snapshot.mode says
	}
	pg := s.Class == DebeziumPostgresClass
	host := strings.TrimSpace(s.Config["database.hostname"])
	port := strings.TrimSpace(s.Config["database.port"])
	if port == "" {
		port = map[bool]string{true: "5432", false: "3306"}[pg]
	}
	db := ""
	where := net.JoinHostPort(host, port)
	if pg {
		db = strings.TrimSpace(s.Config["database.dbname"])
		where += "/" + db
	}
	unknown := func(reason string) resume.Connector {
		c.Reason = reason
		for _, o := range s.Offsets {
			c.Partitions = append(c.Partitions, resume.Partition{Partition: o.Partition, State: resume.Unknown,
				Lost: resume.None, Replayed: resume.None, Reason: reason})
		}
		return c
	}
	switch {
	case d == nil || d.pass == nil:
		return unknown("no " + DBPassFileFlag + ": koff connects to " + where + " only with credentials for it there")
	case host == "":
		return unknown("no database.hostname in the connector's config")
	case pg && db == "":
		return unknown("no database.dbname in the connector's config")
	}
	user, password, ok := d.pass.Lookup(host, port, db, s.Config["database.user"])
	if !ok {
		return unknown(fmt.Sprintf("no credentials for %s in %s: add a line %s:%s:%s:USER:PASSWORD", where, DBPassFileFlag, dbEsc(host), port, map[bool]string{true: dbEsc(db), false: "*"}[pg]))
	}
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	l := dbLogin{host: host, port: port, database: db, user: user, password: password, connectTimeout: d.ConnectTimeout}
	if pg {
		settings := resume.PostgresSettings(s.Config)
		facts, err := postgresFacts(ctx, l, s.Config, settings.Slot)
		if err != nil {
			return unknown(fmt.Sprintf("PostgreSQL %s: %s", where, d.oneLine(ctx, err)))
		}
		for _, o := range s.Offsets {
			c.Partitions = append(c.Partitions, resume.JudgePostgres(o.Partition, o.Offset, settings, facts))
		}
		return c
	}
	facts, err := binlogFacts(ctx, l, s.Config)
	if err != nil {
		return unknown(fmt.Sprintf("%s %s: %s", map[bool]string{true: "MariaDB", false: "MySQL"}[s.Class == DebeziumMariaDBClass], where, d.oneLine(ctx, err)))
	}
	settings := resume.BinlogConnectorSettings(s.Config)
	for _, o := range s.Offsets {
		c.Partitions = append(c.Partitions, resume.JudgeBinlog(o.Partition, o.Offset, settings, facts))
	}
	return c
}

// dbLogin is where and as whom a check connects.
type dbLogin struct {
	host, port, database, user, password string
	connectTimeout                       time.Duration
}

// esc writes a password-file field, escaping : and \.
func dbEsc(s string) string {
	return strings.NewReplacer(`\`, `\\`, `:`, `\:`).Replace(s)
}

func dbOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// oneLine is an error as one line: a driver's message can span several.
func (d *Databases) oneLine(ctx context.Context, err error) string {
	msg := err.Error()
	if ctx.Err() != nil || strings.Contains(msg, "context deadline exceeded") || strings.Contains(msg, "i/o timeout") {
		return fmt.Sprintf("no answer within %s (timeout)", d.Timeout)
	}
	return strings.Join(strings.Fields(msg), " ")
}
