package cli

import (
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// clientKey is a fresh ed25519 key: its signer and its authorized_keys line.
func clientKey(t *testing.T, comment string) (gossh.Signer, string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(signer.PublicKey())))
	return signer, line + " " + comment
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Startup errors are one line naming the file and line, exit 2.
func TestServeUsageErrors(t *testing.T) {
	dir := t.TempDir()
	_, line := clientKey(t, "op")
	ops := writeFile(t, dir, "ops", line+"\n")
	bad := writeFile(t, dir, "bad", line+"\nssh-rsa nonsense\n")
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
