package cli

import (
	"context"
	"testing"
)

// observeForBench starts g's observer as the dashboard does (REST client,
// tailer, pollers) and waits for the tailer to catch up. Call stop before
// the cluster closes.
func observeForBench(b *testing.B, g *Globals) (o *observer, stop func()) {
	b.Helper()
	rest, err := g.connectClient()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	o = observe(ctx, g, rest)
	o.run()
	<-o.tailer.CaughtUp()
	return o, func() { o.stop(); cancel() }
}
