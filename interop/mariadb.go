package interop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// MariaDB is a private MariaDB server on a loopback port with its binary
// log on (--log-bin, as Debezium's MySQL and MariaDB connectors need): its
// own data directory, the superuser root without a password on loopback.
type MariaDB struct {
	Dir  string
	Port int
	cred *syscall.Credential // the user the server runs as when koff's tests run as root
	proc *process
	root *sql.DB
}

// mariadbPrograms finds the server and its installer (Debian's
// mariadb-server; the mysql_* names are older aliases).
func mariadbPrograms() (server, install string, err error) {
	for _, s := range []string{"mariadbd", "mysqld"} {
		if p, err := exec.LookPath(s); err == nil {
			server = p
			break
		}
		if p := "/usr/sbin/" + s; fileExists(p) {
			server = p
			break
		}
	}
	for _, s := range []string{"mariadb-install-db", "mysql_install_db"} {
		if p, err := exec.LookPath(s); err == nil {
			install = p
			break
		}
	}
	if server == "" || install == "" {
		return "", "", errors.New("no MariaDB server programs (mariadbd, mariadb-install-db): apt-get install mariadb-server")
	}
	return server, install, nil
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// MissingMariaDB says what is missing to run the MariaDB tests ("" when
// nothing is).
func MissingMariaDB() string {
	if _, _, err := mariadbPrograms(); err != nil {
		return err.Error()
	}
	return ""
}

// StartMariaDB creates a data directory and starts a server on it. The
// server refuses to run as root, so under root it runs as the mysql user
// the Debian package creates.
func StartMariaDB(ctx context.Context) (m *MariaDB, err error) {
	server, install, err := mariadbPrograms()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "koff-mariadb-")
	if err != nil {
		return nil, err
	}
	m = &MariaDB{Dir: dir}
	defer func() {
		if err != nil {
			m.Stop()
		}
	}()
	runAs := []string{}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("mysql")
		if err != nil {
			return m, fmt.Errorf("running as root, MariaDB needs another user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		m.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return m, err
		}
		runAs = []string{"--user=mysql"}
	}
	ports, err := FreePorts(1)
	if err != nil {
		return m, err
	}
	m.Port = ports[0]
	data := filepath.Join(dir, "data")
	cmd := exec.CommandContext(ctx, install, append([]string{"--no-defaults", "--datadir=" + data,
		"--auth-root-authentication-method=normal", "--skip-test-db"}, runAs...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if out, err := cmd.CombinedOutput(); err != nil {
		return m, fmt.Errorf("mariadb-install-db: %v\n%s", err, out)
	}
	log := filepath.Join(dir, "mariadb.log")
	f, err := os.Create(log)
	if err != nil {
		return m, err
	}
	srv := exec.Command(server, append([]string{"--no-defaults", "--datadir=" + data,
		"--bind-address=127.0.0.1", "--port=" + strconv.Itoa(m.Port),
		"--socket=" + filepath.Join(dir, "mariadb.sock"), "--pid-file=" + filepath.Join(dir, "mariadb.pid"),
		"--log-bin=mysql-bin", "--server-id=1", "--binlog-format=ROW", "--skip-name-resolve",
		"--innodb-buffer-pool-size=16M"}, runAs...)...)
	srv.Stdout, srv.Stderr = f, f
	srv.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := srv.Start(); err != nil {
		f.Close()
		return m, fmt.Errorf("start mariadbd: %w", err)
	}
	p := &process{name: "mariadbd", log: log, cmd: srv, done: make(chan struct{})}
	go func() {
		p.err = srv.Wait()
		f.Close()
		close(p.done)
	}()
	m.proc = p
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", fmt.Sprintf("127.0.0.1:%d", m.Port)
	cfg.Timeout, cfg.MultiStatements = 5*time.Second, true
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return m, err
	}
	m.root = sql.OpenDB(conn)
	err = poll(ctx, fmt.Sprintf("MariaDB on 127.0.0.1:%d", m.Port), p, func() error {
		return m.root.PingContext(ctx)
	})
	return m, err
}

// SQL runs statements as root.
func (m *MariaDB) SQL(ctx context.Context, sql string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err := m.root.ExecContext(ctx, sql)
	return err
}

// QueryRow runs a query as root and scans its one row.
func (m *MariaDB) QueryRow(ctx context.Context, query string, dest ...any) error {
	return m.root.QueryRowContext(ctx, query).Scan(dest...)
}

// Stop ends the server and removes its directory.
func (m *MariaDB) Stop() {
	if m.root != nil {
		m.root.Close()
	}
	if m.proc != nil {
		m.proc.stop(15 * time.Second)
	}
	os.RemoveAll(m.Dir)
}

// Log is the end of the server's log, for a failed test.
func (m *MariaDB) Log(lines int) string {
	return tail(filepath.Join(m.Dir, "mariadb.log"), lines)
}
