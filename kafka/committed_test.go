package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"koff/model"
)

// An exactly-once worker writes its offsets topic in transactions. An edit's
// read-back (ReadRecords) reads it as the worker does, read_committed: a
// record of an aborted transaction is no offset, and markers are no records.
// Counting records since a flush leaves the markers out too.
func TestReadsOutsideTheTailerAreReadCommitted(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "connect-offsets", 1)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.TransactionalID("connect-cluster-eos-0"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	txn := func(value string, commit bool) {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		r := &kgo.Record{Topic: "connect-offsets", Partition: 0, Key: []byte(key("eos", 0)), Value: []byte(value)}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
	before := time.Now()
	time.Sleep(2 * time.Millisecond) // RecordsSince counts from the millisecond after before
	txn(`{"offset":1}`, true)
	txn(`{"offset":999}`, false)
	txn(`{"offset":2}`, true)

	c := Config{Brokers: []string{addr}}
	recs, end, err := c.ReadRecords(ctx, model.TopicPartition{Topic: "connect-offsets", Partition: 0}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var values []string
	for _, r := range recs {
		values = append(values, string(r.Value))
	}
	if len(values) != 2 || values[0] != `{"offset":1}` || values[1] != `{"offset":2}` || end != 6 {
		t.Errorf("ReadRecords: %q up to %d; want the two committed records up to 6 (3 records, 3 markers)", values, end)
	}
	n, err := c.RecordsSince(ctx, []string{"connect-offsets"}, before)
	if err != nil || n != 2 {
		t.Errorf("RecordsSince: %d, %v; want the 2 committed records, not their markers or the aborted one", n, err)
	}
}
