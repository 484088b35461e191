package kafka

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"koff/model"
	"koff/model/java"
	"koff/model/store"
)

func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func runTailer(t *testing.T, addr string, topics []string, opts TailerOptions) (*Tailer, *store.Store) {
	t.Helper()
	store := store.NewStore(store.StoreOptions{})
	tl := NewTailer(Config{Brokers: []string{addr}}, topics, store, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tl.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("tailer did not stop within 10s of cancel")
		}
	})
	return tl, store
}

func key(conn string, part int) string {
	return fmt.Sprintf(`["%s",{"table":"t%d"}]`, conn, part)
}

// keyIn returns a key whose murmur2 partition of n is p.
func keyIn(conn string, p, n int) string {
	for i := 0; ; i++ {
		k := key(conn, i)
		if java.PartitionFor([]byte(k), n) == p {
			return k
		}
	}
}

func TestTailerCatchesUpManyPartitionsThenTailsLive(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "connect-offsets", 25)
	// Every partition gets records; some keys are later tombstoned, and
	// garbage is mixed in. Offsets above 2^53 must survive byte for byte.
	for p := 0; p < 25; p++ {
		k := keyIn("src", p, 25)
		recs := []kv{{key: k, value: `{"offset":1}`}, {key: k, value: fmt.Sprintf(`{"offset":%d}`, 9007199254740993+p)}}
		if p%5 == 0 {
			recs = append(recs, kv{key: k, tombstone: true})
		}
		if p%7 == 0 {
			recs = append(recs, kv{key: "not json", value: "x"}, kv{key: `["only-one"]`, value: `{"a":1}`})
		}
		produce(t, addr, "connect-offsets", p, recs...)
	}
	tl, store := runTailer(t, addr, []string{"connect-offsets"}, TailerOptions{})
	select {
	case <-tl.CaughtUp():
	case <-time.After(15 * time.Second):
		t.Fatalf("not caught up; status %+v", tl.Status())
	}
	st := store.Stats()
	if st.Status.State != model.TailLive {
		t.Fatalf("state after catch-up = %v, want live", st.Status.State)
	}
	if st.Status.Read != st.Status.Total || st.Status.Total == 0 {
		t.Errorf("progress %d/%d, want all of a non-zero total", st.Status.Read, st.Status.Total)
	}
	rows := store.Partitions(model.ConnectorID{Topic: "connect-offsets", Name: "src"})
	if len(rows) != 25 {
		t.Fatalf("got %d source partitions, want 25", len(rows))
	}
	for _, r := range rows {
		wantDeleted := r.ID.Partition%5 == 0
		if r.Deleted != wantDeleted {
			t.Errorf("%s deleted=%v, want %v", r.ID.TopicPartition, r.Deleted, wantDeleted)
		}
		if !wantDeleted {
			want := fmt.Sprintf(`{"offset":%d}`, 9007199254740993+r.ID.Partition)
			if r.Offset != want {
				t.Errorf("%s offset %s, want %s", r.ID.TopicPartition, r.Offset, want)
			}
		}
		if r.Flags.Suspect() {
			t.Errorf("%s flagged %v; keys were written to their murmur2 partitions", r.ID.TopicPartition, r.Flags)
		}
	}
	if st.Unparseable != 8 {
		t.Errorf("unparseable = %d, want 8 (two per partition 0,7,14,21)", st.Unparseable)
	}

	// Live: a record produced now shows up without restarting.
	k := keyIn("src", 3, 25)
	produce(t, addr, "connect-offsets", 3, kv{key: k, value: `{"offset":9223372036854775807}`})
	waitFor(t, "live record", 10*time.Second, func() bool {
		d, ok := store.Partition(model.PartitionID{TopicPartition: model.TopicPartition{Topic: "connect-offsets", Partition: 3}, Key: k})
		return ok && string(d.Value) == `{"offset":9223372036854775807}`
	})
}

func TestTailerWaitsForTopicCreatedLate(t *testing.T) {
	_, addr := startBroker(t, 0)
	_, store := runTailer(t, addr, []string{"connect-offsets"}, TailerOptions{Rescan: 200 * time.Millisecond})
	waitFor(t, "waiting-for-topic state", 10*time.Second, func() bool {
		st := store.Stats().Status
		return st.State == model.TailWaitingForTopic && strings.Contains(st.Reason, "connect-offsets does not exist yet")
	})
	createTopic(t, addr, "connect-offsets", 3)
	k := keyIn("late", 1, 3)
	produce(t, addr, "connect-offsets", 1, kv{key: k, value: `{"position":42}`})
	waitFor(t, "record from the late topic", 10*time.Second, func() bool {
		rows := store.Partitions(model.ConnectorID{Topic: "connect-offsets", Name: "late"})
		return len(rows) == 1 && rows[0].Offset == `{"position":42}`
	})
	waitFor(t, "live once every partition of the new topic is read", 10*time.Second, func() bool {
		return store.Stats().Status.State == model.TailLive
	})
}

func TestTailerPicksUpAddedPartitions(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "connect-offsets", 2)
	_, store := runTailer(t, addr, []string{"connect-offsets"}, TailerOptions{Rescan: 200 * time.Millisecond})
	waitFor(t, "live", 10*time.Second, func() bool { return store.Stats().Status.State == model.TailLive })
	c := Config{Brokers: []string{addr}}.Client()
	if _, err := c.CreatePartitions(context.Background(), createPartitionsReq("connect-offsets", 4)); err != nil {
		t.Fatal(err)
	}
	produce(t, addr, "connect-offsets", 3, kv{key: key("grown", 1), value: `{"offset":7}`})
	waitFor(t, "record in an added partition", 10*time.Second, func() bool {
		return len(store.Partitions(model.ConnectorID{Topic: "connect-offsets", Name: "grown"})) == 1
	})
	if n := store.Stats().Topics["connect-offsets"]; n != 4 {
		t.Errorf("partition count = %d, want 4", n)
	}
}

func TestTailerReportsDisconnectAndReconnects(t *testing.T) {
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	_, store := runTailer(t, addr, []string{"connect-offsets"}, TailerOptions{Rescan: 200 * time.Millisecond})
	waitFor(t, "disconnected state", 10*time.Second, func() bool {
		st := store.Stats().Status
		return st.State == model.TailDisconnected && strings.Contains(st.Reason, "connection refused")
	})
	if r := store.Stats().Status.Reason; strings.Contains(r, "\n") || strings.HasPrefix(r, "kafka.(") {
		t.Errorf("reason should be one plain line, got %q", r)
	}
	_, addr2 := startBroker(t, port)
	createTopic(t, addr2, "connect-offsets", 1)
	produce(t, addr2, "connect-offsets", 0, kv{key: key("back", 0), value: `{"offset":1}`})
	waitFor(t, "live after the broker came up", 20*time.Second, func() bool {
		return store.Stats().Status.State == model.TailLive &&
			len(store.Partitions(model.ConnectorID{Topic: "connect-offsets", Name: "back"})) == 1
	})
}

// A worker with exactly-once support writes offsets in transactions; records
// of aborted transactions must not count, as a read_committed worker skips them.
// kafka-go has no transactional producer, so franz-go plays the EOS worker.
func TestTailerSkipsAbortedTransactions(t *testing.T) {
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
	txn(`{"offset":1}`, true)
	txn(`{"offset":999}`, false)
	txn(`{"offset":2}`, true)
	txn(`{"offset":888}`, false)

	tl, store := runTailer(t, addr, []string{"connect-offsets"}, TailerOptions{})
	select {
	case <-tl.CaughtUp():
	case <-time.After(15 * time.Second):
		t.Fatalf("not caught up; status %+v", tl.Status())
	}
	rows := store.Partitions(model.ConnectorID{Topic: "connect-offsets", Name: "eos"})
	if len(rows) != 1 || rows[0].Offset != `{"offset":2}` {
		t.Fatalf("rows = %+v, want one partition at offset 2", rows)
	}
	d, _ := store.Partition(rows[0].ID)
	for _, u := range d.History {
		if strings.Contains(string(u.Value), "999") || strings.Contains(string(u.Value), "888") {
			t.Errorf("aborted value %s was ingested", u.Value)
		}
	}
	if len(d.History) != 2 {
		t.Errorf("history has %d updates, want the 2 committed ones", len(d.History))
	}
}

func TestTailerAddsAConnectorsOwnOffsetsTopic(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "connect-offsets", 1)
	createTopic(t, addr, "crm-offsets", 2)
	produce(t, addr, "crm-offsets", 1, kv{key: key("crm", 1), value: `{"incrementing":3}`})
	tl, store := runTailer(t, addr, []string{"connect-offsets"}, TailerOptions{Rescan: time.Hour})
	<-tl.CaughtUp()
	if !tl.AddTopic("crm-offsets") || tl.AddTopic("crm-offsets") {
		t.Fatal("AddTopic should report a new topic once")
	}
	waitFor(t, "a record of the added topic", 10*time.Second, func() bool {
		return len(store.Partitions(model.ConnectorID{Topic: "crm-offsets", Name: "crm"})) == 1
	})
	if got := tl.Topics(); len(got) != 2 || got[1] != "crm-offsets" {
		t.Errorf("topics = %v", got)
	}
}
