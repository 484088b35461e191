package kafka

import (
	"context"
	"errors"
	"net"
	"strings"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// Config says how to reach the Kafka cluster.
type Config struct {
	Brokers     []string
	ClientID    string
	DialTimeout time.Duration
}

func (c Config) transport() *kafkago.Transport {
	id := c.ClientID
	if id == "" {
		id = "koff"
	}
	dt := c.DialTimeout
	if dt <= 0 {
		dt = 5 * time.Second
	}
	return &kafkago.Transport{ClientID: id, DialTimeout: dt, MetadataTTL: 5 * time.Second}
}

func (c Config) addr() net.Addr { return kafkago.TCP(c.Brokers...) }

// Client is a kafka-go client with koff's configuration.
func (c Config) Client() *kafkago.Client {
	return &kafkago.Client{Addr: c.addr(), Transport: c.transport(), Timeout: 10 * time.Second}
}

// Describe turns a kafka-go error into one line for a status bar or stderr.
func Describe(err error) string {
	if err == nil {
		return ""
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Error()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out waiting for the broker"
	}
	s := err.Error()
	// kafka-go prefixes errors with the method that failed; users need the cause.
	for strings.HasPrefix(s, "kafka.(") {
		i := strings.Index(s, ": ")
		if i < 0 {
			break
		}
		s = s[i+2:]
	}
	return s
}
