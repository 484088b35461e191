package demo

import (
	"context"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
)

// leaked returns the stacks of goroutines that this package, kfake or
// franz-go started and that are still running. Test goroutines (under
// testing.tRunner) and kafka-go's are not ours.
func leaked() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n")[1:] { // [0] is this goroutine
		if strings.Contains(g, "testing.tRunner") {
			continue
		}
		if strings.Contains(g, "koff/demo.") || strings.Contains(g, "twmb/franz-go") {
			out = append(out, g)
		}
	}
	return out
}

func checkNoLeaks(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		g := leaked()
		if len(g) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left after Close:\n\n%s", len(g), strings.Join(g, "\n\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCloseLeavesNothing(t *testing.T) {
	checkNoLeaks(t) // nothing from earlier tests either
	opts := testOptions(t)
	c, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	addr := c.Bootstrap()
	// A client that never hangs up must not keep the broker's goroutines.
	conn, err := kafka.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ReadPartitions(OffsetsTopic); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * opts.FlushInterval)
	if err := c.StopConnector("mm2-primary"); err != nil {
		t.Fatal(err)
	}
	if err := c.ResumeConnector("mm2-primary"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * opts.FlushInterval)
	c.Close()
	c.Close() // idempotent
	if err := c.ResumeConnector("mm2-primary"); err == nil {
		t.Error("ResumeConnector after Close succeeded")
	}
	checkNoLeaks(t)

	// The port is free again: a new cluster can listen on it.
	c2, err := Start(context.Background(), Options{KafkaListen: addr, FlushInterval: opts.FlushInterval, Logf: opts.Logf})
	if err != nil {
		t.Fatalf("restart on %s: %v", addr, err)
	}
	if c2.Bootstrap() != addr {
		t.Errorf("Bootstrap() = %s, want %s", c2.Bootstrap(), addr)
	}
	c2.Close()
	checkNoLeaks(t)
}

func TestStartBroker(t *testing.T) {
	b, err := StartBroker("")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if host, _, _ := net.SplitHostPort(b.Bootstrap()); host != "127.0.0.1" {
		t.Errorf("Bootstrap() = %s, want loopback", b.Bootstrap())
	}
	if err := b.CreateTopic("my-offsets", 5, map[string]string{"cleanup.policy": "compact"}); err != nil {
		t.Fatal(err)
	}
	if err := b.CreateTopic("my-offsets", 5, nil); err == nil {
		t.Error("creating a topic twice succeeded")
	}
	cl := kafkaClient(t, b.Bootstrap())
	md, err := cl.Metadata(context.Background(), &kafka.MetadataRequest{Topics: []string{"my-offsets"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(md.Topics) != 1 || len(md.Topics[0].Partitions) != 5 {
		t.Fatalf("metadata: %+v", md.Topics)
	}
	b.Close()
	b.Close()
	checkNoLeaks(t)
}
