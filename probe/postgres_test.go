package probe

import (
	"testing"
	"time"
)

// TestPostgresConfig: koff's PostgreSQL session is read-only, names itself,
// takes host, port and database from the connector and the credentials from
// the password file (quotes and backslashes intact), ignores PG*
// environment variables that would send it elsewhere, and uses libpq's
// sslmode=prefer (TLS, then plain text) unless database.sslmode says
// otherwise.
func TestPostgresConfig(t *testing.T) {
	t.Setenv("PGHOST", "elsewhere")
	t.Setenv("PGPORT", "1")
	t.Setenv("PGDATABASE", "other")
	t.Setenv("PGPASSWORD", "fromenv")
	t.Setenv("PGOPTIONS", "-c default_transaction_read_only=off")
	l := dbLogin{host: "db1.internal", port: "5433", database: "inv'entory", user: "mon", password: `it's a \secret`, connectTimeout: 3 * time.Second}
	cfg, err := postgresConfig(l, map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "db1.internal" || cfg.Port != 5433 || cfg.Database != "inv'entory" || cfg.User != "mon" || cfg.Password != `it's a \secret` {
		t.Errorf("connection: %s:%d/%s as %s with %q", cfg.Host, cfg.Port, cfg.Database, cfg.User, cfg.Password)
	}
	if cfg.RuntimeParams["default_transaction_read_only"] != "on" || cfg.RuntimeParams["application_name"] != "koff" || cfg.RuntimeParams["options"] != "" {
		t.Errorf("runtime params: %v", cfg.RuntimeParams)
	}
	if cfg.ConnectTimeout != 3*time.Second {
		t.Errorf("connect timeout %s", cfg.ConnectTimeout)
	}
	if cfg.TLSConfig == nil || len(cfg.Fallbacks) == 0 || cfg.Fallbacks[len(cfg.Fallbacks)-1].TLSConfig != nil {
		t.Errorf("sslmode=prefer: TLS %v, fallbacks %d (want TLS first, then plain text)", cfg.TLSConfig != nil, len(cfg.Fallbacks))
	}
	cfg, err = postgresConfig(l, map[string]string{"database.sslmode": "disable"})
	if err != nil || cfg.TLSConfig != nil {
		t.Errorf("database.sslmode=disable: %v, TLS %v", err, cfg != nil && cfg.TLSConfig != nil)
	}
	if _, err := postgresConfig(l, map[string]string{"database.sslmode": "sometimes"}); err == nil {
		t.Error("database.sslmode=sometimes was taken")
	}
}
