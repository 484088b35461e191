package cli

import (
	"testing"

	"koff/demo"
	"koff/internal/faultproxy"
)

// proxiedOffsetsBroker is an embedded broker that advertises a fault
// proxy in front of it, with an empty compacted 25-partition
// connect-offsets: koff, told the proxy's address, reaches the broker only
// through it, and the test cuts or swallows its traffic there.
func proxiedOffsetsBroker(t *testing.T) (*faultproxy.Proxy, *demo.Broker) {
	t.Helper()
	p, err := faultproxy.Listen("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	b, err := demo.StartBrokerWith(demo.BrokerOptions{Advertise: p.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	p.SetTarget(b.ListenAddr())
	if err := b.CreateTopic("connect-offsets", 25, map[string]string{"cleanup.policy": "compact"}); err != nil {
		t.Fatal(err)
	}
	return p, b
}
