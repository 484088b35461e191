package serve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"koff/edit"
	"koff/edit/apply"
	"koff/edit/audit"
	"koff/edit/plan"
	"koff/internal/sshtest"
)

func TestParseAuthorizedKeys(t *testing.T) {
	a, lineA := sshtest.Key(t, "alice@laptop")
	b, lineB := sshtest.Key(t, "")
	c, lineC := sshtest.Key(t, "carol with spaces in the comment")
	good := "# operators\n\n" + lineA + "\r\n" +
		`no-pty,command="/bin/false",from="10.0.0.0/8" ` + lineB + "\n" +
		"   " + lineC + "   \n# the end"
	keys, err := parseAuthorizedKeys("ops", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	want := []gossh.Signer{a, b, c}
	if len(keys) != len(want) {
		t.Fatalf("got %d keys, want %d", len(keys), len(want))
	}
	for i, s := range want {
		if string(keys[i].Marshal()) != string(s.PublicKey().Marshal()) {
			t.Errorf("key %d differs", i+1)
		}
	}

	bad := []struct{ name, text, want string }{
		{"truncated key", lineA + "\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB\n", "ops line 2: not a public key"},
		{"not a key", "# x\n\nhello world\n", "ops line 3: not a public key"},
		{"cert authority", `cert-authority ` + lineA, "ops line 1: cert-authority keys are not supported"},
	}
	for _, tc := range bad {
		_, err := parseAuthorizedKeys("ops", []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestKeyringRoles(t *testing.T) {
	dir := t.TempDir()
	op, opLine := sshtest.Key(t, "op")
	viewer, viewerLine := sshtest.Key(t, "viewer")
	both, bothLine := sshtest.Key(t, "both")
	stranger, _ := sshtest.Key(t, "stranger")
	k, err := LoadKeyring(sshtest.WriteFile(t, dir, "ops", opLine+"\n"+bothLine+"\n"), sshtest.WriteFile(t, dir, "viewers", viewerLine+"\n"+bothLine+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  gossh.PublicKey
		want role
	}{
		{op.PublicKey(), roleOperator},
		{viewer.PublicKey(), roleViewer},
		{both.PublicKey(), roleViewer}, // least privilege
		{stranger.PublicKey(), roleNone},
		{nil, roleNone},
	} {
		if got := k.role(tc.key); got != tc.want {
			t.Errorf("role = %s, want %s", got, tc.want)
		}
	}

	// No viewers file: operators only.
	k, err = LoadKeyring(sshtest.WriteFile(t, dir, "ops2", opLine), "")
	if err != nil || k.role(op.PublicKey()) != roleOperator || k.role(viewer.PublicKey()) != roleNone {
		t.Errorf("operators only: %v", err)
	}
	if _, err := LoadKeyring(sshtest.WriteFile(t, dir, "empty", "# nobody\n"), ""); err == nil || !strings.Contains(err.Error(), "holds no key") {
		t.Errorf("empty operators file: %v", err)
	}
	if _, err := LoadKeyring(filepath.Join(dir, "missing"), ""); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestHostKeyGeneratedPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "koff", "ssh_host_ed25519")
	s1, created, err := LoadHostKey(path)
	if err != nil || !created {
		t.Fatalf("first start: created %v, %v", created, err)
	}
	if s1.PublicKey().Type() != gossh.KeyAlgoED25519 {
		t.Errorf("host key type %s", s1.PublicKey().Type())
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("host key mode %v, %v", fi.Mode(), err)
	}
	s2, created, err := LoadHostKey(path)
	if err != nil || created || string(s2.PublicKey().Marshal()) != string(s1.PublicKey().Marshal()) {
		t.Fatalf("second start must reuse the key: created %v, %v", created, err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadHostKey(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a world-readable host key: %v", err)
	}
	if err := os.WriteFile(path, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadHostKey(path); err == nil {
		t.Error("garbage host key accepted")
	}
}

// panicREST fails the test loudly if a refused edit reached Connect.
type panicREST struct{ edit.REST }

// The server, not only the UI, refuses a viewer's edits: each session's
// Editor is read-only in edit/ and names the SSH user and key.
func TestSessionEditorEnforcesRoles(t *testing.T) {
	audit := &audit.Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
	s := &Server{Config: Config{Base: edit.Editor{REST: panicREST{}, Audit: audit}}}
	viewer := &liveSession{user: "bob", fp: "SHA256:viewer", role: roleViewer}
	operator := &liveSession{user: "alice", fp: "SHA256:op", role: roleOperator}

	ed := s.editorFor(viewer)
	if !ed.ReadOnly || ed.User != "bob (SHA256:viewer)" {
		t.Fatalf("viewer editor: read-only %v, user %q", ed.ReadOnly, ed.User)
	}
	ctx := context.Background()
	if _, err := ed.Apply(ctx, &plan.Plan{Request: plan.Request{Connector: "jdbc-shop", Kind: plan.KindSet}}); !errors.Is(err, apply.ErrReadOnly) {
		t.Errorf("viewer Apply: %v, want ErrReadOnly", err)
	}
	if err := ed.StopConnector(ctx, "jdbc-shop"); !errors.Is(err, apply.ErrReadOnly) {
		t.Errorf("viewer StopConnector: %v", err)
	}
	if err := ed.ResumeConnector(ctx, "jdbc-shop"); !errors.Is(err, apply.ErrReadOnly) {
		t.Errorf("viewer ResumeConnector: %v", err)
	}
	entries, err := audit.Entries()
	// Stop and resume are audited like edits: refused, naming the viewer.
	if err != nil || len(entries) != 3 {
		t.Fatalf("audit of the refused edit, stop and resume: %+v, %v", entries, err)
	}
	for i, kind := range []plan.Kind{plan.KindSet, plan.KindStop, plan.KindResume} {
		if e := entries[i]; e.Kind != kind || e.Result != "refused" || e.User != "bob (SHA256:viewer)" {
			t.Errorf("audit line %d: %+v, want a refused %s by bob (SHA256:viewer)", i+1, e, kind)
		}
	}
	if !strings.Contains(s.readOnlyReason(viewer), "viewer") {
		t.Errorf("viewer reason %q", s.readOnlyReason(viewer))
	}

	if ed := s.editorFor(operator); ed.ReadOnly || ed.User != "alice (SHA256:op)" {
		t.Errorf("operator editor: read-only %v, user %q", ed.ReadOnly, ed.User)
	}
	if s.Base.ReadOnly || s.Base.User != "" {
		t.Error("sessions must get their own copy; the base stays untouched")
	}

	// --read-only makes operators read-only too, and says so.
	s.Base.ReadOnly = true
	if ed := s.editorFor(operator); !ed.ReadOnly || !strings.Contains(s.readOnlyReason(operator), "--read-only") {
		t.Errorf("operator under --read-only: read-only %v, reason %q", ed.ReadOnly, s.readOnlyReason(operator))
	}
}

// fakeSession is the part of an SSH session identify looks at.
type fakeSession struct {
	ssh.Session
	key    ssh.PublicKey
	perms  ssh.Permissions
	stderr bytes.Buffer
	exit   int
}

func (f *fakeSession) PublicKey() ssh.PublicKey     { return f.key }
func (f *fakeSession) Permissions() ssh.Permissions { return f.perms }
func (f *fakeSession) User() string                 { return "alice" }
func (f *fakeSession) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 50000}
}
func (f *fakeSession) Stderr() io.ReadWriter { return &f.stderr }
func (f *fakeSession) Exit(code int) error   { f.exit = code; return nil }
func (f *fakeSession) Context() ssh.Context  { return nil }

// The role comes from the key the session actually used, which must be the
// key the auth callback accepted (soft-serve's re-check).
func TestIdentifyRechecksTheKeyUsed(t *testing.T) {
	dir := t.TempDir()
	op, opLine := sshtest.Key(t, "op")
	viewer, viewerLine := sshtest.Key(t, "viewer")
	stranger, _ := sshtest.Key(t, "stranger")
	keys, err := LoadKeyring(sshtest.WriteFile(t, dir, "ops", opLine), sshtest.WriteFile(t, dir, "viewers", viewerLine))
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(Config{Keys: keys, Logf: func(string, ...any) {}})
	accepted := func(k gossh.Signer) ssh.Permissions {
		return ssh.Permissions{Permissions: &gossh.Permissions{Extensions: map[string]string{fpExtension: gossh.FingerprintSHA256(k.PublicKey())}}}
	}
	for _, tc := range []struct {
		name  string
		used  ssh.PublicKey
		perms ssh.Permissions
		want  role // roleNone: refused
	}{
		{"operator", op.PublicKey(), accepted(op), roleOperator},
		{"viewer", viewer.PublicKey(), accepted(viewer), roleViewer},
		{"accepted one key, used another", viewer.PublicKey(), accepted(op), roleNone},
		{"nothing accepted", op.PublicKey(), ssh.Permissions{Permissions: &gossh.Permissions{}}, roleNone},
		{"unknown key", stranger.PublicKey(), accepted(stranger), roleNone},
		{"no key", nil, accepted(op), roleNone},
	} {
		sess := &fakeSession{key: tc.used, perms: tc.perms}
		got := roleNone
		s.identify(func(ssh.Session) { got = s.session(sess).role })(sess)
		if got != tc.want {
			t.Errorf("%s: role %s, want %s", tc.name, got, tc.want)
		}
		if refused := tc.want == roleNone; refused != (sess.exit == 1) || refused != strings.Contains(sess.stderr.String(), "Permission denied") {
			t.Errorf("%s: exit %d, stderr %q", tc.name, sess.exit, sess.stderr.String())
		}
		if len(s.sessions) != 0 {
			t.Errorf("%s: the session outlived its handler", tc.name)
		}
	}
}

func TestNoColorFromSessionEnv(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want bool
	}{
		{nil, false},
		{[]string{"TERM=xterm", "NO_COLOR=1"}, true},
		{[]string{"NO_COLOR=yes please"}, true}, // any non-empty value (no-color.org)
		{[]string{"NO_COLOR="}, false},
		{[]string{"NO_COLOR=1", "NO_COLOR="}, false},
		{[]string{"NO_COLORS=1"}, false},
	} {
		if got := noColor(tc.env); got != tc.want {
			t.Errorf("noColor(%q) = %v", tc.env, got)
		}
	}
}
