package connect

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clientCert makes a self-signed client certificate; it returns the PEM
// file names and the certificate (to trust it on the server).
func clientCert(t *testing.T) (certFile, keyFile string, cert *x509.Certificate) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "koff"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ = x509.ParseCertificate(der)
	pk, _ := x509.MarshalPKCS8PrivateKey(key)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem")
	writeTestFile(t, certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	writeTestFile(t, keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk}))
	return certFile, keyFile, cert
}

func TestMutualTLS(t *testing.T) {
	certFile, keyFile, cert := clientCert(t)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	srv := httptest.NewUnstartedServer(newFake())
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	ca := writeCA(t, srv)

	combined := filepath.Join(t.TempDir(), "both.pem")
	writeTestFile(t, combined, append(readTestFile(t, certFile), readTestFile(t, keyFile)...))
	for _, cfg := range []Config{
		{URL: srv.URL, CAFile: ca, CertFile: certFile, KeyFile: keyFile},
		{URL: srv.URL, CAFile: ca, CertFile: combined}, // the key in the same file
	} {
		if _, err := mustNew(t, cfg).ServerInfo(context.Background()); err != nil {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
	_, err := mustNew(t, Config{URL: srv.URL, CAFile: ca}).ServerInfo(context.Background())
	if err == nil || !strings.Contains(err.Error(), "TLS: Kafka Connect requires a client certificate (give --connect-cert and --connect-key)") {
		t.Errorf("without a certificate: %v", err)
	}
}

func TestBearerToken(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("Authorization")
		io.WriteString(w, `{"version":"3.9.0","commit":"x","kafka_cluster_id":"k"}`)
	}))
	defer srv.Close()
	if _, err := mustNew(t, Config{URL: srv.URL, Token: "  tok-123\n"}).ServerInfo(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got != "Bearer tok-123" {
		t.Errorf("Authorization %q", got)
	}
}

func TestClientCertErrors(t *testing.T) {
	certFile, keyFile, _ := clientCert(t)
	missing := filepath.Join(t.TempDir(), "nope.pem")
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{URL: "http://c:8083", CertFile: certFile, KeyFile: keyFile}, "--connect-cert: given, but --connect-url is http://"},
		{Config{URL: "https://c:8083", KeyFile: keyFile}, "--connect-key needs --connect-cert"},
		{Config{URL: "https://c:8083", CertFile: certFile}, "--connect-cert " + certFile + ": no usable private key in it; give --connect-key"},
		{Config{URL: "https://c:8083", CertFile: missing, KeyFile: keyFile}, "open " + missing + ": no such file or directory"},
		{Config{URL: "https://c:8083", User: "u", Password: "p", Token: "secret-token"}, "give a bearer token or basic auth"},
	}
	for _, tt := range tests {
		if s := fmt.Sprintf("%v %+v %#v", tt.cfg, tt.cfg, tt.cfg); strings.Contains(s, "secret-token") {
			t.Errorf("printing a Config shows the token: %s", s)
		}
		_, err := New(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "secret-token") || strings.Contains(err.Error(), "PRIVATE") {
			t.Errorf("%+v: err = %v, want %q", tt.cfg, err, tt.want)
		}
	}
}

func writeTestFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func readTestFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
