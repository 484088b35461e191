package cli

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/model/java"

	"koff/internal/faultproxy"
)

// koff tail through a fault proxy: an outage of a few seconds is one
// "disconnected" line and one "reconnected" line on stderr, however often
// the tailer retries, and the records written during it are printed once
// it is over.
func TestTailSaysOneOutageOnce(t *testing.T) {
	p, b := proxiedOffsetsBroker(t)
	produceDirect(t, b.ListenAddr(), `["src",{"t":"a"}]`, `{"o":1}`)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct{ out, errs string }
	done := make(chan result)
	go func() {
		out, errs, _ := koffIn(ctx, "tail", "-b", p.Addr())
		done <- result{out, errs}
	}()
	time.Sleep(2 * time.Second) // caught up, live
	p.Set(faultproxy.Refuse)
	time.Sleep(2 * time.Second)
	produceDirect(t, b.ListenAddr(), `["src",{"t":"a"}]`, `{"o":2}`)
	time.Sleep(3 * time.Second)
	p.Set(faultproxy.Pass)
	time.Sleep(4 * time.Second)
	cancel()
	r := <-done
	t.Logf("stderr:\n%s", r.errs)
	if n := strings.Count(r.errs, "koff: disconnected since"); n != 1 {
		t.Errorf("%d disconnected lines:\n%s", n, r.errs)
	}
	if n := strings.Count(r.errs, "koff: reconnected after"); n != 1 {
		t.Errorf("%d reconnected lines:\n%s", n, r.errs)
	}
	if !strings.Contains(r.out, `{"o":2}`) {
		t.Errorf("the record written during the outage was not printed:\n%s", r.out)
	}
}

// produceDirect writes one record to the broker at direct, past the proxy
// that metadata names.
func produceDirect(t *testing.T, direct, key, value string) {
	t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(direct), Timeout: 10 * time.Second, Transport: &kafkago.Transport{
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, direct)
		},
	}}
	res, err := c.Produce(context.Background(), &kafkago.ProduceRequest{
		Topic: "connect-offsets", Partition: java.PartitionFor([]byte(key), 25), RequiredAcks: kafkago.RequireAll,
		Records: kafkago.NewRecordReader(kafkago.Record{Key: kafkago.NewBytes([]byte(key)), Value: kafkago.NewBytes([]byte(value)), Time: time.Now()}),
	})
	if err == nil {
		err = res.Error
	}
	if err != nil {
		t.Fatalf("produce: %v", err)
	}
}
