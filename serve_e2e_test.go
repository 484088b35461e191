package main

// End-to-end test of koff serve: the real ssh client under tmux, with
// operator, viewer and unknown keys.

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
)

// sshKey makes an ed25519 key pair with ssh-keygen and returns the private
// key's path and the public key's SHA256 fingerprint.
func sshKey(t *testing.T, keygen, dir, name string) (string, string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	out, err := exec.Command(keygen, "-l", "-f", path+".pub").Output()
	if err != nil {
		t.Fatalf("ssh-keygen -l: %v", err)
	}
	fields := strings.Fields(string(out)) // 256 SHA256:… name (ED25519)
	if len(fields) < 2 || !strings.HasPrefix(fields[1], "SHA256:") {
		t.Fatalf("ssh-keygen -l printed %q", out)
	}
	return path, fields[1]
}

func TestServeOverSSHUnderTmux(t *testing.T) {
	sshBin := needTool(t, "ssh")
	keygen := needTool(t, "ssh-keygen")
	needTool(t, "tmux")
	dir := t.TempDir()
	opKey, opFP := sshKey(t, keygen, dir, "op")
	viewerKey, _ := sshKey(t, keygen, dir, "viewer")
	strangerKey, _ := sshKey(t, keygen, dir, "stranger")
	pub := func(key string) string {
		b, err := os.ReadFile(key + ".pub")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ops := filepath.Join(dir, "ops")
	viewers := filepath.Join(dir, "viewers")
	os.WriteFile(ops, []byte("# operators\n"+pub(opKey)), 0o600)
	os.WriteFile(viewers, []byte(pub(viewerKey)), 0o600)

	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	host, audit := filepath.Join(dir, "host"), filepath.Join(dir, "audit.jsonl")
	srv := exec.Command(koffBin, "serve", "--demo", "--flush-interval", "1s", "--ssh-listen", addr,
		"--authorized-keys", ops, "--viewer-keys", viewers, "--host-key", host, "--audit-log", audit,
		"--log-file", filepath.Join(dir, "log"))
	stdout, _ := srv.StdoutPipe()
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			ready <- sc.Text()
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case line := <-ready:
		if want := "connect with: ssh -p " + port + " 127.0.0.1"; !strings.Contains(line, "listening on "+addr) || !strings.HasSuffix(line, want) {
			t.Fatalf("startup line %q, want the address and %q", line, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("koff serve printed nothing within 20s")
	}
	if fi, err := os.Stat(host); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("host key: %v, %v", fi, err)
	}

	sshArgs := func(key, user string) []string {
		return []string{"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "IdentitiesOnly=yes",
			"-o", "BatchMode=yes", "-o", "LogLevel=ERROR", "-i", key, "-p", port, user + "@127.0.0.1"}
	}
	out, err := exec.Command(sshBin, append(sshArgs(strangerKey, "mallory"), "-T")...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Permission denied") {
		t.Errorf("an unknown key: %v, %q", err, out)
	}

	// A viewer and an operator at once, each in its own terminal.
	session := func(key, user string) *tmuxSession {
		cmd := sshBin + " -t " + strings.Join(sshArgs(key, user), " ") + "; echo ssh-exit=$?; sleep 30"
		return startTmux(t, 120, 35, cmd)
	}
	viewer := session(viewerKey, "bob")
	op := session(opKey, "alice")
	allConnectors := func(scr string) bool {
		for _, c := range demoConnectors {
			if !strings.Contains(scr, c) {
				return false
			}
		}
		return true
	}
	viewer.waitFor("the viewer's dashboard", 15*time.Second, func(scr string) bool { return allConnectors(scr) && strings.Contains(scr, "read-only") })
	op.waitFor("the operator's dashboard", 15*time.Second, allConnectors)
	if strings.Contains(op.screen(), "read-only") {
		t.Errorf("the operator's dashboard is read-only:\n%s", op.screen())
	}

	// The viewer's edit keys say why they do nothing.
	keys := func(s *tmuxSession, k ...string) { s.run(append([]string{"send-keys", "-t", s.name}, k...)...) }
	refused := func(scr string) bool { return strings.Contains(scr, "read-only: you are a viewer") }
	// A refusal stays on the status line until the next key.
	keys(viewer, "S")
	viewer.waitFor("S refused", 5*time.Second, refused)
	// A source connector's partitions (the worst-first order puts the
	// demo's sink with a gap first).
	keys(viewer, "/")
	viewer.typ("jdbc-shop")
	keys(viewer, "Enter")
	viewer.waitFor("the filter", 5*time.Second, func(scr string) bool { return !strings.Contains(scr, "mm2-primary") })
	keys(viewer, "Enter")
	viewer.waitFor("a connector's partitions", 5*time.Second, func(scr string) bool {
		return strings.Contains(scr, "SOURCE PARTITION") && !refused(scr)
	})
	for _, k := range []string{"e", "x"} {
		keys(viewer, k)
		scr := viewer.waitFor(k+" refused", 5*time.Second, refused)
		if strings.Contains(scr, "Edit offset") || strings.Contains(scr, "Reset offset") {
			t.Fatalf("a viewer's %s opened a dialog:\n%s", k, scr)
		}
		keys(viewer, "j")
		viewer.waitFor("the status line cleared", 5*time.Second, func(scr string) bool { return !refused(scr) })
	}
	keys(viewer, "Escape")

	// The operator stops jdbc-shop; the viewer sees it stopped too.
	keys(op, "/")
	keys(op, "-l", "jdbc-shop")
	keys(op, "Enter")
	keys(op, "S")
	op.waitFor("the stop confirmation", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "Stop connector · jdbc-shop") })
	keys(op, "Enter")
	op.waitFor("jdbc-shop stopped", 20*time.Second, func(scr string) bool { return strings.Contains(scr, "stopped jdbc-shop") })
	viewer.waitFor("the stop in the viewer's session", 10*time.Second, func(scr string) bool {
		for _, l := range strings.Split(scr, "\n") {
			if strings.Contains(l, "jdbc-shop ") && strings.Contains(l, "STOPPED") {
				return true
			}
		}
		return false
	})

	// ... and resets one of its offsets, verified and audited under the SSH
	// user and key.
	keys(op, "Enter")
	op.waitFor("jdbc-shop's partitions", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "shop.public.") })
	keys(op, "x")
	op.waitFor("the reset dialog", 10*time.Second, func(scr string) bool { return strings.Contains(scr, "Reset offset") })
	keys(op, "Enter")
	op.waitFor("the verified reset", 20*time.Second, func(scr string) bool {
		return strings.Contains(scr, "verified: reset 1 partition of jdbc-shop")
	})
	b, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	var entry struct{ User, Connector, Result string }
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &entry); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("alice (%s)", opFP); entry.User != want || entry.Connector != "jdbc-shop" || entry.Result != "verified" {
		t.Errorf("audit entry %+v, want user %q", entry, want)
	}
	// The stop before it is audited too, under the same SSH user and key.
	var stop struct{ User, Connector, Kind, State, Result string }
	for _, l := range lines {
		if json.Unmarshal([]byte(l), &stop) == nil && stop.Kind == "stop" {
			break
		}
	}
	if want := fmt.Sprintf("alice (%s)", opFP); stop.Kind != "stop" || stop.User != want || stop.Connector != "jdbc-shop" ||
		stop.State != "RUNNING" || stop.Result != "done" {
		t.Errorf("audit of the stop %+v, want a done stop of RUNNING jdbc-shop by %q", stop, want)
	}

	// SIGTERM ends both sessions with a message; koff serve exits 0.
	srv.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("koff serve after SIGTERM: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("koff serve did not stop within 15s of SIGTERM")
	}
	for _, s := range []*tmuxSession{viewer, op} {
		s.waitFor("the goodbye", 5*time.Second, func(scr string) bool {
			return strings.Contains(scr, "koff serve is shutting down") && strings.Contains(scr, "ssh-exit=1")
		})
	}
}
