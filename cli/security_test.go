package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/twmb/franz-go/pkg/kgo"

	"koff/demo"
	"koff/model/java"
)

const (
	testUser     = "alice"
	testPassword = "s3cr3t-P4ss"
)

// koffWithEnv is koff with environment variables.
func koffWithEnv(t *testing.T, vars map[string]string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb strings.Builder
	code := Main(args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }})
	return out.String(), errb.String(), code
}

func secFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// secureOffsets starts a secured broker with a connect-offsets topic that
// holds one record of connector jdbc-src, written by the broker's own
// authenticated client.
func secureOffsets(t *testing.T, o demo.BrokerOptions) *demo.Broker {
	t.Helper()
	b, err := demo.StartBrokerWith(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if err := b.CreateTopic("connect-offsets", 25, map[string]string{"cleanup.policy": "compact"}); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(append(b.ClientOpts(), kgo.SeedBrokers(b.Bootstrap()), kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	key := []byte(`["jdbc-src",{"table":"orders"}]`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec := &kgo.Record{Topic: "connect-offsets", Partition: int32(java.PartitionFor(key, 25)), Key: key, Value: []byte(`{"incrementing":42}`)}
	if err := cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return b
}

// tlsFiles is the broker's TLS directory: ca.pem, client.pem, ...
func tlsFiles(t *testing.T, b *demo.Broker) *demo.TLSFiles {
	t.Helper()
	if b.TLS() == nil {
		t.Fatal("broker has no TLS")
	}
	return b.TLS()
}

func expectGet(t *testing.T, vars map[string]string, args ...string) {
	t.Helper()
	out, errOut, code := koffWithEnv(t, vars, append([]string{"get", "-o", "json", "--timeout", "10s"}, args...)...)
	if code != 0 || !strings.Contains(out, `"jdbc-src"`) || !strings.Contains(out, `"incrementing":42`) {
		t.Fatalf("koff get %q: exit %d\nstdout %s\nstderr %s", args, code, out, errOut)
	}
	if strings.Contains(out+errOut, testPassword) {
		t.Error("output shows the password")
	}
}

// expectFail runs koff get, wants exit 1 within 10 s and want on stderr.
func expectFail(t *testing.T, want string, args ...string) {
	t.Helper()
	start := time.Now()
	_, errOut, code := koff(t, append([]string{"get", "--timeout", "30s"}, args...)...)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("failing took %s, want under 10s", took)
	}
	if code != ExitFailed || !strings.Contains(errOut, want) {
		t.Fatalf("exit %d, stderr %q; want exit 1 and %q", code, errOut, want)
	}
	if strings.Count(strings.TrimSpace(errOut), "\n") > 0 || strings.Contains(errOut, testPassword) {
		t.Errorf("stderr is not one clean line: %q", errOut)
	}
}

func TestGetWithSASL(t *testing.T) {
	for _, mech := range []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"} {
		t.Run(mech, func(t *testing.T) {
			dir := t.TempDir()
			b := secureOffsets(t, demo.BrokerOptions{SASL: &demo.SASL{Mechanism: mech, User: testUser, Password: testPassword}})
			pw := secFile(t, dir, "pw", testPassword+"\n")
			bad := secFile(t, dir, "bad", "wrong\n")

			// Flags, with the password from a file or the environment.
			expectGet(t, nil, "-b", b.Bootstrap(), "--sasl-mechanism", mech, "--sasl-username", testUser, "--sasl-password-file", pw)
			expectGet(t, map[string]string{"KOFF_SASL_PASSWORD": testPassword}, "-b", b.Bootstrap(), "--sasl-mechanism", mech, "--sasl-username", testUser)
			// A client.properties as Kafka's tools take it.
			module := "org.apache.kafka.common.security.plain.PlainLoginModule"
			if mech != "PLAIN" {
				module = "org.apache.kafka.common.security.scram.ScramLoginModule"
			}
			props := secFile(t, dir, "client.properties", "bootstrap.servers="+b.Bootstrap()+"\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism="+mech+
				"\nsasl.jaas.config="+module+" required \\\n  username=\""+testUser+"\" \\\n  password=\""+testPassword+"\";\n")
			expectGet(t, nil, "--command-config", props) // bootstrap.servers stands in for -b

			expectFail(t, "authentication failed for user alice ("+mech+")", "-b", b.Bootstrap(), "--sasl-mechanism", mech, "--sasl-username", testUser, "--sasl-password-file", bad)
		})
	}
}

// Flags win over --command-config, in both directions.
func TestFlagsOverrideCommandConfig(t *testing.T) {
	dir := t.TempDir()
	b := secureOffsets(t, demo.BrokerOptions{SASL: &demo.SASL{Mechanism: "SCRAM-SHA-256", User: testUser, Password: testPassword}})
	pw := secFile(t, dir, "pw", testPassword)
	bad := secFile(t, dir, "bad", "wrong")
	jaas := func(user, password string) string {
		return "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\"" + password + "\";\n"
	}
	wrongFile := secFile(t, dir, "wrong.properties", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n"+jaas("mallory", "nope"))
	rightFile := secFile(t, dir, "right.properties", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n"+jaas(testUser, testPassword))
	// A PLAIN file: --sasl-mechanism switches the mechanism and keeps the user.
	plainFile := secFile(t, dir, "plain.properties", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"+
		"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\""+testUser+"\" password=\""+testPassword+"\";\n")

	expectGet(t, nil, "-b", b.Bootstrap(), "--command-config", wrongFile, "--sasl-username", testUser, "--sasl-password-file", pw)
	expectGet(t, nil, "-b", b.Bootstrap(), "--command-config", plainFile, "--sasl-mechanism", "SCRAM-SHA-256")
	expectFail(t, "authentication failed for user alice (SCRAM-SHA-256)", "-b", b.Bootstrap(), "--command-config", rightFile, "--sasl-password-file", bad)
	expectFail(t, "authentication failed for user mallory", "-b", b.Bootstrap(), "--command-config", wrongFile)
}

func TestGetWithTLS(t *testing.T) {
	dir, otherDir := t.TempDir(), t.TempDir()
	other, err := demo.WriteTLS(otherDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("server certificate", func(t *testing.T) {
		b := secureOffsets(t, demo.BrokerOptions{TLSDir: filepath.Join(dir, "tls")})
		f := tlsFiles(t, b)
		expectGet(t, nil, "-b", b.Bootstrap(), "--tls-ca", f.CA)
		props := secFile(t, dir, "ssl.properties", "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location="+f.CA+"\n")
		expectGet(t, nil, "-b", b.Bootstrap(), "--command-config", props)
		expectFail(t, "TLS: certificate signed by unknown authority (give the broker's CA with --tls-ca or ssl.truststore.location)", "-b", b.Bootstrap(), "--tls-ca", other.CA)
		expectFail(t, "TLS: certificate signed by unknown authority", "-b", b.Bootstrap(), "--tls") // the system's roots
		expectFail(t, "closed the connection on the first request (a TLS listener?", "-b", b.Bootstrap())
	})
	t.Run("client certificates and SASL", func(t *testing.T) {
		sasl := &demo.SASL{Mechanism: "SCRAM-SHA-512", User: testUser, Password: testPassword}
		b := secureOffsets(t, demo.BrokerOptions{TLSDir: filepath.Join(dir, "mtls"), TLSClientAuth: true, SASL: sasl})
		f := tlsFiles(t, b)
		pw := secFile(t, dir, "pw", testPassword)
		sasl512 := []string{"--sasl-mechanism", "SCRAM-SHA-512", "--sasl-username", testUser, "--sasl-password-file", pw}
		expectGet(t, nil, append([]string{"-b", b.Bootstrap(), "--tls-ca", f.CA, "--tls-cert", f.ClientCert, "--tls-key", f.ClientKey}, sasl512...)...)

		// SASL_SSL from a client.properties with a PEM keystore (key and chain in one file).
		chain, _ := os.ReadFile(f.ClientCert)
		key, _ := os.ReadFile(f.ClientKey)
		keystore := secFile(t, dir, "keystore.pem", string(key)+string(chain))
		props := secFile(t, dir, "mtls.properties", "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"+
			"sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\""+testUser+"\" password=\""+testPassword+"\";\n"+
			"ssl.truststore.type=PEM\nssl.truststore.location="+f.CA+"\nssl.keystore.type=PEM\nssl.keystore.location="+keystore+"\n")
		expectGet(t, nil, "-b", b.Bootstrap(), "--command-config", props)

		expectFail(t, "TLS: the broker requires a client certificate (give --tls-cert and --tls-key, or ssl.keystore.location)",
			append([]string{"-b", b.Bootstrap(), "--tls-ca", f.CA}, sasl512...)...)
		expectFail(t, "TLS: the broker rejected the client certificate",
			append([]string{"-b", b.Bootstrap(), "--tls-ca", f.CA, "--tls-cert", other.ClientCert, "--tls-key", other.ClientKey}, sasl512...)...)
		expectFail(t, "closed the connection after the first answer (a SASL listener?", "-b", b.Bootstrap(), "--tls-ca", f.CA, "--tls-cert", f.ClientCert, "--tls-key", f.ClientKey)
	})
}

func TestSecurityUsageErrors(t *testing.T) {
	dir := t.TempDir()
	pw := secFile(t, dir, "pw", testPassword)
	unknown := secFile(t, dir, "unknown.properties", "security.protocol=SSL\nfetch.max.bytes=1\n")
	jks := secFile(t, dir, "jks.properties", "ssl.truststore.type=JKS\n")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"get", "-b", "x:1", "--command-config", unknown}, unknown + ":2: unknown key fetch.max.bytes"},
		{[]string{"get", "-b", "x:1", "--command-config", jks}, "keytool -exportcert -rfc"},
		{[]string{"get", "-b", "x:1", "--command-config", filepath.Join(dir, "none")}, "--command-config: cannot read"},
		{[]string{"get", "-b", "x:1", "--sasl-password-file", pw}, "--sasl-password-file needs --sasl-mechanism"},
		{[]string{"get", "-b", "x:1", "--sasl-mechanism", "PLAIN", "--sasl-username", "a"}, "SASL PLAIN needs a password for user a"},
		{[]string{"get", "-b", "x:1", "--sasl-mechanism", "GSSAPI"}, "--sasl-mechanism GSSAPI is not supported"},
		{[]string{"--demo", "--tls"}, "--tls is for a real cluster (-b)"},
		{[]string{"get", "-b", "x:1", "--connect-token-file", pw}, "need --connect-url"},
		{[]string{"demo-cluster", "--tls-client-auth"}, "--tls-client-auth needs --tls-dir"},
		{[]string{"demo-cluster", "--tls-ca", pw}, "demo-cluster: --tls-ca is a client flag"},
		{[]string{"demo-cluster", "--sasl", "PLAIN"}, "--sasl PLAIN needs a password"},
		{[]string{"demo-cluster", "--sasl", "GSSAPI", "--sasl-password-file", pw}, "--sasl GSSAPI is not one of"},
	}
	for _, tt := range tests {
		_, errOut, code := koff(t, tt.args...)
		if code != ExitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", tt.args, code, errOut, tt.want)
		}
		if strings.Contains(errOut, testPassword) {
			t.Errorf("%q: stderr shows the password", tt.args)
		}
	}
}

// Equivalent command lines name files, never what is in them.
func TestShownGlobalsHaveNoSecrets(t *testing.T) {
	dir := t.TempDir()
	pw := secFile(t, dir, "pw", testPassword)
	tok := secFile(t, dir, "tok", "t0ken-"+testPassword)
	_, err := parseGlobals(t, "-b", "k:9093", "--tls", "--sasl-mechanism", "SCRAM-SHA-256", "--sasl-username", "alice", "--sasl-password-file", pw,
		"--connect-url", "https://ops:"+testPassword+"@connect:8083", "--connect-token-file", tok)
	if err == nil {
		t.Fatal("basic auth in the URL and a token together should be refused")
	}
	g, err := parseGlobals(t, "-b", "k:9093", "--tls", "--sasl-mechanism", "SCRAM-SHA-256", "--sasl-username", "alice", "--sasl-password-file", pw,
		"--connect-url", "https://connect:8083", "--connect-token-file", tok)
	if err != nil {
		t.Fatal(err)
	}
	c, err := g.connectClient()
	if err != nil {
		t.Fatal(err)
	}
	shown := strings.Join(g.shownGlobals(c), " ")
	want := "-b k:9093 --tls --sasl-mechanism SCRAM-SHA-256 --sasl-username alice --sasl-password-file " + pw + " --connect-url https://connect:8083 --connect-token-file " + tok
	if shown != want {
		t.Errorf("shown %q\nwant  %q", shown, want)
	}
	if g.KafkaSecurity() != "SASL_SSL SCRAM-SHA-256 user alice" || g.kafkaConfig().Insecure() {
		t.Errorf("security %q", g.KafkaSecurity())
	}
}

// parseGlobals parses global flags the way run does, connect client included.
func parseGlobals(t *testing.T, args ...string) (*Globals, error) {
	t.Helper()
	fs := pflag.NewFlagSet("koff get", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g := addGlobals(fs, Env{Getenv: func(string) string { return "" }})
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if err := g.finish(fs); err != nil {
		return nil, err
	}
	_, err := g.connectClient()
	return g, err
}
