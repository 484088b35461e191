package connect

import (
	"context"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestNewValidates(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.txt")
	os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600)

	tests := []struct {
		name    string
		cfg     Config
		wantErr string // substring; "" = success
		wantURL string
	}{
		{"plain", Config{URL: "http://connect:8083"}, "", "http://connect:8083"},
		{"trailing slash", Config{URL: "http://connect:8083/"}, "", "http://connect:8083"},
		{"path prefix", Config{URL: "https://gw.example/connect/"}, "", "https://gw.example/connect"},
		{"userinfo redacted", Config{URL: "https://alice:s3cr3t@connect:8083"}, "", "https://alice:xxxxx@connect:8083"},
		{"user only", Config{URL: "http://alice@connect:8083"}, "", "http://alice@connect:8083"},
		{"empty", Config{URL: "  "}, "--connect-url: empty", ""},
		{"no scheme", Config{URL: "connect:8083"}, "--connect-url: connect:8083 has no scheme; use http://connect:8083 or https://connect:8083", ""},
		{"no scheme, IP address", Config{URL: "127.0.0.1:8083"}, "--connect-url: 127.0.0.1:8083 has no scheme; use http://127.0.0.1:8083 or https://127.0.0.1:8083", ""},
		{"no scheme, host only", Config{URL: "connect"}, "--connect-url: connect has no scheme", ""},
		{"no scheme with password", Config{URL: "alice:s3cr3t@connect:8083"}, "--connect-url:", ""},
		{"ftp", Config{URL: "ftp://connect"}, `--connect-url: scheme "ftp" is not http or https`, ""},
		{"no host", Config{URL: "http://:8083"}, "--connect-url: no host", ""},
		{"query", Config{URL: "http://connect:8083/?x=1"}, "--connect-url: must not have a query", ""},
		{"bad port", Config{URL: "http://connect:port"}, `--connect-url: invalid port ":port" after host`, ""},
		{"hash in password", Config{URL: "http://alice:s3#cr3t@connect:8083"}, "--connect-url: cannot parse it; percent-encode", ""},
		{"query in password", Config{URL: "http://alice:12?s3cr3t@connect:8083"}, "--connect-url: must not have a query", ""},
		{"encoded password", Config{URL: "http://alice:s3%23cr3t@connect:8083"}, "", "http://alice:xxxxx@connect:8083"},
		{"password without user", Config{URL: "http://connect:8083", Password: "s3cr3t"}, "--connect-password-file: a password needs a user", ""},
		{"missing CA", Config{URL: "https://connect:8083", CAFile: filepath.Join(dir, "nope.pem")}, "--connect-ca: open ", ""},
		{"CA not PEM", Config{URL: "https://connect:8083", CAFile: notPEM}, "--connect-ca: no PEM certificates in " + notPEM, ""},
		{"CA with http", Config{URL: "http://connect:8083", CAFile: notPEM}, "--connect-ca: given, but --connect-url is http://", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.cfg)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if c.URL() != tt.wantURL {
					t.Errorf("URL() = %q, want %q", c.URL(), tt.wantURL)
				}
				if c.Timeout() != DefaultTimeout {
					t.Errorf("Timeout() = %s, want %s", c.Timeout(), DefaultTimeout)
				}
				return
			}
			if err == nil {
				t.Fatalf("New succeeded, want error containing %q", tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), ":s3") || strings.Contains(err.Error(), "cr3t") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error leaks the password or spans lines: %q", err)
			}
		})
	}
}

func TestPathEscapingAndHeaders(t *testing.T) {
	f := newFake()
	f.connectors["a b/c"] = &fakeConnector{typ: "source", state: StateRunning, config: map[string]string{"name": "a b/c"}}
	srv := f.start(t)
	c := mustNew(t, Config{URL: srv.URL + "/"})

	st, err := c.Status(context.Background(), "a b/c")
	if err != nil {
		t.Fatal(err)
	}
	if st.Name != "a b/c" {
		t.Errorf("status name %q", st.Name)
	}
	method, uri, accept, ctype, _ := f.last()
	if method != "GET" || uri != "/connectors/a%20b%2Fc/status" {
		t.Errorf("sent %s %s", method, uri)
	}
	if accept != "application/json" || ctype != "" {
		t.Errorf("Accept %q, Content-Type %q", accept, ctype)
	}
}

func TestBasicAuth(t *testing.T) {
	const secret = "pa55-w0rd!"
	f := newFake()
	f.user, f.pass = "alice", secret
	srv := f.start(t)
	host := strings.TrimPrefix(srv.URL, "http://")

	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"userinfo", Config{URL: "http://alice:" + secret + "@" + host}, ""},
		{"flags", Config{URL: srv.URL, User: "alice", Password: secret}, ""},
		{"flags win over userinfo", Config{URL: "http://bob:wrong@" + host, User: "alice", Password: secret}, ""},
		{"password file with URL user", Config{URL: "http://alice@" + host, Password: secret}, ""},
		{"none", Config{URL: srv.URL}, "GET /: HTTP 401 Unauthorized: User cannot access the resource."},
		{"wrong password", Config{URL: "http://alice:" + secret + "x@" + host}, "GET /: HTTP 401 Unauthorized: User cannot access the resource."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustNew(t, tt.cfg)
			if strings.Contains(c.URL(), secret) {
				t.Errorf("URL() leaks the password: %s", c.URL())
			}
			info, err := c.ServerInfo(context.Background())
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if info.Version != "3.7.0" {
					t.Errorf("version %q", info.Version)
				}
				return
			}
			var ce *Error
			if !errors.As(err, &ce) || ce.Status != 401 || ce.Code != 0 {
				t.Fatalf("err = %#v, want *Error 401", err)
			}
			if err.Error() != "Connect REST: "+tt.wantErr {
				t.Errorf("err = %q, want %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error leaks the password: %q", err)
			}
		})
	}

	// An unreachable server: the error names the URL, never the password.
	srv.Close()
	c := mustNew(t, Config{URL: "http://alice:" + secret + "@" + host})
	_, err := c.ServerInfo(context.Background())
	want := "cannot reach Kafka Connect at http://alice:xxxxx@" + host + ": connection refused"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func writeCA(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "ca.pem")
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestTLS(t *testing.T) {
	f := newFake()
	srv := httptest.NewUnstartedServer(f)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failing handshake below is expected
	srv.StartTLS()
	defer srv.Close()
	ca := writeCA(t, srv)

	c := mustNew(t, Config{URL: srv.URL, CAFile: ca})
	info, err := c.ServerInfo(context.Background())
	if err != nil {
		t.Fatalf("with CA: %v", err)
	}
	if info.KafkaClusterID != "kc-1" {
		t.Errorf("info %+v", info)
	}

	c = mustNew(t, Config{URL: srv.URL})
	_, err = c.ServerInfo(context.Background())
	want := "cannot reach Kafka Connect at " + srv.URL + ": TLS certificate signed by unknown authority"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("without CA: err = %v, want prefix %q", err, want)
	}
	var re *ReachError
	if !errors.As(err, &re) {
		t.Errorf("without CA: %T is not *ReachError", err)
	}

	// https:// against a plain-HTTP server.
	plain := f.start(t)
	c = mustNew(t, Config{URL: strings.Replace(plain.URL, "http://", "https://", 1), CAFile: ca})
	_, err = c.ServerInfo(context.Background())
	if err == nil || !strings.Contains(err.Error(), "(try http:// instead of https://)") {
		t.Errorf("https to http: err = %v", err)
	}
}

func TestTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()

	c := mustNew(t, Config{URL: srv.URL, Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := c.Offsets(context.Background(), "slow")
	elapsed := time.Since(start)
	want := "cannot reach Kafka Connect at " + srv.URL + ": timed out after 200ms"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.Is(err, DeadlineExceeded) = false for %v", err)
	}
	if elapsed > time.Second {
		t.Errorf("took %s for a 200ms timeout", elapsed)
	}

	// The caller's own cancellation is not reported as our timeout.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = c.Status(ctx, "slow")
	if !errors.Is(err, context.Canceled) || !strings.HasSuffix(err.Error(), ": request cancelled") {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := mustNew(t, Config{URL: "http://" + addr})
	err = c.Stop(context.Background(), "x")
	want := "cannot reach Kafka Connect at http://" + addr + ": connection refused"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestBodyLimit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(strings.Repeat(" ", 1<<20))
		for i := 0; i <= maxBody>>20; i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c := mustNew(t, Config{URL: srv.URL})
	_, err := c.RawOffsets(context.Background(), "big")
	if err == nil || err.Error() != "GET /connectors/big/offsets: response larger than 16 MiB" {
		t.Errorf("err = %v", err)
	}
}
