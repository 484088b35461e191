// Package security is how koff reaches a Kafka listener with TLS and SASL:
// Settings from flags and --command-config (Java properties, JAAS, PEM
// files) are checked and built into a Security, whose Dial and SASL every
// client of package kafka uses, and Describe turns what failed into one
// line that says what to do.
package security

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"
)

// Secret is a password: fmt prints it as [redacted], so a Settings or an
// error that holds one cannot leak it by being printed.
type Secret string

func (Secret) String() string   { return "[redacted]" }
func (Secret) GoString() string { return `"[redacted]"` }

// Mechanisms are the SASL mechanisms koff speaks.
var Mechanisms = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}

// Settings are the security settings read from --command-config and
// flags, before they are checked and built into a Security.
type Settings struct {
	Protocol  string // security.protocol; "" when not given (PLAINTEXT unless a flag implies more)
	Mechanism string // sasl.mechanism
	Username  string
	Password  Secret

	TrustPEM []byte // CA certificates to trust (PEM); the system's roots when empty
	CertPEM  []byte // client certificate chain (PEM) for mTLS
	KeyPEM   Secret // its private key (PEM, unencrypted); prints as [redacted]

	NoHostnameCheck    bool   // ssl.endpoint.identification.algorithm= : verify the chain, not the name
	InsecureSkipVerify bool   // --insecure-skip-verify: verify nothing
	MinTLS, MaxTLS     uint16 // from ssl.enabled.protocols; 0: TLS 1.2 up to the newest
	ClientID           string
	Bootstrap          []string // bootstrap.servers, used when -b is not given

	// Where settings came from, for messages: "security.protocol
	// (client.properties:3)" or "--tls".
	protocolFrom, sslFrom, jaasFrom string
	trustFrom, certFrom             string
	jaasFamily                      string // "PLAIN" or "SCRAM", from the login module
	tlsFlag, saslFlag               bool   // flags that raise the protocol
}

// Overrides are the command-line flags; each one given wins over
// --command-config.
type Overrides struct {
	TLS                bool   // --tls
	CAFile             string // --tls-ca
	CertFile           string // --tls-cert (may also hold the key)
	KeyFile            string // --tls-key
	InsecureSkipVerify bool   // --insecure-skip-verify
	Mechanism          string // --sasl-mechanism
	Username           string // --sasl-username
	// Password and where it came from: "--sasl-password-file" or
	// "KOFF_SASL_PASSWORD". Never a plain flag: ps(1) would show it.
	Password     Secret
	PasswordFrom string
}

// Override applies the flags to s: giving TLS material (--tls-ca,
// --tls-cert, --tls-key, --insecure-skip-verify) or --tls turns TLS on,
// --sasl-mechanism turns SASL on, keeping the other half of the protocol.
func (s *Settings) Override(o Overrides) error {
	if o.TLS || o.CAFile != "" || o.CertFile != "" || o.KeyFile != "" || o.InsecureSkipVerify {
		s.tlsFlag = true
	}
	if o.CAFile != "" {
		pem, err := readPEMFile("--tls-ca", o.CAFile)
		if err != nil {
			return err
		}
		s.TrustPEM, s.trustFrom = pem, "--tls-ca "+o.CAFile
	}
	switch {
	case o.KeyFile != "" && o.CertFile == "":
		return errors.New("--tls-key needs --tls-cert")
	case o.CertFile != "":
		cert, err := readPEMFile("--tls-cert", o.CertFile)
		if err != nil {
			return err
		}
		key := cert // a PEM that holds the key and the chain, like ssl.keystore.location
		if o.KeyFile != "" {
			if key, err = readPEMFile("--tls-key", o.KeyFile); err != nil {
				return err
			}
		}
		s.CertPEM, s.KeyPEM, s.certFrom = cert, Secret(key), "--tls-cert "+o.CertFile
	}
	if o.InsecureSkipVerify {
		s.InsecureSkipVerify = true
	}
	if o.Mechanism != "" {
		m, err := checkMechanism("--sasl-mechanism", o.Mechanism)
		if err != nil {
			return err
		}
		if s.jaasFamily != "" && s.jaasFamily != family(m) {
			// The file's login module was for another mechanism: its
			// username and password may still serve, the module does not.
			s.jaasFamily = ""
		}
		s.Mechanism, s.saslFlag = m, true
	}
	if o.Username != "" {
		s.Username = o.Username
	}
	if o.Password != "" {
		if s.Mechanism == "" && o.PasswordFrom != "KOFF_SASL_PASSWORD" {
			return fmt.Errorf("%s needs --sasl-mechanism (%s)", o.PasswordFrom, strings.Join(Mechanisms, ", "))
		}
		if s.Mechanism != "" {
			s.Password = o.Password
		}
	}
	if o.Username != "" && s.Mechanism == "" {
		return fmt.Errorf("--sasl-username needs --sasl-mechanism (%s)", strings.Join(Mechanisms, ", "))
	}
	return nil
}

func checkMechanism(from, m string) (string, error) {
	m = strings.ToUpper(strings.TrimSpace(m))
	for _, ok := range Mechanisms {
		if m == ok {
			return m, nil
		}
	}
	return "", fmt.Errorf("%s %s is not supported (koff speaks %s)", from, m, strings.Join(Mechanisms, ", "))
}

// readPEMFile reads a certificate or key file named by a flag or key. The
// message names the file, never its contents.
func readPEMFile(from, path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: cannot read %s: %v", from, path, err)
	}
	return b, nil
}

// Build checks the settings and makes the Security every client uses.
// The zero Settings build to nil: PLAINTEXT.
func (s Settings) Build() (*Security, error) {
	proto, err := s.protocol()
	if err != nil {
		return nil, err
	}
	sec := &Security{protocol: proto}
	useTLS := proto == "SSL" || proto == "SASL_SSL"
	useSASL := proto == "SASL_PLAINTEXT" || proto == "SASL_SSL"
	if !useTLS && s.sslFrom != "" {
		return nil, fmt.Errorf("%s is set but security.protocol is %s (use SSL or SASL_SSL, or pass --tls)", s.sslFrom, proto)
	}
	if !useSASL && (s.Mechanism != "" || s.jaasFrom != "") {
		from := "sasl.mechanism"
		if s.Mechanism == "" {
			from = s.jaasFrom
		}
		return nil, fmt.Errorf("%s is set but security.protocol is %s (use SASL_PLAINTEXT or SASL_SSL)", from, proto)
	}
	if useTLS {
		if sec.tls, err = s.tlsConfig(); err != nil {
			return nil, err
		}
		sec.insecure, sec.noHostname, sec.mtls = s.InsecureSkipVerify, s.NoHostnameCheck, len(s.CertPEM) > 0
	}
	if useSASL {
		if err := s.buildSASL(sec); err != nil {
			return nil, err
		}
	}
	if proto == "PLAINTEXT" {
		return nil, nil
	}
	return sec, nil
}

// protocol is the effective security.protocol: the file's, raised by the
// flags (--tls adds SSL, --sasl-mechanism adds SASL).
func (s Settings) protocol() (string, error) {
	p := strings.ToUpper(strings.TrimSpace(s.Protocol))
	if p == "" {
		p = "PLAINTEXT"
	}
	tlsOn := p == "SSL" || p == "SASL_SSL" || s.tlsFlag
	saslOn := p == "SASL_PLAINTEXT" || p == "SASL_SSL" || s.saslFlag
	switch p {
	case "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL":
	default:
		from := s.protocolFrom
		if from == "" {
			from = "security.protocol"
		}
		return "", fmt.Errorf("%s: %s is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL", from, p)
	}
	switch {
	case tlsOn && saslOn:
		return "SASL_SSL", nil
	case saslOn:
		return "SASL_PLAINTEXT", nil
	case tlsOn:
		return "SSL", nil
	}
	return "PLAINTEXT", nil
}

func (s Settings) buildSASL(sec *Security) error {
	if s.Mechanism == "" {
		return fmt.Errorf("security.protocol %s needs sasl.mechanism or --sasl-mechanism (koff speaks %s; Kafka's default GSSAPI is not supported)", sec.protocol, strings.Join(Mechanisms, ", "))
	}
	if s.jaasFamily != "" && s.jaasFamily != family(s.Mechanism) {
		want := "org.apache.kafka.common.security.plain.PlainLoginModule"
		if family(s.Mechanism) == "SCRAM" {
			want = "org.apache.kafka.common.security.scram.ScramLoginModule"
		}
		return fmt.Errorf("%s names a %s login module but sasl.mechanism is %s (use %s)", s.jaasFrom, s.jaasFamily, s.Mechanism, want)
	}
	if s.Username == "" {
		return fmt.Errorf("SASL %s needs a user: username=\"…\" in sasl.jaas.config, or --sasl-username", s.Mechanism)
	}
	if s.Password == "" {
		return fmt.Errorf("SASL %s needs a password for user %s: password=\"…\" in sasl.jaas.config, --sasl-password-file FILE or env KOFF_SASL_PASSWORD", s.Mechanism, s.Username)
	}
	var m sasl.Mechanism = plain.Mechanism{Username: s.Username, Password: string(s.Password)}
	if s.Mechanism != "PLAIN" {
		algo := scram.SHA256
		if s.Mechanism == "SCRAM-SHA-512" {
			algo = scram.SHA512
		}
		var err error
		if m, err = scram.Mechanism(algo, s.Username, string(s.Password)); err != nil {
			// SASLprep refused the user or password; say which, not what.
			return fmt.Errorf("SASL %s: user %s or its password has characters SCRAM cannot use", s.Mechanism, s.Username)
		}
	}
	sec.mech, sec.mechName, sec.user = m, s.Mechanism, s.Username
	return nil
}

// Security is a checked TLS and SASL set-up, shared by every connection
// koff makes. A nil *Security is PLAINTEXT. Printing one shows the
// protocol, mechanism and user, never a secret.
type Security struct {
	protocol   string
	tls        *tls.Config
	mech       sasl.Mechanism
	mechName   string
	user       string
	insecure   bool // certificates not verified at all
	noHostname bool // chain verified, host name not
	mtls       bool
}

// Protocol is security.protocol: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL.
func (s *Security) Protocol() string {
	if s == nil {
		return "PLAINTEXT"
	}
	return s.protocol
}

// Insecure reports --insecure-skip-verify: TLS without certificate checks.
func (s *Security) Insecure() bool { return s != nil && s.insecure }

// User is the SASL user, "" without SASL.
func (s *Security) User() string {
	if s == nil {
		return ""
	}
	return s.user
}

// Mechanism is the SASL mechanism, "" without SASL.
func (s *Security) Mechanism() string {
	if s == nil {
		return ""
	}
	return s.mechName
}

// SASL is the mechanism every connection authenticates with, nil without
// SASL.
func (s *Security) SASL() sasl.Mechanism {
	if s == nil {
		return nil
	}
	return s.mech
}

// String describes the set-up for a header or a log line, e.g.
// "SASL_SSL SCRAM-SHA-256 user alice, client certificate".
func (s *Security) String() string {
	if s == nil {
		return "PLAINTEXT"
	}
	out := s.protocol
	if s.mechName != "" {
		out += " " + s.mechName + " user " + s.user
	}
	var notes []string
	if s.mtls {
		notes = append(notes, "client certificate")
	}
	if s.insecure {
		notes = append(notes, "certificates NOT verified")
	} else if s.noHostname {
		notes = append(notes, "host name not verified")
	}
	if len(notes) > 0 {
		out += ", " + strings.Join(notes, ", ")
	}
	return out
}

// GoString keeps %#v from printing the mechanism's fields.
func (s *Security) GoString() string { return "kafka.Security(" + s.String() + ")" }
