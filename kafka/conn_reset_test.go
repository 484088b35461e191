package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"koff/internal/faultproxy"
	"koff/kafka/security"
)

// resetOn starts a kfake broker behind a fault proxy that resets every
// connection when the broker receives its first request with API key
// key: the reset comes exactly while that request waits for its answer,
// after the answers before it.
func resetOn(t *testing.T, key int16, opts ...kfake.Opt) *faultproxy.Proxy {
	t.Helper()
	p, c, _ := proxiedCluster(t, opts...)
	c.ControlKey(key, func(kmsg.Request) (kmsg.Response, error, bool) {
		_ = p.Set(faultproxy.Reset)
		return nil, nil, false
	})
	return p
}

// A connection reset after the broker answered is not blamed on SASL: not
// on the credentials while a SASL request waits, not on a SASL listener
// when a client without SASL had one answer. The error says what koff
// saw: a reset, after how many answers, waiting for which request.
func TestResetAfterAnswersIsNotBlamedOnSASL(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  int16
		sasl string
		want string
	}{
		{"during PLAIN authentication", int16(kmsg.SASLAuthenticate), "PLAIN", "reset the connection after 2 answers on it during SASL authentication (SaslAuthenticate)"},
		{"during SCRAM authentication", int16(kmsg.SASLAuthenticate), "SCRAM-SHA-256", "reset the connection after 2 answers on it during SASL authentication (SaslAuthenticate)"},
		{"after SASL succeeded", int16(kmsg.Metadata), "SCRAM-SHA-512", "reset the connection after "},
		{"without SASL after ApiVersions", int16(kmsg.Metadata), "", "reset the connection after 1 answer on it, waiting for the answer to Metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []kfake.Opt
			settings := security.Settings{}
			if tc.sasl != "" {
				opts = append(opts, kfake.EnableSASL(), kfake.Superuser(tc.sasl, "alice", "right"))
				settings = security.Settings{Mechanism: tc.sasl, Username: "alice", Password: "right", Protocol: "SASL_PLAINTEXT"}
			}
			p := resetOn(t, tc.key, opts...)
			cfg := Config{Brokers: []string{p.Addr()}, Security: buildSecurity(t, settings)}
			c := cfg.Client()
			defer c.Transport.(*kafkago.Transport).CloseIdleConnections()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := c.Metadata(ctx, &kafkago.MetadataRequest{})
			got := cfg.Describe(err)
			t.Log(got)
			if err == nil || !strings.Contains(got, tc.want) || strings.Contains(got, "authentication failed") || strings.Contains(got, "SASL listener") {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
