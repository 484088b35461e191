package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"koff/model"
	"koff/model/java"
)

// latest returns the newest record of a key in its murmur2 partition.
func latest(t *testing.T, cl *kafka.Client, k []byte) (rec, bool) {
	t.Helper()
	rs := byKey(readTopic(t, cl, OffsetsTopic, OffsetsPartitions))[string(k)]
	if len(rs) == 0 {
		return rec{}, false
	}
	return rs[len(rs)-1], true
}

// writeOffset writes an offset record the way an operator's tool should:
// the exact key bytes, into the key's murmur2 partition. A nil value is a
// tombstone.
func writeOffset(t *testing.T, cl *kafka.Client, k, value []byte) {
	t.Helper()
	writeOffsetTo(t, cl, java.PartitionFor(k, OffsetsPartitions), k, value)
}

// writeOffsetTo writes an offset record into any partition, as a kcat
// write with the wrong partitioner does.
func writeOffsetTo(t *testing.T, cl *kafka.Client, partition int, k, value []byte) {
	t.Helper()
	resp, err := cl.Produce(context.Background(), &kafka.ProduceRequest{
		Topic:        OffsetsTopic,
		Partition:    partition,
		RequiredAcks: kafka.RequireAll,
		Records:      kafka.NewRecordReader(kafka.Record{Key: kafka.NewBytes(k), Value: kafka.NewBytes(value)}),
	})
	if err == nil {
		err = resp.Error
	}
	if err != nil {
		t.Fatalf("write offset for %s: %v", k, err)
	}
}

func TestStopEditResume(t *testing.T) {
	opts := testOptions(t)
	c := startCluster(t, opts)
	cl := kafkaClient(t, c.Bootstrap())
	orders := key("jdbc-shop", "protocol", "1", "table", "shop.public.orders")
	payments := key("jdbc-shop", "protocol", "1", "table", "shop.public.payments")

	waitFor(t, 10*time.Second, "jdbc-shop to flush orders", func() bool {
		return len(byKey(readTopic(t, cl, OffsetsTopic, OffsetsPartitions))[string(orders)]) >= 3
	})
	if err := c.StopConnector("jdbc-shop"); err != nil {
		t.Fatal(err)
	}
	if s := c.ConnectorState("jdbc-shop"); s != "STOPPED" {
		t.Fatalf("state after stop = %q", s)
	}
	if err := c.StopConnector("jdbc-shop"); err != nil {
		t.Fatalf("second stop: %v", err)
	}
	before, _ := latest(t, cl, orders)
	preEdit := first(t, before.value)
	shopRecords := func() (shop, all int) {
		recs := readTopic(t, cl, OffsetsTopic, OffsetsPartitions)
		for _, r := range recs {
			if bytes.HasPrefix(r.key, []byte(`["jdbc-shop",`)) {
				shop++
			}
		}
		return shop, len(recs)
	}
	shop, all := shopRecords()

	// The final flush on stop covered every record the tasks produced.
	var lastID int64
	for _, r := range readTopic(t, cl, "shop.orders", 3) {
		var row struct{ ID int64 }
		if err := json.Unmarshal(r.value, &row); err != nil {
			t.Fatalf("shop.orders record %s: %v", r.value, err)
		}
		lastID = max(lastID, row.ID)
	}
	if lastID != preEdit {
		t.Errorf("stopped with orders committed at %d, but produced up to id %d", preEdit, lastID)
	}

	// A stopped connector writes nothing more (its final flush is done), so
	// an edit made now sticks.
	time.Sleep(3 * opts.FlushInterval)
	shop2, all2 := shopRecords()
	if shop2 != shop {
		t.Errorf("stopped jdbc-shop wrote %d offset records", shop2-shop)
	}
	if all2 <= all {
		t.Errorf("other connectors stopped too")
	}

	const edited = 100
	writeOffset(t, cl, orders, []byte(`{"incrementing":100}`))
	writeOffset(t, cl, payments, nil) // reset: start from scratch
	if err := c.ResumeConnector("jdbc-shop"); err != nil {
		t.Fatal(err)
	}
	if s := c.ConnectorState("jdbc-shop"); s != "RUNNING" {
		t.Fatalf("state after resume = %q", s)
	}
	if err := c.ResumeConnector("jdbc-shop"); err != nil {
		t.Fatalf("second resume: %v", err)
	}

	var next rec
	waitFor(t, 10*time.Second, "jdbc-shop to flush orders after resume", func() bool {
		r, ok := latest(t, cl, orders)
		if ok && r.value != nil && string(r.value) != `{"incrementing":100}` {
			next = r
			return true
		}
		return false
	})
	if got := first(t, next.value); got <= edited || got >= preEdit {
		t.Errorf("after the edit to %d jdbc-shop continued at %d (was at %d before)", edited, got, preEdit)
	}
	waitFor(t, 10*time.Second, "jdbc-shop to flush payments after resume", func() bool {
		r, ok := latest(t, cl, payments)
		if ok && r.value != nil {
			next = r
			return true
		}
		return false
	})
	if got := first(t, next.value); got < 1 || got > 100 {
		t.Errorf("after a tombstone payments continued at %d, want from scratch", got)
	}

	if err := c.StopConnector("no-such"); !errors.Is(err, ErrUnknownConnector) {
		t.Errorf("StopConnector(no-such) = %v", err)
	}
	if err := c.ResumeConnector("no-such"); !errors.Is(err, ErrUnknownConnector) {
		t.Errorf("ResumeConnector(no-such) = %v", err)
	}
	if s := c.ConnectorState("no-such"); s != "" {
		t.Errorf("ConnectorState(no-such) = %q", s)
	}
}

// A copy of a task's key bytes outside its murmur2 partition: a starting
// task reads the whole topic and keeps the copy handed over last
// (model.ReadOrder, as KafkaBasedLog's poll does), however old.
func TestResumeReadsTheCopyReadLast(t *testing.T) {
	c := startCluster(t, testOptions(t))
	cl := kafkaClient(t, c.Bootstrap())
	orders := key("jdbc-shop", "protocol", "1", "table", "shop.public.orders")
	payments := key("jdbc-shop", "protocol", "1", "table", "shop.public.payments")
	var with []int
	waitFor(t, 10*time.Second, "jdbc-shop to flush orders", func() bool {
		recs := readTopic(t, cl, OffsetsTopic, OffsetsPartitions)
		with = with[:0]
		for _, r := range recs {
			if !slices.Contains(with, r.partition) {
				with = append(with, r.partition)
			}
		}
		return len(byKey(recs)[string(orders)]) >= 3
	})
	// The poll's map is sized by the partitions that have records.
	order := model.ReadOrder(OffsetsTopic, OffsetsPartitions, with)
	readFirst, readLast := order[0], order[len(order)-1]
	// payments lives in the partition read first, orders in the one read
	// last: a copy of payments anywhere else is read after its own, a copy
	// of orders anywhere else before.
	if java.PartitionFor(payments, OffsetsPartitions) != readFirst || java.PartitionFor(orders, OffsetsPartitions) != readLast {
		t.Fatalf("read order %v: payments and orders are no longer in its first and last partitions", order)
	}
	if err := c.StopConnector("jdbc-shop"); err != nil {
		t.Fatal(err)
	}
	writeOffsetTo(t, cl, order[1], payments, []byte(`{"incrementing":100}`))
	writeOffsetTo(t, cl, order[1], orders, []byte(`{"incrementing":5}`))
	ord, _ := latest(t, cl, orders)
	pay, _ := latest(t, cl, payments)
	if err := c.ResumeConnector("jdbc-shop"); err != nil {
		t.Fatal(err)
	}
	next := func(k []byte, after []byte) int64 {
		var got int64
		waitFor(t, 10*time.Second, "jdbc-shop to flush after resume", func() bool {
			r, ok := latest(t, cl, k)
			if ok && r.value != nil && !bytes.Equal(r.value, after) {
				got = first(t, r.value)
				return true
			}
			return false
		})
		return got
	}
	if got := next(payments, pay.value); got <= 100 || got > 200 {
		t.Errorf("payments continued at %d; its copy {\"incrementing\":100} in connect-offsets/%d is read last", got, order[1])
	}
	if stopped := first(t, ord.value); next(orders, ord.value) <= stopped {
		t.Errorf("orders went back from %d: its copy in connect-offsets/%d is read before its own and loses", stopped, order[1])
	}
}
