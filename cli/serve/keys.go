package serve

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	gossh "golang.org/x/crypto/ssh"
)

// role is what an SSH key may do under koff serve.
type role int

const (
	roleNone     role = iota // unknown key: refused
	roleViewer               // --viewer-keys: sees the dashboard, cannot edit
	roleOperator             // --authorized-keys: sees and edits
)

func (r role) String() string {
	switch r {
	case roleOperator:
		return "operator"
	case roleViewer:
		return "viewer"
	}
	return "none"
}

// KeysError is a mistake in a keys file the flags name: the serve
// command's usage error (exit 2), where an unreadable file is not.
type KeysError struct{ msg string }

func (e KeysError) Error() string { return e.msg }

func keysErrorf(format string, args ...any) error { return KeysError{fmt.Sprintf(format, args...)} }

// Keyring holds the keys koff serve accepts, by their wire encoding.
type Keyring struct {
	operators map[string]bool
	viewers   map[string]bool
}

// LoadKeyring reads --authorized-keys and the optional --viewer-keys.
func LoadKeyring(operators, viewers string) (*Keyring, error) {
	k := &Keyring{operators: map[string]bool{}, viewers: map[string]bool{}}
	if err := k.add(k.operators, "--authorized-keys", operators); err != nil {
		return nil, err
	}
	if len(k.operators) == 0 {
		return nil, keysErrorf("--authorized-keys %s holds no key: nobody could edit; list the operators' public keys there", operators)
	}
	if viewers != "" {
		if err := k.add(k.viewers, "--viewer-keys", viewers); err != nil {
			return nil, err
		}
	}
	return k, nil
}

func (k *Keyring) add(into map[string]bool, flag, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	keys, err := parseAuthorizedKeys(path, data)
	if err != nil {
		return keysErrorf("%s %v", flag, err)
	}
	for _, pk := range keys {
		into[string(pk.Marshal())] = true
	}
	return nil
}

// parseAuthorizedKeys reads an OpenSSH authorized_keys file: one key a
// line, options before it and a comment after it ignored, blank lines and
// # comments skipped. gossh.ParseAuthorizedKey silently skips lines it
// cannot parse, so it is fed one line at a time: a typo must be an error,
// not a teammate quietly locked out.
func parseAuthorizedKeys(path string, data []byte) ([]gossh.PublicKey, error) {
	var keys []gossh.PublicKey
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		pk, _, options, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: not a public key (%v)", path, i+1, err)
		}
		for _, o := range options {
			// A CA line trusts every certificate it signed: koff serve does
			// not do certificates, and must not read it as one plain key.
			if strings.EqualFold(o, "cert-authority") {
				return nil, fmt.Errorf("%s line %d: cert-authority keys are not supported; list the users' own public keys", path, i+1)
			}
		}
		keys = append(keys, pk)
	}
	return keys, nil
}

// role resolves a key. A key listed in both files is a viewer: the least
// privilege wins, and the UI tells its owner why.
func (k *Keyring) role(pk gossh.PublicKey) role {
	if pk == nil {
		return roleNone
	}
	wire := pk.Marshal()
	switch {
	case k.viewers[string(wire)]:
		return roleViewer
	case k.operators[string(wire)]:
		return roleOperator
	}
	return roleNone
}
