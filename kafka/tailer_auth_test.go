package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"koff/kafka/security"
	"koff/model"
	"koff/model/store"
)

// saslBroker runs kfake with the given options on a free loopback port.
func saslBroker(t *testing.T, opts ...kfake.Opt) string {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()[0]
}

func buildSecurity(t *testing.T, s security.Settings) *security.Security {
	t.Helper()
	sec, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	return sec
}

// The Tailer's disconnected state carries the authentication failure, with
// the user and mechanism, at once: koff get exits on it.
func TestTailerReportsAuthFailure(t *testing.T) {
	addr := saslBroker(t, kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", "alice", "right"))
	sec := buildSecurity(t, security.Settings{Mechanism: "SCRAM-SHA-256", Username: "alice", Password: "wrong", Protocol: "SASL_PLAINTEXT"})
	store := store.NewStore(store.StoreOptions{})
	tl := NewTailer(Config{Brokers: []string{addr}, Security: sec}, []string{"connect-offsets"}, store, TailerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tl.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	waitFor(t, "disconnected", 5*time.Second, func() bool { return tl.Status().State == model.TailDisconnected })
	want := "authentication failed for user alice (SCRAM-SHA-256): the broker closed the connection (wrong user or password, or SCRAM-SHA-256 not enabled on this listener)"
	if got := tl.Status().Reason; got != want {
		t.Errorf("reason %q\nwant   %q", got, want)
	}
}
