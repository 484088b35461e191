package kafka

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/model/java"
	"koff/model/store"
)

// fillOffsets writes n offset records spread over 25 partitions: 2,000
// source partitions of 20 connectors, updated over and over, as a busy
// Connect cluster's offsets topic looks before compaction.
func fillOffsets(b *testing.B, addr string, n int) {
	b.Helper()
	c := Config{Brokers: []string{addr}}.Client()
	perPart := make([][]kafkago.Record, 25)
	for i := 0; i < n; i++ {
		k := fmt.Sprintf(`["connector-%d",{"server":"db%d","table":"public.t%d"}]`, i%20, i%7, i%2000)
		p := java.PartitionFor([]byte(k), 25)
		v := fmt.Sprintf(`{"lsn_proc":%d,"lsn_commit":%d,"txId":%d,"ts_usec":%d}`, 1<<60+i, 1<<60+i, i, 1700000000000000+i)
		perPart[p] = append(perPart[p], kafkago.Record{Key: kafkago.NewBytes([]byte(k)), Value: kafkago.NewBytes([]byte(v)), Time: time.Now()})
	}
	for p, recs := range perPart {
		for len(recs) > 0 {
			chunk := recs[:min(len(recs), 2000)]
			recs = recs[len(chunk):]
			res, err := c.Produce(context.Background(), &kafkago.ProduceRequest{Topic: "connect-offsets", Partition: p, RequiredAcks: kafkago.RequireAll, Records: kafkago.NewRecordReader(chunk...)})
			if err == nil {
				err = res.Error
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkTailerCatchUp measures how fast koff loads an offsets topic into
// the Store (records/s), and, when kcat is installed, how long kcat takes
// to read the same topic on the same broker (kcat-s/op).
func BenchmarkTailerCatchUp(b *testing.B) {
	n := 200_000
	if testing.Short() { // CI: that it runs, not the figure
		n = 10_000
	}
	c, err := startBenchBroker()
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	addr := c.ListenAddrs()[0]
	createTopicB(b, addr)
	fillOffsets(b, addr, n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		store := store.NewStore(store.StoreOptions{})
		tl := NewTailer(Config{Brokers: []string{addr}}, []string{"connect-offsets"}, store, TailerOptions{})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { tl.Run(ctx); close(done) }()
		<-tl.CaughtUp()
		cancel()
		<-done
		if got := store.Stats().Records; got != int64(n) {
			b.Fatalf("read %d records, want %d", got, n)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	if kcat, err := exec.LookPath("kcat"); err == nil {
		start := time.Now()
		out, err := exec.Command(kcat, "-b", addr, "-C", "-t", "connect-offsets", "-o", "beginning", "-e", "-q", "-f", "%k %s\n", "-X", "isolation.level=read_committed").Output()
		if err != nil {
			b.Fatalf("kcat: %v", err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "kcat-s")
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "kcat-records/s")
		_ = out
	}
}
