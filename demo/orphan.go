package demo

import (
	"math/rand/v2"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"koff/model/java"
)

// OrphanConnector is a connector that was deleted from Connect days before
// the demo started. Deleting a connector removes only its configuration
// (DistributedHerder#deleteConnectorConfig), so its last offsets stay in
// connect-offsets: the REST API answers 404 for it, nothing writes them
// again, and a new connector created under the same name would resume
// from them.
const OrphanConnector = "jdbc-old-orders"

// orphanAge is how long before the demo started the orphan last flushed.
const orphanAge = 9 * 24 * time.Hour

// orphanRecords returns the orphan's last offsets, JDBC-style keys and
// values written as its tasks wrote them, CreateTime days ago.
func orphanRecords(topic string, partitions int, start time.Time) []*kgo.Record {
	rng := rand.New(rand.NewPCG(catalogueSeed, 3))
	tables := []struct {
		table string
		id    int64
		age   time.Duration
	}{
		{"orders.public.orders", 1_204_000 + rng.Int64N(1000), orphanAge},
		{"orders.public.order_lines", 4_870_000 + rng.Int64N(1000), orphanAge + 40*time.Second},
	}
	var recs []*kgo.Record
	for _, t := range tables {
		key := java.EncodeKey(OrphanConnector, jdbcPartition(t.table))
		recs = append(recs, &kgo.Record{
			Topic:     topic,
			Partition: int32(java.PartitionFor(key, partitions)),
			Key:       key,
			Value:     java.AppendJackson(nil, (&jdbcIncrementing{id: t.id}).offset()),
			Timestamp: start.Add(-t.age),
		})
	}
	return recs
}
