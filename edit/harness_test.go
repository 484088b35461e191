package edit

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/demo"
	"koff/edit/apply"
	"koff/edit/audit"
	"koff/edit/plan"
	"koff/kafka"
	"koff/model"
	"koff/model/java"
	"koff/model/store"
)

// harness is a real broker, a live tailer feeding a Store, and an Editor.
type harness struct {
	t      testing.TB
	broker *demo.Broker
	addr   string
	store  *store.Store
	ed     *Editor
	kafka  kafka.Config
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	return newClusterHarness(t, "")
}

// newClusterHarness is a harness on a broker whose cluster id is id
// ("koff-demo" when empty): two of them are two clusters.
func newClusterHarness(t testing.TB, id string) *harness {
	t.Helper()
	b, err := demo.StartBrokerWith(demo.BrokerOptions{Listen: "127.0.0.1:0", ClusterID: id})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if err := b.CreateTopic("connect-offsets", 25, map[string]string{"cleanup.policy": "compact"}); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, broker: b, addr: b.Bootstrap(), store: store.NewStore(store.StoreOptions{}), kafka: kafka.Config{Brokers: []string{b.Bootstrap()}}}
	tl := kafka.NewTailer(h.kafka, []string{"connect-offsets"}, h.store, kafka.TailerOptions{MaxWait: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tl.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-tl.CaughtUp():
	case <-time.After(10 * time.Second):
		t.Fatal("tailer not live")
	}
	h.ed = &Editor{
		Store: h.store, Kafka: h.kafka, Topics: []string{"connect-offsets"},
		User: "tester", Audit: &audit.Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")},
		Cmd: plan.CommandLine{Globals: []string{"-b", h.addr}},
		// No REST, no config topic: every edit is watched after its
		// read-back (edit/apply/watch.go); tests of other things watch briefly.
		WatchLimit: 200 * time.Millisecond,
	}
	return h
}

// write produces a record as a worker (or a careless operator) would, to
// an explicit partition, and waits until the tailer has read it.
func (h *harness) write(partition int, key, value string) {
	h.t.Helper()
	r := store.Record{Topic: "connect-offsets", Partition: partition, Key: []byte(key), Time: time.Now()}
	if value != "" {
		r.Value = []byte(value)
	}
	if err := h.kafka.WriteRecords(context.Background(), []store.Record{r}); err != nil {
		h.t.Fatal(err)
	}
	// Wait for the record itself, not for its value: the same value written
	// twice would otherwise count as read before the second record is.
	tp := model.TopicPartition{Topic: "connect-offsets", Partition: partition}
	end := h.endOffset(partition)
	h.waitFor("the tailer to read "+key, func() bool { return h.store.ReadTo(tp) >= end })
}

// endOffset is one partition's log-end offset.
func (h *harness) endOffset(partition int) int64 {
	h.t.Helper()
	res, err := h.kafka.Client().ListOffsets(context.Background(), &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{"connect-offsets": {kafkago.LastOffsetOf(partition)}}})
	if err != nil {
		h.t.Fatal(err)
	}
	ps := res.Topics["connect-offsets"]
	if len(ps) != 1 || ps[0].Error != nil {
		h.t.Fatalf("no end offset for partition %d: %+v", partition, ps)
	}
	return ps[0].LastOffset
}

// workerWrite writes to the key's murmur2 partition, as Connect does.
func (h *harness) workerWrite(key, value string) int {
	p := java.PartitionFor([]byte(key), 25)
	h.write(p, key, value)
	return p
}

func (h *harness) waitFor(what string, ok func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// endOffsets sums the end offsets of every partition: a write changes it.
func (h *harness) endOffsets() int64 {
	h.t.Helper()
	c := h.kafka.Client()
	var reqs []kafkago.OffsetRequest
	for p := 0; p < 25; p++ {
		reqs = append(reqs, kafkago.LastOffsetOf(p))
	}
	res, err := c.ListOffsets(context.Background(), &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{"connect-offsets": reqs}})
	if err != nil {
		h.t.Fatal(err)
	}
	var sum int64
	for _, p := range res.Topics["connect-offsets"] {
		sum += p.LastOffset
	}
	return sum
}

func (h *harness) rows(conn string) []model.PartitionRow {
	return h.store.Partitions(model.ConnectorID{Topic: "connect-offsets", Name: conn})
}

func mustPartition(t *testing.T, s string) java.Object {
	t.Helper()
	p, err := plan.ParsePartition(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustOffset(t *testing.T, s string) java.Object {
	t.Helper()
	o, _, err := plan.ParseOffset(s)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func demoBroker(h *harness) *demo.Broker { return h.broker }

// readBefore and readAfter are partitions of the 25 that a restarted
// worker reads before and after partition p (model.ReadAfter) however many
// partitions of the topic hold records (the poll's map is sized by them):
// where a second copy of the same key bytes is a stray, or the copy the
// task reads.
func readBefore(p int) int {
	for q := range 25 {
		if q != p && readAfterAlways(p, q) {
			return q
		}
	}
	panic("no partition is read before " + strconv.Itoa(p))
}

func readAfter(p int) int {
	for q := range 25 {
		if q != p && readAfterAlways(q, p) {
			return q
		}
	}
	panic("no partition is read after " + strconv.Itoa(p))
}

func readAfterAlways(a, b int) bool {
	for with := 2; with <= 25; with++ {
		if !model.ReadAfter("connect-offsets", a, b, 25, with) {
			return false
		}
	}
	return true
}

// current is the value the Store holds now under a write's key (nil: none
// or deleted), as the write path reads it (apply.Current).
func (h *harness) current(w plan.Write) []byte { return apply.Current(h.store, w) }

// readBack: the Store holds every write of the plan, as the read-back
// waits for (apply/verify.go).
func (h *harness) readBack(p *plan.Plan) bool { return apply.WritesVisible(h.store, p) }
