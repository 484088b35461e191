package security

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

const scramModule = "org.apache.kafka.common.security.scram.ScramLoginModule"

// pki is a temp dir with a CA, a client certificate and odd files.
type pki struct {
	dir                                string
	ca, cert, key, combined, jks, encr string
	caPEM, certPEM, keyPEM, otherKey   []byte
}

func newPKI(t *testing.T) pki {
	t.Helper()
	dir := t.TempDir()
	ca := newTestCA(t)
	cert, key := ca.issue(t, x509.ExtKeyUsageClientAuth)
	_, other := ca.issue(t, x509.ExtKeyUsageClientAuth)
	return pki{
		dir: dir, caPEM: ca.pem, certPEM: cert, keyPEM: key, otherKey: other,
		ca:       writeTemp(t, dir, "ca.pem", ca.pem),
		cert:     writeTemp(t, dir, "client.pem", cert),
		key:      writeTemp(t, dir, "client-key.pem", key),
		combined: writeTemp(t, dir, "keystore.pem", append(append([]byte{}, key...), cert...)),
		jks:      writeTemp(t, dir, "truststore.jks", []byte("\xfe\xed\xfe\xed\x00\x00\x00\x02binary")),
		encr:     writeTemp(t, dir, "encrypted.pem", []byte("-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n")),
	}
}

// inlinePEM writes PEM the way people put it in a properties file: one
// line per PEM line, joined with continuations (which eat the newlines).
func inlinePEM(pem []byte) string {
	lines := strings.Split(strings.TrimSpace(string(pem)), "\n")
	return strings.Join(lines, "\\\n    ")
}

func load(t *testing.T, p pki, text string) (Settings, string, error) {
	t.Helper()
	path := writeTemp(t, p.dir, "client.properties", []byte(text))
	s, err := LoadCommandConfig(path)
	return s, path, err
}

func TestCommandConfigBuilds(t *testing.T) {
	p := newPKI(t)
	tests := []struct {
		name, text string
		check      func(t *testing.T, s Settings, sec *Security)
	}{
		{"SASL_SSL SCRAM with truststore file and ignored keys", `
# production
security.protocol = SASL_SSL
sasl.mechanism: SCRAM-SHA-512
sasl.jaas.config=` + scramModule + ` required \
    username="alice" \
    password="s3cr\\"et";
ssl.truststore.type=PEM
ssl.truststore.location=` + p.ca + `
client.id=koff-prod
request.timeout.ms=30000
retry.backoff.ms=500
`, func(t *testing.T, s Settings, sec *Security) {
			if sec.Protocol() != "SASL_SSL" || sec.Mechanism() != "SCRAM-SHA-512" || sec.User() != "alice" || s.ClientID != "koff-prod" {
				t.Errorf("got %s, client.id %q", sec, s.ClientID)
			}
			if s.Password != `s3cr"et` {
				t.Error("password not unescaped")
			}
			if sec.tls == nil || sec.tls.RootCAs == nil || sec.tls.InsecureSkipVerify {
				t.Error("TLS with the truststore expected")
			}
		}},
		{"SSL with inline truststore", "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.certificates=" + inlinePEM(p.caPEM) + "\n",
			func(t *testing.T, s Settings, sec *Security) {
				if sec.Protocol() != "SSL" || sec.tls.RootCAs == nil {
					t.Errorf("got %s", sec)
				}
			}},
		{"mTLS from a keystore PEM", "security.protocol=SSL\nssl.keystore.type=PEM\nssl.keystore.location=" + p.combined + "\nssl.truststore.location=" + p.ca + "\n",
			func(t *testing.T, s Settings, sec *Security) {
				if len(sec.tls.Certificates) != 1 || !strings.Contains(sec.String(), "client certificate") {
					t.Errorf("got %s", sec)
				}
			}},
		{"mTLS inline key and chain", "security.protocol=SSL\nssl.keystore.type=PEM\nssl.keystore.key=" + inlinePEM(p.keyPEM) + "\nssl.keystore.certificate.chain=" + inlinePEM(p.certPEM) + "\n",
			func(t *testing.T, s Settings, sec *Security) {
				if len(sec.tls.Certificates) != 1 || sec.tls.RootCAs != nil {
					t.Errorf("got %s", sec)
				}
			}},
		{"SASL_PLAINTEXT PLAIN", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=" + plainModule + " required username=\"bob\" password=\"pw\";\n",
			func(t *testing.T, s Settings, sec *Security) {
				if sec.Protocol() != "SASL_PLAINTEXT" || sec.tls != nil || sec.Mechanism() != "PLAIN" {
					t.Errorf("got %s", sec)
				}
			}},
		{"no hostname check keeps chain verification", "security.protocol=SSL\nssl.truststore.location=" + p.ca + "\nssl.endpoint.identification.algorithm=\n",
			func(t *testing.T, s Settings, sec *Security) {
				if !sec.tls.InsecureSkipVerify || sec.tls.VerifyConnection == nil || sec.Insecure() || !strings.Contains(sec.String(), "host name not verified") {
					t.Errorf("got %s", sec)
				}
			}},
		{"TLS versions", "security.protocol=SSL\nssl.protocol=TLSv1.3\nssl.enabled.protocols=TLSv1.3\n",
			func(t *testing.T, s Settings, sec *Security) {
				if sec.tls.MinVersion != tls.VersionTLS13 || sec.tls.MaxVersion != tls.VersionTLS13 {
					t.Errorf("versions %x..%x", sec.tls.MinVersion, sec.tls.MaxVersion)
				}
			}},
		{"PLAINTEXT with bootstrap", "security.protocol=PLAINTEXT\nbootstrap.servers=k1:9092, k2:9092\nssl.endpoint.identification.algorithm=https\n",
			func(t *testing.T, s Settings, sec *Security) {
				if sec != nil || strings.Join(s.Bootstrap, ",") != "k1:9092,k2:9092" {
					t.Errorf("got %v, %q", sec, s.Bootstrap)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, err := load(t, p, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			sec, err := s.Build()
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, s, sec)
		})
	}
}

func TestCommandConfigErrors(t *testing.T) {
	p := newPKI(t)
	jaas := func(module, opts string) string { return "sasl.jaas.config=" + module + " required " + opts + ";\n" }
	saslSSL := "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n"
	tests := []struct {
		name, text string
		want       string // substring; {file} is the properties file
		build      bool   // the error comes from Build, not from loading
	}{
		{"unknown key names file, line and key", "security.protocol=SSL\nfetch.max.bytes=1\n", "{file}:2: unknown key fetch.max.bytes", false},
		{"unsupported ssl key", "ssl.cipher.suites=TLS_AES_128_GCM_SHA256\n", "{file}:1: unsupported key ssl.cipher.suites", false},
		{"unsupported sasl key", "\n\nsasl.kerberos.service.name=kafka\n", "{file}:3: unsupported key sasl.kerberos.service.name", false},
		{"bad protocol", "security.protocol=TLS\n", `{file}:1: security.protocol: "TLS" is not one of`, false},
		{"GSSAPI", "sasl.mechanism=GSSAPI\n", "{file}:1: sasl.mechanism GSSAPI is not supported", false},
		{"JKS truststore", "ssl.truststore.type=JKS\nssl.truststore.location=" + p.jks + "\n", "{file}:1: ssl.truststore.type: JKS is not supported; convert it to PEM with: keytool -exportcert -rfc -keystore truststore.jks", false},
		{"PKCS12 truststore", "ssl.truststore.type=PKCS12\n", "openssl pkcs12 -in truststore.jks -nokeys -out ca.pem", false},
		{"JKS keystore", "ssl.keystore.type=JKS\n", "ssl.keystore.type: JKS is not supported; convert it to PEM with: openssl pkcs12", false},
		{"untyped store that is not PEM", "ssl.truststore.location=" + p.jks + "\n", "is not PEM (a JKS or PKCS12 store?); convert it with: keytool", false},
		{"missing truststore file", "ssl.truststore.location=" + filepath.Join(p.dir, "nope.pem") + "\n", "{file}:1: ssl.truststore.location: cannot read", false},
		{"truststore password", "ssl.truststore.type=PEM\nssl.truststore.password=s3cr3t\n", "{file}:2: ssl.truststore.password: not used with a PEM truststore", false},
		{"keystore password", "ssl.keystore.password=s3cr3t\n", "ssl.keystore.password: not used with a PEM keystore", false},
		{"key password", "ssl.key.password=s3cr3t\n", "{file}:1: ssl.key.password: the private key is encrypted, which koff does not support", false},
		{"encrypted key", "security.protocol=SSL\nssl.keystore.location=" + p.encr + "\n", "encrypted, which koff does not support; decrypt it with: openssl pkcs8", true},
		{"truststore twice", "ssl.truststore.location=" + p.ca + "\nssl.truststore.certificates=x\n", "{file}:2: ssl.truststore.certificates: give either it or ssl.truststore.location", false},
		{"key without chain", "ssl.keystore.key=x\n", "needs both ssl.keystore.key and ssl.keystore.certificate.chain", false},
		{"key does not match", "security.protocol=SSL\nssl.keystore.key=" + inlinePEM(p.otherKey) + "\nssl.keystore.certificate.chain=" + inlinePEM(p.certPEM) + "\n", "private key does not match public key", true},
		{"lost JAAS escape", saslSSL + `sasl.jaas.config=` + plainModule + ` required username="alice" password="s3cr\"et";` + "\n", `in a properties file write \\" for a JAAS \"`, false},
		{"kerberos module", saslSSL + jaas("com.sun.security.auth.module.Krb5LoginModule", "useKeyTab=true"), "login module com.sun.security.auth.module.Krb5LoginModule is not supported", false},
		{"token auth", saslSSL + jaas(scramModule, `username="a" password="s3cr3t" tokenauth=true`), "option tokenauth is not supported", false},
		{"module does not match mechanism", "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-256\n" + jaas(plainModule, `username="alice" password="s3cr3t"`), "names a PLAIN login module but sasl.mechanism is SCRAM-SHA-256 (use " + scramModule + ")", true},
		{"missing password", saslSSL + jaas(plainModule, `username="alice"`), "SASL PLAIN needs a password for user alice: password=\"…\" in sasl.jaas.config, --sasl-password-file FILE or env KOFF_SASL_PASSWORD", true},
		{"missing user", saslSSL + jaas(plainModule, `password="s3cr3t"`), "SASL PLAIN needs a user", true},
		{"SASL without mechanism", "security.protocol=SASL_SSL\n", "security.protocol SASL_SSL needs sasl.mechanism", true},
		{"mechanism without SASL", "sasl.mechanism=PLAIN\n", "sasl.mechanism is set but security.protocol is PLAINTEXT", true},
		{"JAAS without SASL", "security.protocol=SSL\n" + jaas(plainModule, `username="a" password="s3cr3t"`), "sasl.jaas.config ({file}:2) is set but security.protocol is SSL", true},
		{"TLS material without TLS", "security.protocol=SASL_PLAINTEXT\nssl.truststore.location=" + p.ca + "\n", "ssl.truststore.location ({file}:2) is set but security.protocol is SASL_PLAINTEXT", true},
		{"endpoint algorithm", "ssl.endpoint.identification.algorithm=dns\n", `"dns" is not https or empty`, false},
		{"old TLS", "ssl.enabled.protocols=TLSv1.2,TLSv1.1\n", `"TLSv1.1" is not supported (koff speaks TLSv1.2 and TLSv1.3)`, false},
		{"bad escape", "client.id=\\uXYZW\n", "{file}:1: client.id: malformed \\uXXXX escape", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, file, err := load(t, p, tt.text)
			if err == nil && tt.build {
				_, err = s.Build()
			} else if tt.build {
				t.Fatalf("load: %v", err)
			}
			want := strings.ReplaceAll(tt.want, "{file}", file)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v\nwant %q", err, want)
			}
			if strings.Contains(err.Error(), "s3cr") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error leaks a secret or spans lines: %q", err)
			}
		})
	}
}

func TestOverrides(t *testing.T) {
	p := newPKI(t)
	other := newTestCA(t)
	otherCA := writeTemp(t, p.dir, "other-ca.pem", other.pem)
	file := "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=" + plainModule + ` required username="alice" password="wrong";` + "\n"
	tests := []struct {
		name  string
		file  string
		o     Overrides
		want  string // Security.String()
		check func(t *testing.T, s Settings)
	}{
		{"flags win over the file", file, Overrides{Username: "bob", Password: "right", PasswordFrom: "--sasl-password-file"}, "SASL_PLAINTEXT PLAIN user bob",
			func(t *testing.T, s Settings) {
				if s.Password != "right" {
					t.Error("password not overridden")
				}
			}},
		{"env password overrides the file too", file, Overrides{Password: "env", PasswordFrom: "KOFF_SASL_PASSWORD"}, "SASL_PLAINTEXT PLAIN user alice",
			func(t *testing.T, s Settings) {
				if s.Password != "env" {
					t.Error("password not overridden")
				}
			}},
		{"--tls raises to SASL_SSL", file, Overrides{TLS: true}, "SASL_SSL PLAIN user alice", nil},
		{"another mechanism keeps the JAAS user", file, Overrides{Mechanism: "scram-sha-512"}, "SASL_PLAINTEXT SCRAM-SHA-512 user alice", nil},
		{"--tls-ca replaces the truststore", "security.protocol=SSL\nssl.truststore.location=" + p.ca + "\n", Overrides{CAFile: otherCA}, "SSL",
			func(t *testing.T, s Settings) {
				if !bytes.Equal(s.TrustPEM, other.pem) {
					t.Error("truststore not replaced")
				}
			}},
		{"--tls-ca alone is SSL", "", Overrides{CAFile: p.ca}, "SSL", nil},
		{"client cert holding its key", "", Overrides{CertFile: p.combined}, "SSL, client certificate", nil},
		{"client cert and key", "", Overrides{CertFile: p.cert, KeyFile: p.key}, "SSL, client certificate", nil},
		{"--sasl-mechanism alone is SASL_PLAINTEXT", "", Overrides{Mechanism: "PLAIN", Username: "u", Password: "p", PasswordFrom: "--sasl-password-file"}, "SASL_PLAINTEXT PLAIN user u", nil},
		{"insecure", "", Overrides{InsecureSkipVerify: true}, "SSL, certificates NOT verified", nil},
		{"env password alone is ignored", "", Overrides{Password: "p", PasswordFrom: "KOFF_SASL_PASSWORD"}, "PLAINTEXT", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Settings
			if tt.file != "" {
				var err error
				if s, _, err = load(t, p, tt.file); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Override(tt.o); err != nil {
				t.Fatal(err)
			}
			sec, err := s.Build()
			if err != nil {
				t.Fatal(err)
			}
			if sec.String() != tt.want {
				t.Errorf("got %q, want %q", sec, tt.want)
			}
			if tt.o.InsecureSkipVerify != sec.Insecure() {
				t.Error("Insecure() wrong")
			}
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
}

func TestOverrideErrors(t *testing.T) {
	p := newPKI(t)
	tests := []struct {
		o    Overrides
		want string
	}{
		{Overrides{Password: "s3cr3t", PasswordFrom: "--sasl-password-file"}, "--sasl-password-file needs --sasl-mechanism"},
		{Overrides{Username: "alice"}, "--sasl-username needs --sasl-mechanism"},
		{Overrides{KeyFile: p.key}, "--tls-key needs --tls-cert"},
		{Overrides{Mechanism: "OAUTHBEARER"}, "--sasl-mechanism OAUTHBEARER is not supported (koff speaks PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)"},
		{Overrides{CAFile: filepath.Join(p.dir, "missing.pem")}, "--tls-ca: cannot read " + filepath.Join(p.dir, "missing.pem") + ": no such file or directory"},
	}
	for _, tt := range tests {
		var s Settings
		err := s.Override(tt.o)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "s3cr") {
			t.Errorf("%+v: err = %v, want %q", tt.o, err, tt.want)
		}
	}
	// Material that is not what it claims to be fails at Build, naming the flag.
	for _, o := range []Overrides{{CAFile: p.key}, {CertFile: p.cert}} {
		var s Settings
		if err := s.Override(o); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Build(); err == nil || !strings.Contains(err.Error(), "--tls-") {
			t.Errorf("%+v: Build err = %v", o, err)
		}
	}
}

// Printing settings or a Security never shows a secret.
func TestSecretsDoNotPrint(t *testing.T) {
	p := newPKI(t)
	s := Settings{Mechanism: "PLAIN", Username: "alice", Password: "s3cr3t-pw", Protocol: "SASL_SSL", KeyPEM: Secret(p.keyPEM), CertPEM: p.certPEM}
	sec, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{s, &s, sec} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			out := fmt.Sprintf(verb, v)
			if strings.Contains(out, "s3cr3t") || strings.Contains(out, "PRIVATE KEY") {
				t.Errorf("%s of %T leaks: %s", verb, v, out)
			}
		}
	}
}
