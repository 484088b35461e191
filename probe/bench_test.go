package probe

import (
	"context"
	"fmt"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/demo"
	"koff/kafka"
	"koff/model/resume"
)

// BenchmarkCheck10kSinkPartitions: 1,000 sinks, each committed on 10 of a
// topic's 10,000 partitions, checked in one Check (one batched group poll,
// one look at the logs), as a poller would at each refresh.
func BenchmarkCheck10kSinkPartitions(b *testing.B) {
	br, err := demo.StartBroker("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	const sinks, each = 1000, 10
	if err := br.CreateTopic("t", sinks*each, nil); err != nil {
		b.Fatal(err)
	}
	k := kafka.Config{Brokers: []string{br.Bootstrap()}}
	client := &kafkago.Client{Addr: kafkago.TCP(br.Bootstrap()), Timeout: 10 * time.Second}
	var sources []Source
	for i := range sinks {
		// As a sink's consumer commits: with the leader epoch (0 here,
		// as kafka-go sends it), which the check validates as it would.
		var offs []kafkago.OffsetCommit
		for j := range each {
			offs = append(offs, kafkago.OffsetCommit{Partition: i*each + j, Offset: 0})
		}
		name := fmt.Sprintf("sink-%04d", i)
		res, err := client.OffsetCommit(context.Background(), &kafkago.OffsetCommitRequest{GroupID: "connect-" + name, GenerationID: -1, Topics: map[string][]kafkago.OffsetCommit{"t": offs}})
		if err != nil || res.Topics["t"][0].Error != nil {
			b.Fatal(err, res)
		}
		sources = append(sources, Source{Name: name, Type: "sink"})
	}
	c := &Checker{Kafka: k, Timeout: time.Minute}
	b.ResetTimer()
	for range b.N {
		got := c.Check(context.Background(), sources)
		n := 0
		for _, r := range got {
			n += r.Counts()[resume.Resumes]
		}
		if n != sinks*each {
			b.Fatalf("%d partitions resume, want %d: %+v", n, sinks*each, got[0])
		}
	}
}
