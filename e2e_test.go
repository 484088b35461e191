package main

// End-to-end tests of the built binary: the demo cluster with get, tail and
// kcat against it, and the dashboard under tmux.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"koff/internal/testhome"
)

var koffBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "koff-e2e")
	if err != nil {
		panic(err)
	}
	koffBin = filepath.Join(dir, "koff")
	if out, err := exec.Command("go", "build", "-o", koffBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build koff: %v\n%s", err, out)
		os.Exit(1)
	}
	code := testhome.Main(m) // the binary's runs get the test home too
	os.RemoveAll(dir)
	os.Exit(code)
}

func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required under CI=true: %v", name, err)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startDemoCluster runs `koff demo-cluster` and waits for its banner.
func startDemoCluster(t *testing.T, extra ...string) (string, *exec.Cmd) {
	t.Helper()
	addr := freeAddr(t)
	// Its own REST port too: a demo on the default 127.0.0.1:8083 must not make it fail.
	cmd := exec.Command(koffBin, append([]string{"demo-cluster", "--kafka-listen", addr, "--connect-listen", freeAddr(t)}, extra...)...)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "kafka:") && strings.Contains(sc.Text(), addr) {
				close(ready)
				io.Copy(io.Discard, stdout)
				return
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("demo-cluster did not print its banner within 30s")
	}
	return addr, cmd
}

// The demo's connectors that exist in Connect; offsets without REST are
// those of the sources and of sinks whose group is connect-<name>.
var (
	demoConnectors  = []string{"debezium-inventory", "es-search", "file-logs", "jdbc-billing", "jdbc-crm", "jdbc-legacy", "jdbc-shop", "mm2-primary", "s3-archive"}
	withOffsets     = []string{"debezium-inventory", "file-logs", "jdbc-billing", "jdbc-crm", "jdbc-legacy", "jdbc-old-orders", "jdbc-shop", "mm2-primary"}
	sourcesInTopics = []string{"debezium-inventory", "file-logs", "jdbc-billing", "jdbc-crm", "jdbc-legacy", "jdbc-shop", "mm2-primary"}
)

func TestDemoClusterServesGetTailAndKcat(t *testing.T) {
	addr, demo := startDemoCluster(t, "--flush-interval", "500ms")

	out, err := exec.Command(koffBin, "get", "-b", addr, "-o", "json").Output()
	if err != nil {
		t.Fatalf("koff get: %v", err)
	}
	var all map[string]struct {
		Offsets []struct {
			Partition json.RawMessage `json:"partition"`
			Offset    json.RawMessage `json:"offset"`
		} `json:"offsets"`
	}
	if err := json.Unmarshal(out, &all); err != nil {
		t.Fatalf("koff get -o json is not JSON: %v\n%s", err, out)
	}
	for _, c := range withOffsets {
		if len(all[c].Offsets) == 0 {
			t.Errorf("connector %s has no offsets in %s", c, out)
		}
	}
	// A sink is listed by its connect-<name> group, even before its first commit.
	if _, ok := all["s3-archive"]; !ok {
		t.Errorf("the s3-archive sink is missing from %s", out)
	}

	// tail prints new changes within a few flush intervals.
	tail := exec.Command(koffBin, "tail", "-b", addr, "-o", "jsonl", "mm2-primary")
	stdout, _ := tail.StdoutPipe()
	if err := tail.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case l := <-lines:
		var change struct {
			Connector string          `json:"connector"`
			Offset    json.RawMessage `json:"offset"`
			Topic     string          `json:"topic"`
		}
		if err := json.Unmarshal([]byte(l), &change); err != nil || change.Connector != "mm2-primary" || change.Topic != "connect-offsets" {
			t.Errorf("tail line %q: %v", l, err)
		}
	case <-time.After(15 * time.Second):
		t.Error("koff tail printed nothing within 15s")
	}
	tail.Process.Signal(syscall.SIGINT)
	if err := tail.Wait(); err != nil {
		t.Errorf("tail after SIGINT: %v", err)
	}

	// kcat, an independent client, sees the same topic.
	kcat := needTool(t, "kcat")
	meta, err := exec.Command(kcat, "-b", addr, "-L", "-t", "connect-offsets").CombinedOutput()
	if err != nil || !strings.Contains(string(meta), "with 25 partitions") {
		t.Errorf("kcat -L: %v\n%s", err, meta)
	}
	recs, err := exec.Command(kcat, "-b", addr, "-C", "-t", "connect-offsets", "-e", "-q", "-f", "%k\n").Output()
	if err != nil {
		t.Errorf("kcat -C: %v", err)
	}
	for _, c := range sourcesInTopics {
		if !strings.Contains(string(recs), `["`+c+`",`) {
			t.Errorf("kcat did not read any key of %s", c)
		}
	}

	demo.Process.Signal(syscall.SIGINT)
	done := make(chan error)
	go func() { done <- demo.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("demo-cluster after SIGINT: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("demo-cluster did not stop within 10s of SIGINT")
	}
}

type tmuxSession struct {
	t    *testing.T
	tmux string
	name string
}

// Each session runs on a tmux server of its own (socket -L name), apart
// from any the person running the tests has open: a server whose last
// session was just killed exits, and a new session sent to it meanwhile
// fails with "server exited unexpectedly" (as two test runs at once, or
// one test right after another, did on one shared socket).
func (s *tmuxSession) run(args ...string) string {
	out, err := exec.Command(s.tmux, append([]string{"-L", s.name}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *tmuxSession) screen() string { return s.run("capture-pane", "-p", "-t", s.name) }

// keys presses keys (tmux's names: Enter, Escape, End…); typ types text.
func (s *tmuxSession) keys(k ...string) { s.run(append([]string{"send-keys", "-t", s.name}, k...)...) }
func (s *tmuxSession) typ(text string)  { s.run("send-keys", "-t", s.name, "-l", text) }

// openShopOrders goes from the connectors to jdbc-shop's partitions,
// filtered to its orders row.
func (s *tmuxSession) openShopOrders() {
	s.waitFor("the connectors", 10*time.Second, func(scr string) bool { return strings.Contains(scr, "jdbc-shop") && strings.Contains(scr, "RUNNING") })
	s.keys("/")
	s.typ("jdbc-shop")
	s.keys("Enter")
	s.waitFor("the filter", 5*time.Second, func(scr string) bool { return !strings.Contains(scr, "mm2-primary") })
	s.keys("Enter")
	s.waitFor("jdbc-shop's partitions", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "shop.public.orders") })
	s.keys("/")
	s.typ(`"shop.public.orders"`)
	s.keys("Enter")
	s.waitFor("the orders row alone", 5*time.Second, func(scr string) bool { return !strings.Contains(scr, "shop.public.payments") })
}

func (s *tmuxSession) waitFor(what string, d time.Duration, ok func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		scr := s.screen()
		if ok(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out after %s waiting for %s; screen:\n%s", d, what, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func startTmux(t *testing.T, w, h int, command string) *tmuxSession {
	t.Helper()
	tmux := needTool(t, "tmux")
	s := &tmuxSession{t: t, tmux: tmux, name: fmt.Sprintf("koff-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	s.run("new-session", "-d", "-s", s.name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), command)
	t.Cleanup(func() { exec.Command(tmux, "-L", s.name, "kill-server").Run() })
	return s
}

func TestDashboardOnDemoUnderTmux(t *testing.T) {
	status := filepath.Join(t.TempDir(), "status")
	s := startTmux(t, 120, 35, fmt.Sprintf("%s --demo --flush-interval 1s; echo $? > %s; sleep 30", koffBin, status))
	s.waitFor("the demo connectors", 10*time.Second, func(scr string) bool {
		for _, c := range demoConnectors {
			if !strings.Contains(scr, c) {
				return false
			}
		}
		return true
	})
	s.run("send-keys", "-t", s.name, "?")
	s.waitFor("full help", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "quit") && strings.Contains(scr, "filter") })
	s.run("send-keys", "-t", s.name, "q")
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(status)
		if err == nil && len(b) > 0 {
			if got := strings.TrimSpace(string(b)); got != "0" {
				t.Fatalf("koff --demo exited with status %s", got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("koff did not exit within 10s of q; screen:\n%s", s.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// An operator stops a connector, moves one of its offsets, sees it
// verified, and resumes it, all from the dashboard.
func TestDashboardEditFlowUnderTmux(t *testing.T) {
	dir := t.TempDir()
	status := filepath.Join(dir, "status")
	s := startTmux(t, 120, 35, fmt.Sprintf("%s --demo --flush-interval 1s --audit-log %s; echo $? > %s; sleep 30", koffBin, filepath.Join(dir, "audit.jsonl"), status))
	keys, typ := s.keys, s.typ
	s.openShopOrders()

	keys("S")
	s.waitFor("the stop confirmation", 5*time.Second, func(scr string) bool {
		return strings.Contains(scr, "Stop connector · jdbc-shop") && strings.Contains(scr, "RUNNING")
	})
	keys("Enter")
	s.waitFor("the connector stopped", 15*time.Second, func(scr string) bool {
		return strings.Contains(scr, "STOPPED") && strings.Contains(scr, "stopped jdbc-shop")
	})
	keys("e")
	s.waitFor("the offset editor", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "Edit offset") })
	for i := 0; i < 5; i++ {
		keys("Down")
	}
	keys("End")
	for i := 0; i < 80; i++ {
		keys("BSpace")
	}
	typ(`{"incrementing":1000}`)
	s.waitFor("valid JSON", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "valid offset") })
	keys("C-s")
	s.waitFor("the confirmation", 10*time.Second, func(scr string) bool {
		return strings.Contains(scr, "→ {\"incrementing\":1000}") && strings.Contains(scr, "koff set jdbc-shop")
	})
	keys("Enter")
	scr := s.waitFor("the verified edit", 15*time.Second, func(scr string) bool {
		return strings.Contains(scr, "verified: set 1 partition of jdbc-shop via Connect REST")
	})
	if !strings.Contains(scr, `{"incrementing":1000}`) {
		t.Errorf("the row does not show the new offset:\n%s", scr)
	}
	keys("R")
	s.waitFor("the resume confirmation", 5*time.Second, func(scr string) bool {
		return strings.Contains(scr, "Resume connector · jdbc-shop") && strings.Contains(scr, "STOPPED")
	})
	keys("Enter")
	s.waitFor("the connector resumed", 15*time.Second, func(scr string) bool {
		return strings.Contains(scr, "resumed jdbc-shop") && strings.Contains(scr, "RUNNING")
	})
	// The resumed task continues from the new offset: its next flush is just above 1000.
	s.waitFor("a flush from the new offset", 15*time.Second, func(scr string) bool {
		return strings.Contains(scr, `{"incrementing":10`) && !strings.Contains(scr, `{"incrementing":1000}`)
	})
	keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(status); err == nil && len(b) > 0 {
			if got := strings.TrimSpace(string(b)); got != "0" {
				t.Fatalf("koff exited with status %s", got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("koff did not exit after q; screen:\n%s", s.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
