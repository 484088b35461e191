package security

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
)

// secureBroker runs kfake with the given options on a free loopback port.
func secureBroker(t *testing.T, opts ...kfake.Opt) string {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()[0]
}

func metadata(t *testing.T, addr string, sec *Security) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// What kafka.Config's clients do: TLS in Dial, SASL in kafka-go.
	tr := &kafkago.Transport{Dial: sec.Dial, SASL: sec.SASL()}
	defer tr.CloseIdleConnections()
	c := &kafkago.Client{Addr: kafkago.TCP(addr), Transport: tr, Timeout: 10 * time.Second}
	_, err := c.Metadata(ctx, &kafkago.MetadataRequest{})
	return err
}

func build(t *testing.T, s Settings) *Security {
	t.Helper()
	sec, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	return sec
}

// A certificate for another name fails the host-name check with advice;
// ssl.endpoint.identification.algorithm= drops only that check, so a
// certificate from another CA still fails.
func TestTLSHostnameVerification(t *testing.T) {
	ca, other := newTestCA(t), newTestCA(t)
	certPEM, keyPEM := ca.issue(t, x509.ExtKeyUsageServerAuth, "kafka.example", "10.1.2.3")
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	addr := secureBroker(t, kfake.TLS(&tls.Config{Certificates: []tls.Certificate{cert}}))

	err = metadata(t, addr, build(t, Settings{Protocol: "SSL", TrustPEM: ca.pem}))
	want := "TLS: certificate is valid for 10.1.2.3, not 127.0.0.1 (connect by a name the certificate has, or set ssl.endpoint.identification.algorithm= to skip only the host-name check)"
	if got := Describe(err); got != want {
		t.Errorf("Describe = %q\nwant      %q", got, want)
	}
	if err := metadata(t, addr, build(t, Settings{Protocol: "SSL", TrustPEM: ca.pem, NoHostnameCheck: true})); err != nil {
		t.Errorf("without the host-name check: %v", err)
	}
	err = metadata(t, addr, build(t, Settings{Protocol: "SSL", TrustPEM: other.pem, NoHostnameCheck: true}))
	if got := Describe(err); !strings.Contains(got, "TLS: certificate signed by unknown authority (give the broker's CA with --tls-ca") {
		t.Errorf("another CA without the host-name check: %q", got)
	}
	if err := metadata(t, addr, build(t, Settings{Protocol: "SSL", InsecureSkipVerify: true})); err != nil {
		t.Errorf("insecure: %v", err)
	}
}

// Brokers that answer with SASL_AUTHENTICATION_FAILED (real Kafka) get the
// broker's words, with the user when the config is known.
func TestDescribeAuthErrors(t *testing.T) {
	sec := build(t, Settings{Mechanism: "SCRAM-SHA-512", Username: "alice", Password: "x", Protocol: "SASL_SSL"})
	err := fmt.Errorf("kafka.(*Client).Metadata: %w", fmt.Errorf("%w: %s", kafkago.SASLAuthenticationFailed, "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"))
	if got, want := sec.Describe(err), "authentication failed for user alice (SCRAM-SHA-512): Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"; got != want {
		t.Errorf("Security.Describe = %q", got)
	}
	if got := Describe(kafkago.SASLAuthenticationFailed); got != "authentication failed: the broker refused the credentials" {
		t.Errorf("Describe = %q", got)
	}
	if got := sec.Describe(kafkago.UnsupportedSASLMechanism); !strings.HasPrefix(got, "the broker does not enable SCRAM-SHA-512 on this listener") {
		t.Errorf("unsupported mechanism: %q", got)
	}
}

// The broker hanging up is explained by the request it hung up on.
func TestHangUpErrors(t *testing.T) {
	tests := []struct {
		e    HangUpError
		want string
	}{
		{HangUpError{Addr: "k:9093", API: apiSASLAuthenticate, Mechanism: "PLAIN", User: "bob", Answers: 2, Waiting: true}, "authentication failed for user bob (PLAIN): the broker closed the connection"},
		{HangUpError{Addr: "k:9093", API: apiVersions, First: true}, "the broker at k:9093 closed the connection on the first request (a TLS listener?"},
		{HangUpError{Addr: "k:9093", API: 3, Answers: 1}, "the broker at k:9093 closed the connection after the first answer (a SASL listener?"},
		// A plaintext connection that answered for a while and then hung
		// up or was reset says only that: no guess at SASL or TLS.
		{HangUpError{Addr: "k:9093", API: 1, Answers: 40}, "the broker at k:9093 closed the connection"},
		{HangUpError{Addr: "k:9093", API: 1, Answers: 40, Reset: true}, "the broker at k:9093 reset the connection"},
		{HangUpError{Addr: "k:9093", API: apiVersions, First: true, Reset: true}, "the broker at k:9093 reset the connection"},
		{HangUpError{Addr: "k:9093", API: apiVersions, First: true, TLSReply: true}, "the broker at k:9093 answered with TLS"},
		{HangUpError{Addr: "k:9093", API: 1, TLS: true, Mechanism: "PLAIN", User: "bob"}, "the broker at k:9093 closed the connection"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%+v: %q", tt.e, got)
		}
	}
}

// watchConn follows request frames however the writes split them.
func TestWatchConnTracksRequests(t *testing.T) {
	frame := func(api int16, body int) []byte {
		b := make([]byte, 6+body)
		binary.BigEndian.PutUint32(b, uint32(2+body))
		binary.BigEndian.PutUint16(b[4:], uint16(api))
		return b
	}
	stream := append(append(frame(apiVersions, 10), frame(apiSASLHandshake, 3)...), frame(apiSASLAuthenticate, 40)...)
	for _, chunk := range []int{1, 3, 7, len(stream)} {
		a, b := net.Pipe()
		go func() {
			buf := make([]byte, 100)
			for {
				if _, err := b.Read(buf); err != nil {
					return
				}
			}
		}()
		c := &watchConn{Conn: a}
		for i := 0; i < len(stream); i += chunk {
			c.Write(stream[i:min(i+chunk, len(stream))])
			if i == 0 && c.lastAPI.Load() != 0 && chunk < 6 {
				t.Errorf("chunk %d: API known before its header was written", chunk)
			}
		}
		if c.lastAPI.Load() != apiSASLAuthenticate || c.sent.Load() != 3 {
			t.Errorf("chunk %d: last API %d after %d requests", chunk, c.lastAPI.Load(), c.sent.Load())
		}
		a.Close()
		b.Close()
	}
}

// A connection that answered for a while and then went away, cleanly or by
// a reset, is only that: SASL or TLS is named only on evidence.
func TestHangUpBlamesSASLOrTLSOnlyOnEvidence(t *testing.T) {
	for _, e := range []HangUpError{
		{Addr: "k:9092", API: 1, Answers: 40},
		{Addr: "k:9092", API: 1, Answers: 1, Partial: true},
		{Addr: "k:9092", API: 3, Answers: 2},
		{Addr: "k:9092", API: 1, Answers: 40, Reset: true},
		{Addr: "k:9092", API: apiVersions, First: true, Reset: true},
		// A reset is no refusal of credentials, nor a SASL listener's
		// answer to a client without SASL.
		{Addr: "k:9092", API: 3, Answers: 1, Reset: true, Waiting: true},
		{Addr: "k:9092", API: apiSASLAuthenticate, Mechanism: "PLAIN", User: "bob", Answers: 2, Reset: true, Waiting: true},
		// The SASL answer came: what went wrong later was not the password.
		{Addr: "k:9092", API: apiSASLAuthenticate, Mechanism: "PLAIN", User: "bob", Answers: 3},
	} {
		got := e.Error()
		if strings.Contains(got, "SASL listener") || strings.Contains(got, "TLS") || strings.Contains(got, "authentication failed") {
			t.Errorf("%+v: %q names SASL or TLS without evidence", e, got)
		}
	}
}
