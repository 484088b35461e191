package main

// End-to-end tests of the metrics endpoint: koff metrics on the demo
// cluster scraped by a real Prometheus, which evaluates the shipped alert
// rules; --metrics-listen on the dashboard and on koff serve.

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// startKoff runs koff with args and waits for a stdout line holding want.
func startKoff(t *testing.T, want string, args ...string) {
	t.Helper()
	cmd := exec.Command(koffBin, args...)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), want) {
				ready <- sc.Text()
				break
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatalf("koff %s printed no %q within 30s", args[0], want)
	}
}

// scrapeUntil scrapes url until ok accepts the body.
func scrapeUntil(t *testing.T, url, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	body := ""
	for {
		if resp, err := http.Get(url); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if body = string(b); resp.StatusCode == 200 && ok(body) {
				return body
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s shows no %s within 60s; last scrape:\n%s", url, what, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// flushStatus finds a connector's flush status in a scrape ("" if none).
func flushStatus(body, connector string) string {
	re := regexp.MustCompile(`(?m)^koff_connector_flush_status\{connector="` + regexp.QuoteMeta(connector) + `",offsets_topic="connect-offsets",status="([a-z]+)"\} 1$`)
	if m := re.FindStringSubmatch(body); m != nil {
		return m[1]
	}
	return ""
}

type promAlert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	State       string            `json:"state"`
}

func promAlerts(t *testing.T, base string) []promAlert {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/alerts")
	if err != nil {
		return nil // not up yet
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Data   struct {
			Alerts []promAlert `json:"alerts"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "success" {
		t.Fatalf("prometheus /api/v1/alerts: %v %q", err, r.Status)
	}
	return r.Data.Alerts
}

// forClause finds the rules' for: durations, cut to a few seconds for a
// Prometheus evaluating every second.
var forClause = regexp.MustCompile(`(?m)^(\s+for:) \S+$`)

// A real Prometheus scrapes koff metrics on the demo cluster, evaluates
// the shipped rules, and fires the stalled-flush alert for jdbc-legacy,
// the demo's connector that stops flushing, and not for jdbc-shop or
// mm2-primary, which flush; and the resume alert for clickstream-archive,
// the demo's sink committed below its log start, and not for the sinks
// that resume. promtool accepts the exposition.
func TestPrometheusFiresStalledFlushForTheDemosStalledConnector(t *testing.T) {
	promBin := needTool(t, "prometheus")
	promtool := needTool(t, "promtool")
	dir := t.TempDir()
	connect := freeAddr(t)
	// Flushes every 2s: a flushing connector would have to miss three
	// (6s) and then 3s more of evaluations to raise even a pending alert.
	kafka, _ := startDemoCluster(t, "--connect-listen", connect, "--flush-interval", "2s", "--stall-after", "5s")
	metricsAddr := freeAddr(t)
	startKoff(t, "serving http://"+metricsAddr+"/metrics", "metrics", "--web.listen-address", metricsAddr, "-b", kafka,
		"--connect-url", "http://"+connect, "--flush-interval", "2s", "--refresh", "500ms",
		"--audit-log", filepath.Join(dir, "audit.jsonl"), "--log-file", filepath.Join(dir, "koff.log"))

	url := "http://" + metricsAddr + "/metrics"
	body := scrapeUntil(t, url, "jdbc-shop flushing", func(b string) bool {
		return strings.Contains(b, `koff_tailer_state{state="live"} 1`) && flushStatus(b, "jdbc-shop") == "ok"
	})
	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = strings.NewReader(body)
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}

	rules, err := os.ReadFile("alerts/koff.rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	rules = forClause.ReplaceAll(rules, []byte("$1 3s"))
	os.WriteFile(filepath.Join(dir, "rules.yml"), rules, 0o644)
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [rules.yml]
scrape_configs:
  - job_name: koff
    static_configs:
      - targets: [%q]
`, metricsAddr)
	os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o644)
	promAddr := freeAddr(t)
	var promOut bytes.Buffer
	prom := exec.Command(promBin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+promAddr)
	prom.Stdout, prom.Stderr = &promOut, &promOut
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { prom.Process.Kill(); prom.Wait() })

	base := "http://" + promAddr
	deadline := time.Now().Add(90 * time.Second)
	for {
		var legacy, healthy []promAlert
		for _, a := range promAlerts(t, base) {
			if a.Labels["alertname"] != "KoffConnectorStalled" {
				continue
			}
			switch a.Labels["connector"] {
			case "jdbc-legacy":
				legacy = append(legacy, a)
			case "jdbc-shop", "mm2-primary":
				healthy = append(healthy, a)
			}
		}
		if len(healthy) > 0 {
			t.Fatalf("KoffConnectorStalled for a connector that flushes: %+v", healthy)
		}
		if len(legacy) == 1 && legacy[0].State == "firing" {
			// One alert per connector, whatever its offsets topics.
			if legacy[0].Labels["severity"] != "critical" || legacy[0].Labels["job"] != "koff" || legacy[0].Labels["offsets_topic"] != "" {
				t.Errorf("the alert's labels: %v", legacy[0].Labels)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("KoffConnectorStalled did not fire for jdbc-legacy within 90s (alerts %+v); koff says jdbc-legacy %q; prometheus:\n%s",
				legacy, flushStatus(scrapeUntil(t, url, "a scrape", func(string) bool { return true }), "jdbc-legacy"), promOut.String())
		}
		time.Sleep(500 * time.Millisecond)
	}
	// The demo's clickstream-archive sink is committed below its topic's
	// log start: KoffConnectorWillNotResume fires for it (state gap), and
	// for no sink that resumes; koff check says the same.
	for {
		var gap, healthy []promAlert
		for _, a := range promAlerts(t, base) {
			if a.Labels["alertname"] != "KoffConnectorWillNotResume" {
				continue
			}
			switch a.Labels["connector"] {
			case "clickstream-archive":
				gap = append(gap, a)
			case "es-search", "s3-archive":
				healthy = append(healthy, a)
			}
		}
		if len(healthy) > 0 {
			t.Fatalf("KoffConnectorWillNotResume for a sink that resumes: %+v", healthy)
		}
		if len(gap) == 1 && gap[0].State == "firing" {
			if gap[0].Labels["state"] != "gap" || gap[0].Labels["severity"] != "critical" || !strings.Contains(gap[0].Annotations["description"], "`koff check clickstream-archive`") {
				t.Errorf("the alert: %+v", gap[0])
			}
			break
		}
		if time.Now().After(deadline.Add(30 * time.Second)) {
			t.Fatalf("KoffConnectorWillNotResume did not fire for clickstream-archive (alerts %+v); prometheus:\n%s", gap, promOut.String())
		}
		time.Sleep(500 * time.Millisecond)
	}
	if out, err := exec.Command(koffBin, "check", "clickstream-archive", "-b", kafka, "--connect-url", "http://"+connect).CombinedOutput(); !strings.Contains(string(out), "gap") {
		t.Errorf("koff check clickstream-archive while the alert fires: %v\n%s", err, out)
	}
	// What Prometheus alerts on is what koff status prints.
	out, _ := exec.Command(koffBin, "status", "jdbc-legacy", "jdbc-shop", "-b", kafka, "--connect-url", "http://"+connect,
		"--flush-interval", "2s", "-o", "json").Output()
	var st struct {
		Connectors []struct {
			Name  string `json:"name"`
			Flush *struct {
				Status string `json:"status"`
			} `json:"flush"`
		} `json:"connectors"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatalf("koff status -o json: %v\n%s", err, out)
	}
	said := ""
	for _, c := range st.Connectors {
		if c.Name == "jdbc-legacy" && c.Flush != nil {
			said = c.Flush.Status
		}
	}
	if said != "stalled" {
		t.Errorf("koff status says jdbc-legacy is %q while the alert fires:\n%s", said, out)
	}
}

// --metrics-listen serves the same metrics beside the dashboard and koff
// serve, from the Store they show.
func TestMetricsListenOnDashboardAndServe(t *testing.T) {
	dir := t.TempDir()
	t.Run("dashboard", func(t *testing.T) {
		addr := freeAddr(t)
		s := startTmux(t, 100, 30, fmt.Sprintf("%s --demo --flush-interval 1s --metrics-listen %s --audit-log %s; sleep 30",
			koffBin, addr, filepath.Join(dir, "audit-dash.jsonl")))
		s.waitFor("the dashboard", 20*time.Second, func(scr string) bool { return strings.Contains(scr, "jdbc-legacy") })
		scrapeUntil(t, "http://"+addr+"/metrics", "jdbc-shop flushing", func(b string) bool {
			return strings.Contains(b, `koff_tailer_state{state="live"} 1`) && flushStatus(b, "jdbc-shop") == "ok" &&
				strings.Contains(b, `koff_sink_lag_records{connector="es-search"`)
		})
	})
	t.Run("serve", func(t *testing.T) {
		pub, _, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := ssh.NewPublicKey(pub)
		if err != nil {
			t.Fatal(err)
		}
		keys := filepath.Join(dir, "ops")
		os.WriteFile(keys, ssh.MarshalAuthorizedKey(sp), 0o600)
		addr, sshAddr := freeAddr(t), freeAddr(t)
		// It says where the metrics are, beside where the SSH server listens.
		startKoff(t, "koff serve: Prometheus metrics at http://"+addr+"/metrics", "serve", "--demo", "--flush-interval", "1s", "--ssh-listen", sshAddr, "--authorized-keys", keys,
			"--host-key", filepath.Join(dir, "host"), "--metrics-listen", addr, "--audit-log", filepath.Join(dir, "audit-serve.jsonl"),
			"--log-file", filepath.Join(dir, "serve.log"))
		scrapeUntil(t, "http://"+addr+"/metrics", "jdbc-shop flushing", func(b string) bool {
			return strings.Contains(b, `koff_tailer_state{state="live"} 1`) && flushStatus(b, "jdbc-shop") == "ok"
		})
	})
}
