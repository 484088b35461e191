package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"

	"koff/edit/audit"
)

// DefaultHostKeyPath is $XDG_STATE_HOME/koff/ssh_host_ed25519, beside the
// default audit log. It does not follow --audit-log: the server's identity
// must not change with where edits are logged.
func DefaultHostKeyPath(getenv func(string) string) string {
	return filepath.Join(filepath.Dir(audit.DefaultPath(getenv)), "ssh_host_ed25519")
}

// LoadHostKey reads the server's private key, generating an ed25519 key
// on first start. An existing key must be private to its owner, as sshd
// insists: a host key others can read lets them impersonate the server.
func LoadHostKey(path string) (signer gossh.Signer, created bool, err error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := generateHostKey(path); err != nil {
			return nil, false, fmt.Errorf("generate host key %s: %w", path, err)
		}
		created = true
	case err != nil:
		return nil, false, fmt.Errorf("host key: %w", err)
	case !fi.Mode().IsRegular():
		return nil, false, fmt.Errorf("host key %s is not a regular file", path)
	case fi.Mode().Perm()&0o077 != 0:
		return nil, false, fmt.Errorf("host key %s has mode %04o: it must be readable by its owner only (chmod 600 %s)", path, fi.Mode().Perm(), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false, fmt.Errorf("host key: %w", err)
	}
	signer, err = gossh.ParsePrivateKey(data)
	var pm *gossh.PassphraseMissingError
	switch {
	case errors.As(err, &pm):
		return nil, false, fmt.Errorf("host key %s is passphrase-protected: koff serve needs an unencrypted key", path)
	case err != nil:
		return nil, false, fmt.Errorf("host key %s: %w", path, err)
	}
	return signer, created, nil
}

// generateHostKey writes a new ed25519 key in OpenSSH format, mode 0600,
// through a temporary file so a crash never leaves half a key behind.
func generateHostKey(path string) error {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	block, err := gossh.MarshalPrivateKey(priv, "koff serve host key")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".ssh_host_key-*") // mode 0600
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if err := pem.Encode(f, block); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
