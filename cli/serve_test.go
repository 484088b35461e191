package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"koff/cli/serve"
	"koff/internal/sshtest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	gossh "golang.org/x/crypto/ssh"
)

// Startup errors are one line naming the file and line, exit 2.
func TestServeUsageErrors(t *testing.T) {
	dir := t.TempDir()
	_, line := sshtest.Key(t, "op")
	ops := sshtest.WriteFile(t, dir, "ops", line+"\n")
	bad := sshtest.WriteFile(t, dir, "bad", line+"\nssh-rsa nonsense\n")
	host := filepath.Join(dir, "host")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--demo", "--host-key", host}, "needs --authorized-keys"},
		{[]string{"serve", "--demo", "--host-key", host, "--authorized-keys", bad}, "--authorized-keys " + bad + " line 2: not a public key"},
		{[]string{"serve", "--demo", "--host-key", host, "--authorized-keys", ops, "--viewer-keys", bad}, "--viewer-keys " + bad + " line 2"},
		{[]string{"serve", "--authorized-keys", ops, "--host-key", host}, "no Kafka bootstrap servers"},
		{[]string{"serve", "--demo", "--authorized-keys", ops, "--max-sessions", "-1"}, "must not be negative"},
		{[]string{"serve", "--demo", "--authorized-keys", ops, "extra"}, "takes no arguments"},
	} {
		out, errs, code := koff(t, tc.args...)
		if code != ExitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("koff %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, errs, tc.want)
		}
	}
	if _, err := os.Stat(host); err == nil {
		t.Error("a failed start generated a host key")
	}
}

func TestSSHCommand(t *testing.T) {
	host, _ := os.Hostname()
	for addr, want := range map[string]string{
		"127.0.0.1:2222": "ssh -p 2222 127.0.0.1",
		"[::1]:2222":     "ssh -p 2222 ::1",
		"10.1.2.3:22":    "ssh 10.1.2.3",
		"[::]:2222":      "ssh -p 2222 " + host,
		"0.0.0.0:2222":   "ssh -p 2222 " + host,
	} {
		if got := sshCommand(addr); got != want {
			t.Errorf("sshCommand(%q) = %q, want %q", addr, got, want)
		}
	}
}

// serveRun is koff serve --demo running in-process on a free port.
type serveRun struct {
	t            *testing.T
	addr, dir    string
	op, viewer   gossh.Signer
	cancel       context.CancelFunc
	done         chan int
	once         sync.Once
	code         int
	stdout, errb syncBuffer
}

func startServe(t *testing.T, extra ...string) *serveRun {
	t.Helper()
	r := &serveRun{t: t, dir: t.TempDir(), done: make(chan int, 1)}
	var opLine, viewerLine string
	r.op, opLine = sshtest.Key(t, "op")
	r.viewer, viewerLine = sshtest.Key(t, "viewer")
	args := append([]string{"serve", "--demo", "--ssh-listen", "127.0.0.1:0",
		"--authorized-keys", sshtest.WriteFile(t, r.dir, "ops", opLine+"\n"),
		"--viewer-keys", sshtest.WriteFile(t, r.dir, "viewers", viewerLine+"\n"),
		"--host-key", filepath.Join(r.dir, "host"), "--audit-log", filepath.Join(r.dir, "audit.jsonl"),
		"--log-file", filepath.Join(r.dir, "log")}, extra...)
	var ctx context.Context
	ctx, r.cancel = context.WithCancel(context.Background())
	go func() {
		r.done <- Main(args, Env{Context: ctx, Stdout: &r.stdout, Stderr: &r.errb, Getenv: func(string) string { return "" }})
	}()
	t.Cleanup(func() { r.stop() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		out := r.stdout.String()
		if _, rest, ok := strings.Cut(out, "listening on "); ok {
			r.addr, _, _ = strings.Cut(rest, " ")
			return r
		}
		select {
		case code := <-r.done:
			t.Fatalf("koff serve exited %d: %s", code, r.errb.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("koff serve printed no address within 20s: %q %q", out, r.errb.String())
		}
	}
}

// stop cancels koff serve's context (as SIGTERM would) and returns its exit code.
func (r *serveRun) stop() int {
	r.once.Do(func() {
		r.cancel()
		select {
		case r.code = <-r.done:
		case <-time.After(20 * time.Second):
			r.t.Fatal("koff serve did not stop within 20s")
		}
	})
	return r.code
}

func (r *serveRun) log() string {
	b, _ := os.ReadFile(filepath.Join(r.dir, "log"))
	return string(b)
}

// sshTerm is one client session with a PTY (or without, when asked).
type sshTerm struct {
	t         *testing.T
	client    *gossh.Client
	sess      *gossh.Session
	stdin     io.WriteCloser
	out, errb syncBuffer
	exited    chan error
}

func dial(addr, user string, key gossh.Signer) (*gossh.Client, error) {
	return gossh.Dial("tcp", addr, &gossh.ClientConfig{
		User:            user,
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
		Timeout:         10 * time.Second,
	})
}

// openTerm opens a session, with a PTY if asked, and env as "K=V" pairs
// sent the way ssh's SetEnv does.
func openTerm(t *testing.T, addr, user string, key gossh.Signer, pty bool, env ...string) *sshTerm {
	t.Helper()
	c, err := dial(addr, user, key)
	if err != nil {
		t.Fatalf("ssh %s: %v", user, err)
	}
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	term := &sshTerm{t: t, client: c, sess: s, exited: make(chan error, 1)}
	t.Cleanup(term.close)
	s.Stdout, s.Stderr = &term.out, &term.errb
	if term.stdin, err = s.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if err := s.Setenv(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if pty {
		if err := s.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	go func() {
		// Like OpenSSH, hang up once the session is over.
		term.exited <- s.Wait()
		c.Close()
	}()
	return term
}

func (s *sshTerm) close() {
	s.sess.Close()
	s.client.Close()
}

// waitOut waits until the session's output (stdout and stderr) says what.
func (s *sshTerm) waitOut(what string, d time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for !strings.Contains(s.out.String()+s.errb.String(), what) {
		if time.Now().After(deadline) {
			s.t.Fatalf("no %q within %s; stderr %q, stdout tail %q", what, d, s.errb.String(), tail(s.out.String(), 300))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitExit waits for the server to end the session and returns its exit status.
func (s *sshTerm) waitExit(d time.Duration) int {
	s.t.Helper()
	select {
	case err := <-s.exited:
		var ee *gossh.ExitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &ee):
			return ee.ExitStatus()
		}
		s.t.Fatalf("session ended without a status: %v", err)
	case <-time.After(d):
		s.t.Fatalf("session still open after %s; stderr %q", d, s.errb.String())
	}
	return -1
}

// sessionGoroutines lists the goroutines that serve or use an SSH session:
// Bubble Tea programs, the dashboard, the session middleware, and both ends
// of the SSH connection. The server's accept loop, the observer and the
// demo cluster are not among them.
func sessionGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		for _, marker := range []string{"charm.land/bubbletea", "koff/ui.", "koff/cli.(*sessionServer)", "charm.land/wish", "golang.org/x/crypto/ssh."} {
			if bytes.Contains(g, []byte(marker)) {
				out = append(out, string(g))
				break
			}
		}
	}
	return out
}

// waitNoSessionGoroutines fails when session goroutines outlive a few
// seconds: programs end at once, their last tea.Tick within 250 ms.
func waitNoSessionGoroutines(t *testing.T, when string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for left := sessionGoroutines(); len(left) > 0; left = sessionGoroutines() {
		if time.Now().After(deadline) {
			t.Fatalf("%s, %d session goroutines are still running:\n%s", when, len(left), strings.Join(left, "\n\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// One koff serve: operators and viewers at once, the session limit, refused
// keys and clients without a PTY, clients that disconnect, and a shutdown
// that says goodbye. Nothing may leak: neither a session's goroutines once
// its client is gone, nor anything once koff serve has returned.
func TestServeSessionsShutdownAndLeaks(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r := startServe(t, "--max-sessions", "2")
	if fi, err := os.Stat(filepath.Join(r.dir, "host")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("host key: %v %v", fi, err)
	}
	// A finished program's last tick (250 ms) may still be pending from an
	// earlier test: wait for it.
	waitNoSessionGoroutines(t, "before the first session")

	op := openTerm(t, r.addr, "alice", r.op, true)
	op.waitOut("jdbc-shop", 10*time.Second)
	viewer := openTerm(t, r.addr, "bob", r.viewer, true, "NO_COLOR=1")
	viewer.waitOut("read-only", 10*time.Second)
	viewer.waitOut("jdbc-shop", 10*time.Second)
	// Colour is per session: NO_COLOR in the viewer's environment only.
	const sgrColor = "\x1b[38;"
	if !strings.Contains(op.out.String(), sgrColor) || strings.Contains(viewer.out.String(), sgrColor) {
		t.Errorf("colour: operator %v (want true), viewer with NO_COLOR %v (want false)",
			strings.Contains(op.out.String(), sgrColor), strings.Contains(viewer.out.String(), sgrColor))
	}

	// Two sessions are the limit here: a third is told so.
	third := openTerm(t, r.addr, "carol", r.op, true)
	if code := third.waitExit(5 * time.Second); code != 1 || !strings.Contains(third.errb.String(), "koff serve is full: 2 sessions are open (--max-sessions 2)") {
		t.Errorf("third session: exit %d, stderr %q", code, third.errb.String())
	}
	// An unknown key never gets in.
	stranger, _ := sshtest.Key(t, "stranger")
	if c, err := dial(r.addr, "mallory", stranger); err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
		if c != nil {
			c.Close()
		}
		t.Errorf("unknown key: %v", err)
	}

	// Clients go away: everything their sessions ran ends with them.
	op.close()
	viewer.close()
	third.close()
	waitNoSessionGoroutines(t, "after the clients left")

	// Without a PTY: one line saying what to do.
	plain := openTerm(t, r.addr, "alice", r.op, false)
	if code := plain.waitExit(5 * time.Second); code != 1 || strings.TrimSpace(plain.errb.String()) != serve.MsgNeedsPTY {
		t.Errorf("no pty: exit %d, stderr %q", code, plain.errb.String())
	}
	plain.close()

	// Shutdown ends the open session with a message, then koff serve returns 0.
	last := openTerm(t, r.addr, "alice", r.op, true)
	last.waitOut("jdbc-shop", 10*time.Second)
	if code := r.stop(); code != 0 {
		t.Fatalf("koff serve exited %d: %s", code, r.errb.String())
	}
	if code := last.waitExit(5 * time.Second); code != 1 || !strings.Contains(last.errb.String(), serve.MsgShuttingDown) {
		t.Errorf("at shutdown: exit %d, stderr %q", code, last.errb.String())
	}
	last.close()
	if r.errb.String() != "" {
		t.Errorf("koff serve wrote to stderr: %q", r.errb.String())
	}
	log := r.log()
	for _, want := range []string{
		`ssh session start user="alice" fp=` + gossh.FingerprintSHA256(r.op.PublicKey()) + ` role=operator remote=127.0.0.1:`,
		`ssh session start user="bob" fp=` + gossh.FingerprintSHA256(r.viewer.PublicKey()) + ` role=viewer`,
		`ssh refused: unknown key user="mallory" fp=` + gossh.FingerprintSHA256(stranger.PublicKey()),
		"ssh session refused (full:", "ssh session refused (no pty:", "shutting down: 1 sessions",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log file lacks %q:\n%s", want, log)
		}
	}
}

// --idle-timeout counts key presses, not traffic: a live dashboard writes
// all the time.
func TestServeIdleTimeout(t *testing.T) {
	r := startServe(t, "--idle-timeout", "1s")
	idle := openTerm(t, r.addr, "alice", r.op, true)
	busy := openTerm(t, r.addr, "bob", r.viewer, true)
	start := time.Now()
	for time.Since(start) < 1500*time.Millisecond {
		busy.stdin.Write([]byte("j"))
		time.Sleep(200 * time.Millisecond)
	}
	if code := idle.waitExit(5 * time.Second); code != 1 || !strings.Contains(idle.errb.String(), "disconnected after 1s without input (--idle-timeout)") {
		t.Errorf("idle session: exit %d, stderr %q", code, idle.errb.String())
	}
	select {
	case err := <-busy.exited:
		t.Fatalf("a session with key presses was ended: %v %q", err, busy.errb.String())
	default:
	}
	if code := busy.waitExit(5 * time.Second); code != 1 || !strings.Contains(busy.errb.String(), "without input") {
		t.Errorf("once quiet: exit %d, stderr %q", code, busy.errb.String())
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
