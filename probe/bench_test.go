package probe

import (
	"context"
	"fmt"
	"testing"
	"time"

	"koff/demo"
	"koff/kafka"
	"koff/model"
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
	var sources []Source
	for i := range sinks {
		offs := map[model.TopicPartition]int64{}
		for j := range each {
			offs[model.TopicPartition{Topic: "t", Partition: i*each + j}] = 0
		}
		name := fmt.Sprintf("sink-%04d", i)
		if err := k.CommitGroupOffsets(context.Background(), "connect-"+name, offs); err != nil {
			b.Fatal(err)
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
