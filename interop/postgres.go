package interop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// PostgresVersion is the PostgreSQL major version the Debezium tests run on
// (Debian's postgresql package).
const PostgresVersion = "15"

// Postgres is a private PostgreSQL cluster on a loopback port with
// wal_level=logical, as Debezium's PostgreSQL connector needs: its own data
// directory, trust authentication, the superuser "postgres".
type Postgres struct {
	Dir  string
	Port int
	bin  string
	cred *syscall.Credential // the user the server runs as when koff's tests run as root
	proc *process
}

// postgresBin is the directory of PostgreSQL's server programs: Debian
// keeps them out of PATH, in /usr/lib/postgresql/VERSION/bin.
func postgresBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Strings(dirs)
	for i := len(dirs) - 1; i >= 0; i-- {
		if strings.Contains(dirs[i], "/"+PostgresVersion+"/") {
			dirs = []string{dirs[i]}
			break
		}
	}
	if len(dirs) > 0 {
		if _, err := os.Stat(filepath.Join(dirs[0], "initdb")); err == nil {
			return dirs[0], nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no PostgreSQL server programs (initdb, postgres): apt-get install postgresql")
}

// MissingPostgres says what is missing to run the Debezium tests ("" when
// nothing is).
func MissingPostgres() string {
	if _, err := postgresBin(); err != nil {
		return err.Error()
	}
	if _, err := exec.LookPath("psql"); err != nil {
		return "no psql on PATH: apt-get install postgresql-client"
	}
	return ""
}

// StartPostgres creates a cluster in a new directory and starts it. The
// server refuses to run as root, so under root it runs as the postgres user
// the Debian package creates.
func StartPostgres(ctx context.Context) (pg *Postgres, err error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "koff-postgres-")
	if err != nil {
		return nil, err
	}
	pg = &Postgres{Dir: dir, bin: bin}
	defer func() {
		if err != nil {
			pg.Stop()
		}
	}()
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return pg, fmt.Errorf("running as root, PostgreSQL needs another user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		pg.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return pg, err
		}
	}
	ports, err := FreePorts(1)
	if err != nil {
		return pg, err
	}
	pg.Port = ports[0]
	data := filepath.Join(dir, "data")
	if out, err := pg.run(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"); err != nil {
		return pg, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	log := filepath.Join(dir, "postgres.log")
	f, err := os.Create(log)
	if err != nil {
		return pg, err
	}
	if pg.cred != nil {
		os.Chown(log, int(pg.cred.Uid), int(pg.cred.Gid))
	}
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data,
		"-c", "listen_addresses=127.0.0.1", "-c", "port="+strconv.Itoa(pg.Port),
		"-c", "unix_socket_directories="+dir,
		"-c", "wal_level=logical", "-c", "max_wal_senders=8", "-c", "max_replication_slots=8",
		"-c", "fsync=off", "-c", "shared_buffers=32MB")
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Credential: pg.cred}
	if err := cmd.Start(); err != nil {
		f.Close()
		return pg, fmt.Errorf("start postgres: %w", err)
	}
	p := &process{name: "postgres", log: log, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	pg.proc = p
	err = poll(ctx, fmt.Sprintf("PostgreSQL on 127.0.0.1:%d", pg.Port), p, func() error {
		_, err := pg.SQL(ctx, "SELECT 1")
		return err
	})
	return pg, err
}

func (pg *Postgres) run(ctx context.Context, prog string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Credential: pg.cred}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// SQL runs statements with psql as the superuser and returns the rows
// (unaligned, tuples only, one per line).
func (pg *Postgres) SQL(ctx context.Context, sql string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "psql", "-h", "127.0.0.1", "-p", strconv.Itoa(pg.Port), "-U", "postgres",
		"-d", "postgres", "-v", "ON_ERROR_STOP=1", "-X", "-A", "-t", "-q", "-c", sql)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=5")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("psql: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

// Stop ends the server (a fast shutdown) and removes its directory.
func (pg *Postgres) Stop() {
	if pg.proc != nil {
		pg.proc.stopBy(syscall.SIGINT, 15*time.Second)
	}
	os.RemoveAll(pg.Dir)
}

// Log is the end of the server's log, for a failed test.
func (pg *Postgres) Log(lines int) string {
	return tail(filepath.Join(pg.Dir, "postgres.log"), lines)
}
