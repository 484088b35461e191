package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"koff/model/resume"
)

// pgSSL are the connector's TLS settings koff connects with, as libpq
// names them (Debezium passes database.sslmode and its files to the JDBC
// driver the same way); sslmode defaults to prefer, as libpq's does.
var pgSSL = []string{"sslmode", "sslrootcert", "sslcert", "sslkey"}

// postgresConfig is a pgx configuration for a read-only session: the
// connector's host, port, database and TLS settings, the operator's
// credentials, nothing from PG* environment variables or ~/.pgpass.
func postgresConfig(l dbLogin, config map[string]string) (*pgx.ConnConfig, error) {
	quote := func(s string) string {
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
	}
	kv := []string{
		"host=" + quote(l.host), "port=" + quote(l.port), "dbname=" + quote(l.database),
		"user=" + quote(l.user), "password=" + quote(l.password),
		"connect_timeout=" + strconv.Itoa(max(1, int(l.connectTimeout.Seconds()))),
		"application_name=koff", "default_transaction_read_only=on",
		"sslmode=" + quote(dbOr(strings.TrimSpace(config["database.sslmode"]), "prefer")),
	}
	for _, k := range pgSSL[1:] {
		if v := strings.TrimSpace(config["database."+k]); v != "" {
			kv = append(kv, k+"="+quote(v))
		}
	}
	cfg, err := pgx.ParseConfig(strings.Join(kv, " "))
	if err != nil {
		return nil, fmt.Errorf("connection settings: %v", err)
	}
	// The password is set, so pgx reads no PGPASSFILE; sslmode=prefer's
	// plain-text fallback stays in cfg.Fallbacks.
	cfg.ConnectTimeout = l.connectTimeout
	// PGOPTIONS could turn the read-only session off ("-c …").
	delete(cfg.RuntimeParams, "options")
	return cfg, nil
}

// postgresFacts reads the connector's replication slot and the server's
// WAL position.
func postgresFacts(ctx context.Context, l dbLogin, config map[string]string, slot string) (resume.PGFacts, error) {
	var f resume.PGFacts
	cfg, err := postgresConfig(l, config)
	if err != nil {
		return f, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		// sslmode=prefer tries twice, with TLS and without: the last
		// attempt's error says it, without the address again.
		var ce *pgconn.ConnectError
		if errors.As(err, &ce) && ce.Unwrap() != nil {
			msg := ce.Unwrap().Error()
			msg = msg[strings.LastIndexByte(msg, '\n')+1:]
			if _, after, ok := strings.Cut(msg, "): "); ok {
				msg = after
			}
			return f, fmt.Errorf("as %s: %s", l.user, msg)
		}
		return f, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// The slot's row as JSON: wal_status only exists from PostgreSQL 13 on.
	var row []byte
	err = conn.QueryRow(ctx, "SELECT to_jsonb(s)::text FROM pg_replication_slots s WHERE slot_name = $1", slot).Scan(&row)
	switch {
	case err == pgx.ErrNoRows:
	case err != nil:
		return f, fmt.Errorf("pg_replication_slots: %v", err)
	default:
		var r struct {
			Plugin    string  `json:"plugin"`
			Database  string  `json:"database"`
			Active    bool    `json:"active"`
			WALStatus string  `json:"wal_status"`
			Restart   *string `json:"restart_lsn"`
			Confirmed *string `json:"confirmed_flush_lsn"`
		}
		if err := json.Unmarshal(row, &r); err != nil {
			return f, fmt.Errorf("pg_replication_slots: %v", err)
		}
		f.Slot = &resume.PGSlot{Name: slot, Plugin: r.Plugin, Database: r.Database, Active: r.Active, WALStatus: r.WALStatus}
		for _, x := range []struct {
			text *string
			lsn  *uint64
		}{{r.Restart, &f.Slot.RestartLSN}, {r.Confirmed, &f.Slot.ConfirmedFlushLSN}} {
			if x.text != nil {
				if *x.lsn, err = resume.ParseLSN(*x.text); err != nil {
					return f, fmt.Errorf("pg_replication_slots: %v", err)
				}
			}
		}
	}
	var current string
	if err := conn.QueryRow(ctx, "SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text").Scan(&current); err != nil {
		return f, fmt.Errorf("pg_current_wal_lsn(): %v", err)
	}
	if f.CurrentLSN, err = resume.ParseLSN(current); err != nil {
		return f, err
	}
	return f, nil
}
