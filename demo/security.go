package demo

import (
	"crypto/tls"
	"fmt"
	"net"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// SASL is the one user the demo broker accepts when SASL is on. kfake
// makes it a superuser, so ACLs never get in the way of the demo.
type SASL struct {
	Mechanism string // PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512
	User      string
	Password  string
}

// String leaves the password out, so printing Options cannot leak it.
func (s SASL) String() string { return s.Mechanism + " user " + s.User }

// BrokerOptions configure StartBrokerWith.
type BrokerOptions struct {
	// Listen is the listen address; "127.0.0.1:0" when empty.
	Listen string
	// SASL, when set, makes every client authenticate.
	SASL *SASL
	// TLSDir, when set, serves TLS with the certificates WriteTLS makes
	// (or finds) there.
	TLSDir string
	// TLSClientAuth requires a client certificate signed by the CA.
	TLSClientAuth bool
	// Logf receives diagnostics; nil discards them.
	Logf func(format string, args ...any)
	// Advertise is the address the broker names in metadata, when clients
	// reach it through something else (a fault-injecting proxy in tests);
	// its own listen address when empty.
	Advertise string
	// ClusterID is the cluster id the broker reports (a new koff-demo-<hex>
	// for each broker when empty): a broker restarted empty with another
	// id is a new cluster.
	ClusterID string
}

// security is both sides of the broker's set-up: the kfake options that
// enforce it and the client options with which the demo's own clients
// (admin, workers, REST emulator) pass it.
type security struct {
	fake   []kfake.Opt
	client []kgo.Opt
	files  *TLSFiles
	server *tls.Config // for the REST emulator, nil without TLS
	sasl   *SASL
}

func newSecurity(o BrokerOptions) (*security, error) {
	sec := &security{sasl: o.SASL}
	if o.SASL != nil {
		m, err := saslMechanism(*o.SASL)
		if err != nil {
			return nil, err
		}
		sec.fake = append(sec.fake, kfake.EnableSASL(), kfake.Superuser(o.SASL.Mechanism, o.SASL.User, o.SASL.Password))
		sec.client = append(sec.client, kgo.SASL(m))
	}
	if o.TLSDir == "" {
		if o.TLSClientAuth {
			return nil, fmt.Errorf("client certificate authentication needs TLS (a TLS directory)")
		}
		return sec, nil
	}
	files, err := WriteTLS(o.TLSDir, listenHost(o.Listen)...)
	if err != nil {
		return nil, err
	}
	srv, err := files.serverConfig(o.TLSClientAuth)
	if err != nil {
		return nil, err
	}
	cli, err := files.clientConfig()
	if err != nil {
		return nil, err
	}
	sec.files, sec.server = &files, srv
	sec.fake = append(sec.fake, kfake.TLS(srv))
	sec.client = append(sec.client, kgo.DialTLSConfig(cli))
	return sec, nil
}

// listenHost is the listen address's host when it names one, so the
// server certificate covers it too.
func listenHost(listen string) []string {
	h, _, err := net.SplitHostPort(listen)
	if err != nil || h == "" {
		return nil
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsUnspecified() {
		return nil
	}
	return []string{h}
}

func saslMechanism(s SASL) (sasl.Mechanism, error) {
	if s.User == "" || s.Password == "" {
		return nil, fmt.Errorf("SASL %s needs a user and a password", s.Mechanism)
	}
	switch s.Mechanism {
	case "PLAIN":
		return plain.Auth{User: s.User, Pass: s.Password}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		return scram.Auth{User: s.User, Pass: s.Password}.AsSha256Mechanism(), nil
	case "SCRAM-SHA-512":
		return scram.Auth{User: s.User, Pass: s.Password}.AsSha512Mechanism(), nil
	}
	return nil, fmt.Errorf("SASL mechanism %q is not one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512", s.Mechanism)
}

// clientOpts are a demo client's seed broker and security, then extra.
func (w *worker) clientOpts(extra ...kgo.Opt) []kgo.Opt {
	opts := []kgo.Opt{kgo.SeedBrokers(w.bootstrap)}
	opts = append(opts, w.security...)
	return append(opts, extra...)
}

// TLS returns the certificate files the broker serves with, or nil
// without TLS.
func (b *Broker) TLS() *TLSFiles { return b.sec.files }

// ClientOpts are the kgo options a client needs to pass the broker's
// security (SASL user, TLS with the demo CA and client certificate), for
// tests that talk to a secured broker directly.
func (b *Broker) ClientOpts() []kgo.Opt { return append([]kgo.Opt(nil), b.sec.client...) }

// TLS returns the certificate files of the broker and REST emulator, or
// nil without Options.TLSDir.
func (c *Cluster) TLS() *TLSFiles { return c.broker.TLS() }
