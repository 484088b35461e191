package interop

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"koff/model/java"
)

// TestManyAbortedTransactions: an offsets topic written in many
// transactions, every other one aborted, as exactly-once source tasks
// that fail over leave it. The real broker lists each aborted
// transaction in the fetch responses that overlap it, and koff (reading
// read_committed, as the worker does) must show only committed offsets:
// the last committed value of each key, never an aborted one.
func TestManyAbortedTransactions(t *testing.T) {
	s := realStack(t)
	topic, name := "txn-many-offsets", "txn-many"
	s.createTopic(t, topic, 3)
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.Bootstrap), kgo.TransactionalID("koff-interop-many"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	const keys, rounds = 6, 30
	key := func(k int) []byte { return java.EncodeKey(name, java.Object{{Name: "shard", Value: fmt.Sprint(k)}}) }
	want := map[string]string{}
	for r := 1; r <= rounds; r++ {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		commit := r%2 == 1
		for k := range keys {
			value := fmt.Sprintf(`{"n":%d}`, r)
			if !commit {
				value = fmt.Sprintf(`{"n":-%d}`, r) // aborted: no reader may see it
			}
			p := java.PartitionFor(key(k), 3)
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: int32(p), Key: key(k), Value: []byte(value)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
			if commit {
				want[fmt.Sprint(k)] = value
			}
		}
		end := kgo.TryAbort
		if commit {
			end = kgo.TryCommit
		}
		if err := cl.EndTransaction(ctx, end); err != nil {
			t.Fatal(err)
		}
	}
	out := mustKoff(t, s.withTopic("get", name, "--offsets-topic", topic, "-o", "json")...)
	if strings.Contains(out, `"n":-`) {
		t.Errorf("koff get shows an offset of an aborted transaction:\n%s", out)
	}
	var b offsetsBody
	decode(t, []byte(out), &b)
	got := canonical(t, b)
	if len(got) != keys {
		t.Fatalf("koff get: %d partitions, want %d:\n%s", len(got), keys, out)
	}
	for k := range keys {
		entry := canonicalEntry(t, fmt.Sprintf(`{"shard":"%d"} => %s`, k, want[fmt.Sprint(k)]))
		found := false
		for _, g := range got {
			found = found || g == entry
		}
		if !found {
			t.Errorf("koff get lacks %s:\n%s", entry, strings.Join(got, "\n"))
		}
	}
}
