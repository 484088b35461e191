package main

// The metrics endpoint behind exporter-toolkit's web config: a real
// Prometheus scrapes koff metrics over TLS with basic auth.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// webTLS is a CA, a server certificate for 127.0.0.1 signed by it, and a
// web config with TLS and one basic-auth user, under dir.
type webTLS struct {
	ca, config string
	pool       *x509.CertPool
}

func writeWebConfig(t *testing.T, dir, user, password string) webTLS {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "koff test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "koff"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	w := webTLS{ca: filepath.Join(dir, "ca.crt"), config: filepath.Join(dir, "web.yml"), pool: x509.NewCertPool()}
	w.pool.AddCert(caCert)
	os.WriteFile(w.ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644)
	os.WriteFile(filepath.Join(dir, "koff.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(filepath.Join(dir, "koff.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(w.config, fmt.Appendf(nil, "tls_server_config:\n  cert_file: %s\n  key_file: %s\nbasic_auth_users:\n  %s: %s\n",
		filepath.Join(dir, "koff.crt"), filepath.Join(dir, "koff.key"), user, hash), 0o600)
	return w
}

// get scrapes url over TLS (trusting the test CA) as user:password.
func (w webTLS) get(t *testing.T, url, user, password string) (int, string) {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: w.pool}}}
	req, _ := http.NewRequest("GET", url, nil)
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A real Prometheus scrapes koff metrics over TLS with basic auth (a
// bcrypt hash in --web.config.file): its target is up with koff's series.
// A wrong password, no password, or plain HTTP gets no data.
func TestPrometheusScrapesKoffOverTLSWithBasicAuth(t *testing.T) {
	promBin := needTool(t, "prometheus")
	dir := t.TempDir()
	web := writeWebConfig(t, dir, "prometheus", "s3cret-scrape")
	kafka, _ := startDemoCluster(t, "--flush-interval", "1s")
	addr := freeAddr(t)
	url := "https://" + addr + "/koff-metrics"
	startKoff(t, "koff metrics: serving "+url, "metrics", "--web.listen-address", addr, "--web.config.file", web.config,
		"--web.telemetry-path", "/koff-metrics", "-b", kafka, "--audit-log", filepath.Join(dir, "audit.jsonl"))

	if code, body := web.get(t, url, "prometheus", "wrong"); code != 401 || strings.Contains(body, "koff_") {
		t.Errorf("wrong password: %d %q, want 401 and no data", code, body)
	}
	if code, body := web.get(t, url, "", ""); code != 401 || strings.Contains(body, "koff_") {
		t.Errorf("no password: %d %q, want 401 and no data", code, body)
	}
	if resp, err := http.Get("http://" + addr + "/koff-metrics"); err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), "koff_") {
			t.Errorf("plain HTTP served metrics: %d", resp.StatusCode)
		}
	}
	if code, body := web.get(t, url, "prometheus", "s3cret-scrape"); code != 200 || !strings.Contains(body, "koff_build_info{") {
		t.Fatalf("the right password: %d\n%.500s", code, body)
	}

	os.WriteFile(filepath.Join(dir, "password"), []byte("s3cret-scrape"), 0o600)
	os.WriteFile(filepath.Join(dir, "wrong"), []byte("wrong"), 0o600)
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
scrape_configs:
  - job_name: koff
    scheme: https
    metrics_path: /koff-metrics
    tls_config: {ca_file: %[1]q}
    basic_auth: {username: prometheus, password_file: %[2]q}
    static_configs:
      - targets: [%[4]q]
  - job_name: intruder
    scheme: https
    metrics_path: /koff-metrics
    tls_config: {ca_file: %[1]q}
    basic_auth: {username: prometheus, password_file: %[3]q}
    static_configs:
      - targets: [%[4]q]
`, web.ca, filepath.Join(dir, "password"), filepath.Join(dir, "wrong"), addr)
	os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o644)
	promAddr := freeAddr(t)
	var promOut syncWriter
	prom := exec.Command(promBin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+promAddr)
	prom.Stdout, prom.Stderr = &promOut, &promOut
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { prom.Process.Kill(); prom.Wait() })

	deadline := time.Now().Add(60 * time.Second)
	for {
		koffUp, intruder := promQuery(t, promAddr, `up{job="koff"}`), promQuery(t, promAddr, `up{job="intruder"}`)
		series := promQuery(t, promAddr, `count({job="koff",__name__=~"koff_.+"})`)
		leaked := promQuery(t, promAddr, `count({job="intruder",__name__=~"koff_.+"})`)
		if leaked != "" {
			t.Fatalf("a scrape with the wrong password got %s koff series", leaked)
		}
		if koffUp == "1" && intruder == "0" && series != "" && series != "0" {
			t.Logf("Prometheus scraped %s koff series over TLS", series)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60s: up{job=koff} %q, up{job=intruder} %q, koff series %q; prometheus:\n%s", koffUp, intruder, series, promOut.String())
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// promQuery is an instant query's single value ("" for none).
func promQuery(t *testing.T, addr, q string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/api/v1/query?query=" + neturl.QueryEscape(q))
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if json.NewDecoder(resp.Body).Decode(&r) != nil || len(r.Data.Result) == 0 {
		return ""
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	return s
}

// syncWriter is a buffer a child process writes while the test reads it.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
