package kafka

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/model"
	"koff/model/java"
	"koff/model/store"
)

// BenchmarkLiveLatency measures, with the Tailer's defaults on a caught-up
// offsets topic, how long an offset record takes from its produce request
// to its value being in the Store: p50 and p95 over 100 records, one every
// 50 ms, in partitions round the topic. The dashboard shows a Store change
// at its next data-driven frame, at most 1/DefaultFPS (250 ms) later.
//
//	go test ./kafka -run XXX -bench LiveLatency -benchtime 1x
func BenchmarkLiveLatency(b *testing.B) {
	c, err := startBenchBroker()
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	addr := c.ListenAddrs()[0]
	createTopicB(b, addr)
	client := Config{Brokers: []string{addr}}.Client()
	var lat []time.Duration
	for range b.N {
		store := store.NewStore(store.StoreOptions{})
		tl := NewTailer(Config{Brokers: []string{addr}}, []string{"connect-offsets"}, store, TailerOptions{})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { tl.Run(ctx); close(done) }()
		<-tl.CaughtUp()
		time.Sleep(200 * time.Millisecond) // every partition waiting in a live fetch
		n := 100
		if testing.Short() { // CI: that it runs, not the figure
			n = 10
		}
		for i := range n {
			key := fmt.Sprintf(`["jdbc-%d",{"table":"t%d"}]`, i%7, i)
			p := java.PartitionFor([]byte(key), 25)
			value := fmt.Sprintf(`{"id":%d}`, i)
			sent := time.Now()
			res, err := client.Produce(context.Background(), &kafkago.ProduceRequest{Topic: "connect-offsets", Partition: p, RequiredAcks: kafkago.RequireAll,
				Records: kafkago.NewRecordReader(kafkago.Record{Key: kafkago.NewBytes([]byte(key)), Value: kafkago.NewBytes([]byte(value)), Time: sent})})
			if err == nil {
				err = res.Error
			}
			if err != nil {
				b.Fatal(err)
			}
			id := model.PartitionID{TopicPartition: model.TopicPartition{Topic: "connect-offsets", Partition: p}, Key: key}
			for {
				if d, ok := store.Partition(id); ok && d.Offset == value {
					break
				}
				if time.Since(sent) > 10*time.Second {
					b.Fatalf("record %d not read after 10s", i)
				}
				time.Sleep(time.Millisecond)
			}
			lat = append(lat, time.Since(sent))
			time.Sleep(50 * time.Millisecond)
		}
		cancel()
		<-done
	}
	slices.Sort(lat)
	ms := func(q float64) float64 {
		return float64(lat[min(int(q*float64(len(lat))), len(lat)-1)]) / float64(time.Millisecond)
	}
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.95), "p95-ms")
	b.ReportMetric(ms(0.95)+250, "p95-shown-ms-bound")
}
