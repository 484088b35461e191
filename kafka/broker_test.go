package kafka

import (
	"context"
	"net"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
)

// startBroker runs an embedded kfake broker on loopback (port 0 = any free port).
func startBroker(t *testing.T, port int) (*kfake.Cluster, string) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(port))
	if err != nil {
		t.Fatalf("start broker: %v", err)
	}
	t.Cleanup(c.Close)
	return c, c.ListenAddrs()[0]
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func createTopic(t *testing.T, addr, name string, partitions int) {
	t.Helper()
	c := Config{Brokers: []string{addr}}.Client()
	res, err := c.CreateTopics(context.Background(), &kafkago.CreateTopicsRequest{Topics: []kafkago.TopicConfig{{
		Topic: name, NumPartitions: partitions, ReplicationFactor: 1,
		ConfigEntries: []kafkago.ConfigEntry{{ConfigName: "cleanup.policy", ConfigValue: "compact"}},
	}}})
	if err != nil {
		t.Fatalf("create topic: %v", err)
	}
	if err := res.Errors[name]; err != nil {
		t.Fatalf("create topic %s: %v", name, err)
	}
}

type kv struct {
	key, value string
	tombstone  bool
}

// produce writes records to one explicit partition, as a Connect worker
// would after computing the murmur2 partition itself.
func produce(t *testing.T, addr, topic string, partition int, recs ...kv) {
	t.Helper()
	c := Config{Brokers: []string{addr}}.Client()
	var rr []kafkago.Record
	for _, r := range recs {
		rec := kafkago.Record{Key: kafkago.NewBytes([]byte(r.key)), Time: time.Now()}
		if !r.tombstone {
			rec.Value = kafkago.NewBytes([]byte(r.value))
		}
		rr = append(rr, rec)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var lastErr error
	for i := 0; i < 20; i++ { // metadata of a just-created topic may lag
		res, err := c.Produce(ctx, &kafkago.ProduceRequest{
			Topic: topic, Partition: partition, RequiredAcks: kafkago.RequireAll,
			Records: kafkago.NewRecordReader(rr...),
		})
		if err == nil && res.Error == nil {
			return
		}
		lastErr = err
		if err == nil {
			lastErr = res.Error
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("produce to %s/%d: %v", topic, partition, lastErr)
}

func createPartitionsReq(topic string, total int) *kafkago.CreatePartitionsRequest {
	return &kafkago.CreatePartitionsRequest{Topics: []kafkago.TopicPartitionsConfig{{Name: topic, Count: int32(total)}}}
}

func startBenchBroker() (*kfake.Cluster, error) {
	return kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(0))
}

func createTopicB(b *testing.B, addr string) {
	b.Helper()
	c := Config{Brokers: []string{addr}}.Client()
	res, err := c.CreateTopics(context.Background(), &kafkago.CreateTopicsRequest{Topics: []kafkago.TopicConfig{{Topic: "connect-offsets", NumPartitions: 25, ReplicationFactor: 1}}})
	if err != nil || res.Errors["connect-offsets"] != nil {
		b.Fatalf("create topic: %v %v", err, res.Errors)
	}
}
