package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"koff/demo"
	"koff/demo/rest"
	"koff/kafka/security"
)

// demoSecurity is demo-cluster's broker and REST security, and how a
// client matches it. It holds secrets only inside sasl and rest, which
// print without them.
type demoSecurity struct {
	sasl       *demo.SASL
	pwFile     string // --sasl-password-file as given; "" when from KOFF_SASL_PASSWORD
	rest       *rest.ConnectAuth
	restUser   string // for the banner: --connect-user / --connect-password-file
	restPWFile string
	restToken  string // --connect-token-file
	tlsDir     string
	clientAuth bool
	desc       string // "SASL_SSL, SCRAM-SHA-256 user alice, client certificates required"
	restDesc   string
}

// security checks demo-cluster's security flags. On demo-cluster the
// password flags (--sasl-password-file, --connect-password-file,
// --connect-token-file) name what the embedded servers require.
func (o *demoClusterOptions) security(g *Globals) (demoSecurity, error) {
	var s demoSecurity
	if f := changed(o.fs, "command-config", "tls", "tls-ca", "tls-cert", "tls-key", "insecure-skip-verify", "sasl-mechanism", "sasl-username", "connect-url", "connect-ca", "connect-cert", "connect-key"); f != "" {
		return s, usagef("demo-cluster: %s is a client flag; the demo takes --sasl MECH, --sasl-user USER, --sasl-password-file FILE, --tls-dir DIR, --tls-client-auth, --connect-user/--connect-password-file, --connect-token-file", f)
	}
	if o.tlsClientAuth && o.tlsDir == "" {
		return s, usagef("demo-cluster: --tls-client-auth needs --tls-dir")
	}
	proto := "PLAINTEXT"
	if o.sasl != "" {
		mech := strings.ToUpper(o.sasl)
		if !contains(security.Mechanisms, mech) {
			return s, usagef("demo-cluster: --sasl %s is not one of %s", o.sasl, strings.Join(security.Mechanisms, ", "))
		}
		if o.saslUser == "" {
			return s, usagef("demo-cluster: --sasl-user must not be empty")
		}
		pw, from, err := g.saslPassword()
		if err != nil {
			return s, err
		}
		if pw == "" {
			return s, usagef("demo-cluster: --sasl %s needs a password: --sasl-password-file FILE or env KOFF_SASL_PASSWORD", mech)
		}
		s.sasl = &demo.SASL{Mechanism: mech, User: o.saslUser, Password: string(pw)}
		if from == "--sasl-password-file" {
			s.pwFile = absPath(g.SASLPasswordFile)
		}
		proto = "SASL_PLAINTEXT"
	} else if g.SASLPasswordFile != "" {
		return s, usagef("demo-cluster: --sasl-password-file needs --sasl MECH")
	}
	if o.tlsDir != "" {
		s.tlsDir, s.clientAuth = absPath(o.tlsDir), o.tlsClientAuth
		proto = map[string]string{"PLAINTEXT": "SSL", "SASL_PLAINTEXT": "SASL_SSL"}[proto]
	}
	rest, err := g.demoRESTAuth(&s)
	if err != nil {
		return s, err
	}
	s.rest = rest
	if proto != "PLAINTEXT" {
		s.desc = proto
		if s.sasl != nil {
			s.desc += ", " + s.sasl.String()
		}
		if s.clientAuth {
			s.desc += ", client certificates required"
		}
	}
	if rest != nil {
		s.restDesc = "; requires " + rest.String()
	}
	return s, nil
}

// demoRESTAuth reads the credentials the REST emulator is to require.
func (g *Globals) demoRESTAuth(s *demoSecurity) (*rest.ConnectAuth, error) {
	var a rest.ConnectAuth
	if g.ConnectUser != "" || g.ConnectPasswordFile != "" {
		if g.ConnectUser == "" || g.ConnectPasswordFile == "" {
			return nil, usagef("demo-cluster: REST basic auth needs both --connect-user and --connect-password-file")
		}
		pw, err := readSecretFile("--connect-password-file", g.ConnectPasswordFile)
		if err != nil {
			return nil, err
		}
		a.User, a.Password = g.ConnectUser, pw
		s.restUser, s.restPWFile = g.ConnectUser, absPath(g.ConnectPasswordFile)
	}
	if g.ConnectTokenFile != "" {
		tok, err := readSecretFile("--connect-token-file", g.ConnectTokenFile)
		if err != nil {
			return nil, err
		}
		a.Token, s.restToken = strings.TrimSpace(tok), absPath(g.ConnectTokenFile)
	}
	if a.User == "" && a.Token == "" {
		return nil, nil
	}
	return &a, nil
}

// koffFlags are the flags a koff client needs for this demo's broker.
func (s demoSecurity) koffFlags() []string {
	var out []string
	if s.sasl != nil {
		out = append(out, "--sasl-mechanism", s.sasl.Mechanism, "--sasl-username", shq(s.sasl.User))
		out = appendSet(out, "--sasl-password-file", shq(s.pwFile)) // else KOFF_SASL_PASSWORD is inherited
	}
	if s.tlsDir != "" {
		out = append(out, "--tls-ca", shq(filepath.Join(s.tlsDir, "ca.pem")))
		if s.clientAuth {
			out = append(out, "--tls-cert", shq(filepath.Join(s.tlsDir, "client.pem")), "--tls-key", shq(filepath.Join(s.tlsDir, "client-key.pem")))
		}
	}
	return out
}

// connectFlags point koff at the REST emulator with matching TLS and auth.
func (s demoSecurity) connectFlags(url string) []string {
	if url == "" {
		return nil
	}
	out := []string{"--connect-url", url}
	if s.tlsDir != "" {
		out = append(out, "--connect-ca", shq(filepath.Join(s.tlsDir, "ca.pem")))
		if s.clientAuth {
			out = append(out, "--connect-cert", shq(filepath.Join(s.tlsDir, "client.pem")), "--connect-key", shq(filepath.Join(s.tlsDir, "client-key.pem")))
		}
	}
	switch {
	case s.restToken != "":
		out = append(out, "--connect-token-file", shq(s.restToken))
	case s.restUser != "":
		out = append(out, "--connect-user", shq(s.restUser), "--connect-password-file", shq(s.restPWFile))
	}
	return out
}

// kcatFlags are librdkafka's -X settings for the same broker; the
// password is read from its file by the shell, never printed.
func (s demoSecurity) kcatFlags() []string {
	var out []string
	proto := strings.SplitN(s.desc, ",", 2)[0]
	if proto == "" {
		return nil
	}
	out = append(out, "-X", "security.protocol="+proto)
	if s.sasl != nil {
		pw := `"$KOFF_SASL_PASSWORD"`
		if s.pwFile != "" {
			pw = `"$(cat ` + shq(s.pwFile) + `)"`
		}
		out = append(out, "-X", "sasl.mechanisms="+s.sasl.Mechanism, "-X", shq("sasl.username="+s.sasl.User), "-X", "sasl.password="+pw)
	}
	if s.tlsDir != "" {
		out = append(out, "-X", shq("ssl.ca.location="+filepath.Join(s.tlsDir, "ca.pem")))
		if s.clientAuth {
			out = append(out, "-X", shq("ssl.certificate.location="+filepath.Join(s.tlsDir, "client.pem")), "-X", shq("ssl.key.location="+filepath.Join(s.tlsDir, "client-key.pem")))
		}
	}
	return out
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shq quotes s for a POSIX shell when it needs it.
func shq(s string) string {
	if s == "" || shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// readSecretFile reads a password or token file, dropping the line end.
func readSecretFile(flag, path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", usagef("%s: %v", flag, err)
	}
	s := strings.TrimRight(string(b), "\r\n")
	if s == "" {
		return "", usagef("%s: %s is empty", flag, path)
	}
	return s, nil
}
