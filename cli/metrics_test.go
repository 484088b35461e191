package cli

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"koff/edit/audit"
	"koff/edit/plan"
	"koff/internal/sshtest"

	"koff/metrics"
)

func freeLoopback(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// scrapeFor scrapes url until every line in want is in the body.
func scrapeFor(t *testing.T, url string, done <-chan int, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		body := ""
		if resp, err := http.Get(url); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
		}
		missing := ""
		for _, w := range want {
			if !strings.Contains(body, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return body
		}
		select {
		case code := <-done:
			t.Fatalf("koff metrics exited %d", code)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in 30s of scrapes; last:\n%s", missing, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// koff_edits_total counts koff's edits of this cluster by outcome from
// the audit log, whichever koff process made them; another cluster's
// edits are not counted.
func TestMetricsCountEditsOfThisClusterByOutcome(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["src",{"server":"db"}]`, `{"lsn":1}`})
	auditLog := filepath.Join(t.TempDir(), "audit.jsonl")
	listen := freeLoopback(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var out, errb syncBuffer
	go func() {
		done <- Main([]string{"metrics", "--listen", listen, "-b", addr, "--audit-log", auditLog, "--refresh", "200ms"},
			Env{Context: ctx, Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("koff metrics exited %d on SIGTERM's context: %s", code, errb.String())
		}
	}()
	url := "http://" + listen + "/metrics"
	body := scrapeFor(t, url, done, `koff_connector_source_partitions{connector="src",offsets_topic="connect-offsets"} 1`)
	if strings.Contains(body, "koff_edits_total") {
		t.Fatalf("edits counted before any:\n%s", body)
	}
	if !strings.Contains(out.String(), "koff metrics: serving http://"+listen+"/metrics") {
		t.Errorf("stdout %q", out.String())
	}
	// Another cluster's edit in the same audit log.
	if err := (&audit.Log{Path: auditLog}).Append(audit.Entry{ID: "x1", Time: time.Now(), Connector: "src", Result: audit.ResultFailed, Cluster: "another-cluster"}); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := koff(t, "set", "src", "-b", addr, "--partition", `{"server":"db"}`, "--offset", `{"lsn":2}`, "--yes", "--audit-log", auditLog); code != 0 {
		t.Fatalf("koff set: exit %d %s", code, errs)
	}
	body = scrapeFor(t, url, done, `koff_edits_total{kind="set",result="verified"} 1`)
	if strings.Contains(body, `result="failed"`) {
		t.Errorf("another cluster's edit counted:\n%s", body)
	}
}

// A port in use, a negative limit, or --metrics-listen on koff metrics
// fail at once, in one line.
func TestMetricsFlagsFailAtOnce(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"metrics", "--listen", l.Addr().String(), "-b", "127.0.0.1:1"}, ExitFailed, "koff: --listen: listen tcp " + l.Addr().String() + ": bind: address already in use\n"},
		{[]string{"metrics", "--web.listen-address", l.Addr().String(), "-b", "127.0.0.1:1"}, ExitFailed, "koff: --web.listen-address: listen tcp " + l.Addr().String() + ": bind: address already in use\n"},
		{[]string{"metrics", "--metrics-sink-partitions", "-1", "-b", "127.0.0.1:1"}, ExitUsage, "koff: --metrics-sink-partitions must be 0 to 20000 (past it a scrape nears Prometheus' 10s timeout), got -1\n"},
		{[]string{"metrics", "--metrics-sink-partitions", "200000", "-b", "127.0.0.1:1"}, ExitUsage, "koff: --metrics-sink-partitions must be 0 to 20000 (past it a scrape nears Prometheus' 10s timeout), got 200000\n"},
		{[]string{"metrics", "--metrics-connectors", "0", "-b", "127.0.0.1:1"}, ExitUsage, "koff: --metrics-connectors must be at least 1, got 0\n"},
		{[]string{"metrics", "--web.config.file", "/nonexistent/web.yml", "-b", "127.0.0.1:1"}, ExitFailed, "koff: --web.config.file: "},
		{[]string{"metrics", "--web.telemetry-path", "metrics", "-b", "127.0.0.1:1"}, ExitUsage, "koff: --web.telemetry-path must be a path below /, like /metrics, got \"metrics\"\n"},
		{[]string{"metrics", "--metrics-listen", ":10186", "-b", "127.0.0.1:1"}, ExitUsage, "koff: koff metrics listens on --web.listen-address; --metrics-listen is for the dashboard and koff serve\n"},
		{[]string{"metrics"}, ExitUsage, "koff: no Kafka bootstrap servers"},
		{[]string{"serve", "--demo", "--authorized-keys", "/nonexistent", "--metrics-sink-partitions", "-2"}, ExitUsage, "koff: --metrics-sink-partitions must be 0 to 20000 (past it a scrape nears Prometheus' 10s timeout), got -2\n"},
	} {
		_, errs, code := koff(t, tc.args...)
		if code != tc.code || !strings.HasPrefix(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("koff %s: exit %d %q, want %d %q", strings.Join(tc.args, " "), code, errs, tc.code, tc.want)
		}
	}
}

// A stop and a resume are counted beside offset edits, by kind.
func TestAuditCountsStopAndResumeByKind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log := &audit.Log{Path: path}
	for i, en := range []audit.Entry{
		{ID: "s1", Kind: plan.KindStop, Connector: "src", Result: audit.ResultDone},
		{ID: "r1", Kind: plan.KindResume, Connector: "src", Result: audit.ResultDone},
		{ID: "r2", Kind: plan.KindResume, Connector: "src", Result: audit.ResultRefused},
		{ID: "e1", Kind: plan.KindSet, Connector: "src", Result: audit.ResultVerified, Cluster: "c1"},
	} {
		en.Time = time.Now().Add(time.Duration(i) * time.Second)
		if err := log.Append(en); err != nil {
			t.Fatal(err)
		}
	}
	got := (&auditCounts{log: log, cluster: func() string { return "c1" }}).counts()
	want := map[metrics.EditCount]int{{Kind: "stop", Result: "done"}: 1, {Kind: "resume", Result: "done"}: 1, {Kind: "resume", Result: "refused"}: 1, {Kind: "set", Result: "verified"}: 1}
	if len(got) != len(want) {
		t.Fatalf("counts %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%v: %d, want %d (all: %v)", k, got[k], n, got)
		}
	}
}

// The endpoint's web settings without --metrics-listen guard nothing:
// koff serve (and the dashboard) refuse them in one line rather than serve
// with no endpoint at all.
func TestWebSettingsWithoutMetricsListenAreRefused(t *testing.T) {
	dir := t.TempDir()
	_, line := sshtest.Key(t, "op")
	ops := sshtest.WriteFile(t, dir, "ops", line+"\n")
	web := sshtest.WriteFile(t, dir, "web.yml", "basic_auth_users:\n  prom: $2y$10$abcdefghijklmnopqrstuu5Wq8bX1yqZr8tQ0JvX9QY0QY0QY0QY0\n")
	for _, extra := range [][]string{{"--web.config.file", web}, {"--web.telemetry-path", "/m"}} {
		args := append([]string{"serve", "--demo", "--ssh-listen", "127.0.0.1:0", "--authorized-keys", ops, "--host-key", filepath.Join(dir, "host")}, extra...)
		_, errs, code := koff(t, args...)
		want := "koff: --web.config.file and --web.telemetry-path set up --metrics-listen's endpoint: give --metrics-listen ADDR too\n"
		if code != ExitUsage || errs != want {
			t.Errorf("koff %s: exit %d %q, want %d %q", strings.Join(args, " "), code, errs, ExitUsage, want)
		}
	}
}
