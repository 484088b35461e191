package kafka

import (
	"net"
	"time"

	"koff/kafka/security"

	kafkago "github.com/segmentio/kafka-go"
)

// Config says how to reach the Kafka cluster. Every client koff makes
// (Tailer, writers, group polls, offset look-ups) goes through transport(),
// so all of them use the same TLS and SASL.
type Config struct {
	Brokers     []string
	ClientID    string
	DialTimeout time.Duration
	// Security is TLS and SASL (Settings.Build); nil is PLAINTEXT.
	Security *security.Security
}

// Insecure reports --insecure-skip-verify: TLS whose certificates are not
// checked. The dashboard header says so.
func (c Config) Insecure() bool { return c.Security.Insecure() }

func (c Config) transport() *kafkago.Transport {
	id := c.ClientID
	if id == "" {
		id = "koff"
	}
	dt := c.DialTimeout
	if dt <= 0 {
		dt = 5 * time.Second
	}
	// TLS happens in Dial (security/dial.go), never in kafka-go as well.
	return &kafkago.Transport{ClientID: id, DialTimeout: dt, MetadataTTL: 5 * time.Second, Dial: c.Security.Dial, SASL: c.Security.SASL()}
}

// Describe is Describe with this configuration's SASL user and mechanism.
func (c Config) Describe(err error) string { return c.Security.Describe(err) }

func (c Config) addr() net.Addr { return kafkago.TCP(c.Brokers...) }

// Client is a kafka-go client with koff's configuration.
func (c Config) Client() *kafkago.Client {
	return &kafkago.Client{Addr: c.addr(), Transport: c.transport(), Timeout: 10 * time.Second}
}
