package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"koff/edit"
	"koff/edit/apply"
	"koff/edit/audit"
	"koff/edit/plan"
	"koff/kafka"
	"koff/model"
	"koff/model/store"
)

// slowWriter takes a while over each produce request and says when the
// first one started.
type slowWriter struct {
	kafka.Config
	started  chan struct{}
	inflight atomic.Int32
	calls    atomic.Int32
}

func (w *slowWriter) ProduceBatch(ctx context.Context, tp model.TopicPartition, recs []store.Record) (int64, error) {
	w.inflight.Add(1)
	defer w.inflight.Add(-1)
	w.calls.Add(1)
	select {
	case w.started <- struct{}{}:
	default:
	}
	time.Sleep(200 * time.Millisecond)
	return w.Config.ProduceBatch(ctx, tp, recs)
}

// The dashboard ending while an edit is written: the produce request in
// flight finishes, no more are sent, and finish returns once the outcome is
// in the audit log.
func TestEndingTheDashboardStopsAnEditBetweenProduceRequests(t *testing.T) {
	addr := offsetsBroker(t)
	var recs [][2]string
	req := plan.Request{Connector: "src", Kind: plan.KindImport}
	for i := 0; i < 40; i++ {
		recs = append(recs, [2]string{fmt.Sprintf(`["src",{"t":"%02d"}]`, i), `{"n":1}`})
		p, _ := plan.ParsePartition(fmt.Sprintf(`{"t":"%02d"}`, i))
		o, _, _ := plan.ParseOffset(`{"n":2}`)
		req.Items = append(req.Items, plan.Item{Partition: p, Offset: o})
	}
	produceConnect(t, addr, recs...)
	cfg := kafka.Config{Brokers: []string{addr}}
	store := store.NewStore(store.StoreOptions{})
	tl := kafka.NewTailer(cfg, []string{"connect-offsets"}, store, kafka.TailerOptions{MaxWait: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tl.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	<-tl.CaughtUp()
	w := &slowWriter{Config: cfg, started: make(chan struct{}, 1)}
	auditLog := &audit.Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
	ed := newInflightEditor(&edit.Editor{Store: store, Kafka: w, Topics: []string{"connect-offsets"}, User: "op", Audit: auditLog, WatchLimit: 200 * time.Millisecond})
	p, err := ed.Plan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	applied := make(chan error, 1)
	go func() { _, err := ed.Apply(context.Background(), p); applied <- err }()
	<-w.started
	var stderr bytes.Buffer
	ed.finish(&stderr, 10*time.Second)
	// What finish promises is read at once: no produce request is in
	// flight and the outcome is in the audit log. Apply's own return to its
	// caller may come a moment later.
	if n := w.inflight.Load(); n != 0 {
		t.Fatalf("finish returned with %d produce requests in flight", n)
	}
	edits, _ := auditLog.Edits()
	if len(edits) != 1 || edits[0].Result() != audit.ResultInterrupted || len(edits[0].WrittenSet()) != 1 {
		t.Fatalf("finish returned before the outcome was in the audit log: %d edits", len(edits))
	}
	select {
	case err := <-applied:
		if !errors.Is(err, apply.ErrInterrupted) {
			t.Errorf("apply: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("apply did not return after finish")
	}
	if w.calls.Load() != 1 {
		t.Errorf("%d produce requests sent, want 1: the rest should not start once the dashboard ends", w.calls.Load())
	}
}
