package cli

import (
	"github.com/spf13/pflag"

	"koff/kafka/security"
)

// addSecurityFlags adds the Kafka and Connect security flags. No flag
// takes a secret: passwords and tokens come from files or the environment,
// so ps(1) and shell history never show them.
func addSecurityFlags(fs *pflag.FlagSet, g *Globals) {
	fs.StringVar(&g.CommandConfig, "command-config", "", "Kafka client properties FILE, as Kafka's CLI tools take it (security.protocol, sasl.*, PEM ssl.*, client.id); flags override it")
	fs.BoolVar(&g.TLS, "tls", false, "connect to Kafka with TLS (SSL, or SASL_SSL with --sasl-mechanism)")
	fs.StringVar(&g.TLSCA, "tls-ca", "", "PEM FILE of the CA certificates to trust for Kafka (implies --tls; default: the system's)")
	fs.StringVar(&g.TLSCert, "tls-cert", "", "PEM FILE with the client certificate chain for Kafka mTLS (may hold the key too; implies --tls)")
	fs.StringVar(&g.TLSKey, "tls-key", "", "PEM FILE with the client certificate's unencrypted private key")
	fs.BoolVar(&g.InsecureSkipVerify, "insecure-skip-verify", false, "do not verify Kafka's TLS certificates at all (dangerous; the dashboard header says so)")
	fs.StringVar(&g.SASLMechanism, "sasl-mechanism", "", "SASL mechanism for Kafka: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	fs.StringVar(&g.SASLUsername, "sasl-username", "", "SASL user for Kafka")
	fs.StringVar(&g.SASLPasswordFile, "sasl-password-file", "", "FILE holding the SASL password (or env KOFF_SASL_PASSWORD; never a flag)")
	fs.StringVar(&g.ConnectTokenFile, "connect-token-file", "", "FILE holding a bearer token for Connect REST (sent as Authorization: Bearer)")
	fs.StringVar(&g.ConnectCert, "connect-cert", "", "PEM FILE with a client certificate for Connect REST mTLS (may hold the key too)")
	fs.StringVar(&g.ConnectKey, "connect-key", "", "PEM FILE with the Connect client certificate's private key")
}

// runsOwnBroker reports whether the command is demo-cluster (the only one
// with --tls-dir): there --sasl-password-file is the embedded broker's
// password, not a client's.
func runsOwnBroker(fs *pflag.FlagSet) bool { return fs.Lookup("tls-dir") != nil }

// clientSecurityFlags are the flags that shape the Kafka client's security.
var clientSecurityFlags = []string{"command-config", "tls", "tls-ca", "tls-cert", "tls-key", "insecure-skip-verify", "sasl-mechanism", "sasl-username", "sasl-password-file"}

func changed(fs *pflag.FlagSet, names ...string) string {
	for _, n := range names {
		if f := fs.Lookup(n); f != nil && f.Changed {
			return "--" + n
		}
	}
	return ""
}

// loadSecurity reads --command-config, lays the flags over it and builds
// the Security every Kafka client uses. Mistakes are usage errors (exit 2),
// one line each, never quoting a secret.
func (g *Globals) loadSecurity(fs *pflag.FlagSet) error {
	if runsOwnBroker(fs) {
		return nil // demo-cluster checks its own flags
	}
	if g.Demo {
		if f := changed(fs, clientSecurityFlags...); f != "" {
			return usagef("%s is for a real cluster (-b); --demo runs its own plaintext one (try koff demo-cluster --sasl … --tls-dir …)", f)
		}
		return nil
	}
	var s security.Settings
	if g.CommandConfig != "" {
		var err error
		if s, err = security.LoadCommandConfig(g.CommandConfig); err != nil {
			return usagef("%v", err)
		}
	}
	o := security.Overrides{
		TLS: g.TLS, CAFile: g.TLSCA, CertFile: g.TLSCert, KeyFile: g.TLSKey, InsecureSkipVerify: g.InsecureSkipVerify,
		Mechanism: g.SASLMechanism, Username: g.SASLUsername,
	}
	pw, from, err := g.saslPassword()
	if err != nil {
		return err
	}
	o.Password, o.PasswordFrom = pw, from
	if err := s.Override(o); err != nil {
		return usagef("%v", err)
	}
	sec, err := s.Build()
	if err != nil {
		return usagef("%v", err)
	}
	g.security, g.clientID = sec, s.ClientID
	if len(g.Bootstrap) == 0 {
		g.Bootstrap = s.Bootstrap
	}
	if sec != nil {
		g.logf("kafka security: %s", sec) // never the password: Security prints without it
	}
	return nil
}

// saslPassword is the password from --sasl-password-file, else from env
// KOFF_SASL_PASSWORD, and where it came from.
func (g *Globals) saslPassword() (security.Secret, string, error) {
	if g.SASLPasswordFile != "" {
		pw, err := readSecretFile("--sasl-password-file", g.SASLPasswordFile)
		if err != nil {
			return "", "", err
		}
		return security.Secret(pw), "--sasl-password-file", nil
	}
	if g.env.Getenv != nil {
		if pw := g.env.Getenv("KOFF_SASL_PASSWORD"); pw != "" {
			return security.Secret(pw), "KOFF_SASL_PASSWORD", nil
		}
	}
	return "", "", nil
}

// KafkaSecurity describes the Kafka connection's security for a header or
// banner ("SASL_SSL SCRAM-SHA-256 user alice"), without secrets.
func (g *Globals) KafkaSecurity() string { return g.security.String() }

// shownSecurity are the security flags given, for equivalent command
// lines: file paths and names only, never a secret.
func (g *Globals) shownSecurity() []string {
	var out []string
	out = appendSet(out, "--command-config", g.CommandConfig)
	if g.TLS {
		out = append(out, "--tls")
	}
	out = appendSet(out, "--tls-ca", g.TLSCA, "--tls-cert", g.TLSCert, "--tls-key", g.TLSKey)
	if g.InsecureSkipVerify {
		out = append(out, "--insecure-skip-verify")
	}
	return appendSet(out, "--sasl-mechanism", g.SASLMechanism, "--sasl-username", g.SASLUsername, "--sasl-password-file", g.SASLPasswordFile)
}

// appendSet appends each flag/value pair whose value is not empty.
func appendSet(out []string, pairs ...string) []string {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			out = append(out, pairs[i], pairs[i+1])
		}
	}
	return out
}
