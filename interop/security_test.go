package interop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clientProperties writes a Kafka client.properties for the SASL_SSL
// listener, as an operator gives Kafka's own tools with --command-config:
// SCRAM-SHA-512 and a client certificate, the stores as PEM files.
func (s *Stack) clientProperties(t *testing.T, withCert bool) string {
	t.Helper()
	dir := t.TempDir()
	lines := []string{
		"security.protocol=SASL_SSL",
		"sasl.mechanism=SCRAM-SHA-512",
		fmt.Sprintf(`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="%s";`, SCRAMUser, SCRAMPassword),
		"ssl.truststore.type=PEM",
		"ssl.truststore.location=" + s.TLS.CA,
	}
	if withCert {
		keystore := filepath.Join(dir, "client-keystore.pem")
		if err := concat(keystore, s.TLS.ClientKey, s.TLS.ClientCert); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, "ssl.keystore.type=PEM", "ssl.keystore.location="+keystore)
	}
	path := filepath.Join(dir, "client.properties")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSecureListener: on the broker's SASL_SSL listener (SCRAM-SHA-512 and a
// required client certificate) koff get reads the offsets with the same
// client.properties Kafka's own kafka-consumer-groups accepts.
func TestSecureListener(t *testing.T) {
	s := realStack(t)
	f := s.newFileConnector(t, "secure-file", 4)
	props := s.clientProperties(t, true)

	// Kafka's own tool takes the file: it is a standard client.properties.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := s.Tool(ctx, s.JVM("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
		"--bootstrap-server", s.SecureBootstrap, "--command-config", props, "--list")...)
	if err != nil {
		t.Fatalf("kafka-consumer-groups --command-config on SASL_SSL: %v\n%s", err, out)
	}

	want := canonical(t, s.connectOffsets(t, f.name))
	var got offsetsBody
	decode(t, []byte(mustKoff(t, "get", f.name, "-o", "json", "-b", s.SecureBootstrap, "--command-config", props)), &got)
	if g := canonical(t, got); strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("koff get over SASL_SSL: %v, Connect: %v", g, want)
	}

	// Without the client certificate the broker refuses the handshake:
	// one line, exit 1.
	o, errs, code := koff(t, "get", f.name, "-o", "json", "-b", s.SecureBootstrap, "--command-config", s.clientProperties(t, false))
	if code != 1 || o != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 || errs == "" {
		t.Errorf("koff get without a client certificate: exit %d, stdout %q, stderr %q; want exit 1 and one line", code, o, errs)
	}
	t.Logf("without a client certificate: %s", strings.TrimSpace(errs))
}
