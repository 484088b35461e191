package edit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"koff/connect"
	"koff/edit/apply"
	"koff/edit/audit"
	"koff/edit/plan"
	"koff/kafka"
	"koff/model"
	"koff/model/java"
	"koff/model/store"
)

// secondEditor is another koff on the same broker: its own tailer and
// Store, the same audit log (one operator's machine).
func (h *harness) secondEditor(user string) *Editor {
	h.t.Helper()
	store := store.NewStore(store.StoreOptions{})
	tl := kafka.NewTailer(h.kafka, []string{"connect-offsets"}, store, kafka.TailerOptions{MaxWait: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tl.Run(ctx); close(done) }()
	h.t.Cleanup(func() { cancel(); <-done })
	select {
	case <-tl.CaughtUp():
	case <-time.After(10 * time.Second):
		h.t.Fatal("second tailer not live")
	}
	return &Editor{Store: store, Kafka: h.kafka, Topics: []string{"connect-offsets"}, User: user, Audit: h.ed.Audit, WatchLimit: h.ed.WatchLimit}
}

// TestTwoEditorsOfOnePartitionNeverBothWin races two editors that planned
// from the same offset. Both pass the optimistic check; the produce
// requests are held until both have arrived, so both write, in whichever
// order the broker takes them. Exactly one reports verified, the other
// names the value that won and who wrote it, and the value in force is
// the winner's.
func TestTwoEditorsOfOnePartitionNeverBothWin(t *testing.T) {
	h := newHarness(t)
	key := `["race",{"table":"t"}]`
	h.workerWrite(key, `{"id":111}`)
	b := h.secondEditor("bob")
	h.ed.User = "alice"
	h.ed.VerifyTimeout, b.VerifyTimeout = 5*time.Second, 5*time.Second
	id := model.PartitionID{TopicPartition: model.TopicPartition{Topic: "connect-offsets", Partition: java.PartitionFor([]byte(key), 25)}, Key: key}
	for run := 0; run < 6; run++ {
		va, vb := fmt.Sprintf(`{"id":%d}`, 1000+2*run), fmt.Sprintf(`{"id":%d}`, 1001+2*run)
		var arrived sync.WaitGroup
		arrived.Add(2)
		hold := func(n int, _ model.TopicPartition) error {
			if n == 1 { // the first request of each editor: the edit itself
				arrived.Done()
				arrived.Wait()
			}
			return nil
		}
		pl := func(ed *Editor, v string) *plan.Plan {
			p, err := ed.Plan(context.Background(), plan.Request{Connector: "race", Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, `{"table":"t"}`), Offset: mustOffset(t, v)}}})
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		pa, pb := pl(h.ed, va), pl(b, vb)
		if string(pa.Changes[0].Before) != string(pb.Changes[0].Before) {
			t.Fatalf("run %d: the editors planned from %s and %s", run, pa.Changes[0].Before, pb.Changes[0].Before)
		}
		h.ed.Kafka = &spyWriter{Config: h.kafka, before: hold}
		b.Kafka = &spyWriter{Config: h.kafka, before: hold}
		type out struct {
			res apply.Result
			err error
		}
		results := make([]out, 2)
		var wg sync.WaitGroup
		for i, x := range []struct {
			ed *Editor
			p  *plan.Plan
		}{{h.ed, pa}, {b, pb}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := x.ed.Apply(context.Background(), x.p)
				results[i] = out{res, err}
			}()
		}
		wg.Wait()
		verified, winner := 0, ""
		for i, o := range results {
			if o.err == nil && o.res.Verified {
				verified++
				winner = []string{va, vb}[i]
			}
		}
		if verified != 1 {
			t.Fatalf("run %d: %d verified: %v / %v; %v / %v", run, verified, results[0].err, results[0].res.Summary(), results[1].err, results[1].res.Summary())
		}
		for i, o := range results {
			if o.res.Verified {
				continue
			}
			other := []string{"bob", "alice"}[i]
			msg := o.res.Summary()
			if o.err != nil {
				msg = o.err.Error()
			}
			t.Logf("run %d: loser: %s", run, msg)
			if !strings.Contains(msg, winner) || !strings.Contains(msg, other) {
				t.Errorf("run %d: the loser says %q: not the winning value %s by %s", run, msg, winner, other)
			}
		}
		h.waitFor("the winner's value in force", func() bool {
			d, ok := h.store.Partition(id)
			return ok && string(d.Value) == winner
		})
		h.waitFor("the second editor to see it", func() bool {
			d, ok := b.Store.Partition(id)
			return ok && string(d.Value) == winner
		})
	}
	edits, _ := h.ed.Audit.Edits()
	counts := map[string]int{}
	for _, ed := range edits {
		counts[ed.Result()]++
	}
	if counts[audit.ResultVerified] != 6 || counts[audit.ResultLost]+counts[audit.ResultRefused] != 6 {
		t.Errorf("audit outcomes: %v", counts)
	}
}

// An editor that comes second after the first has finished is refused
// before writing anything, with the value and who wrote it.
func TestAnEditPlannedBeforeAnotherLandedIsRefused(t *testing.T) {
	h := newHarness(t)
	key := `["race",{"table":"t"}]`
	h.workerWrite(key, `{"id":111}`)
	b := h.secondEditor("bob")
	h.ed.User = "alice"
	req := func(v string) plan.Request {
		return plan.Request{Connector: "race", Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, `{"table":"t"}`), Offset: mustOffset(t, v)}}}
	}
	pb, err := b.Plan(context.Background(), req(`{"id":2}`))
	if err != nil {
		t.Fatal(err)
	}
	pa, _ := h.ed.Plan(context.Background(), req(`{"id":1}`))
	if res, err := h.ed.Apply(context.Background(), pa); err != nil || !res.Verified {
		t.Fatalf("first edit: %v", err)
	}
	before := h.endOffsets()
	// Bob's Store may not have read Alice's record yet: the log is read.
	_, err = b.Apply(context.Background(), pb)
	var c *apply.ConflictError
	if !errors.As(err, &c) || !strings.Contains(err.Error(), `{"id":1}`) {
		t.Fatalf("second edit: %v", err)
	}
	if h.endOffsets() != before {
		t.Error("the refused edit wrote")
	}
}

// A record that lands after koff's own and stays in force is reported as
// an overwrite, with the value in force, never as "not verified".
func TestAWriteOverwrittenAfterItLandedSaysSo(t *testing.T) {
	h := newHarness(t)
	key := `["race",{"table":"t"}]`
	h.workerWrite(key, `{"id":111}`)
	h.ed.VerifyTimeout = time.Second
	p, err := h.ed.Plan(context.Background(), plan.Request{Connector: "race", Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, `{"table":"t"}`), Offset: mustOffset(t, `{"id":5}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	spy := &spyWriter{Config: h.kafka}
	h.ed.Kafka = spy
	part := java.PartitionFor([]byte(key), 25)
	// A running task commits right after koff's write.
	spy.after = func(model.TopicPartition) {
		spy.after = nil
		if err := h.kafka.WriteRecords(context.Background(), []store.Record{{Topic: "connect-offsets", Partition: part, Key: []byte(key), Value: []byte(`{"id":112}`)}}); err != nil {
			t.Error(err)
		}
	}
	res, err := h.ed.Apply(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Summary(); res.Verified || len(res.Overwritten) != 1 || !strings.Contains(s, `written, then overwritten`) || !strings.Contains(s, `holds {"id":112}, written by another koff, not in this audit log (a record with koff's header, connect-offsets/`+strconv.Itoa(part)+` offset `) || strings.Contains(s, "NOT verified") {
		t.Errorf("summary: %s", s)
	}
	edits, _ := h.ed.Audit.Edits()
	if last := edits[len(edits)-1]; last.Result() != audit.ResultOverwritten {
		t.Errorf("audit result %s", last.Result())
	}
}

// barrierREST holds each AlterOffsets until both editors have sent theirs.
type barrierREST struct {
	REST
	arrived *sync.WaitGroup
}

func (b barrierREST) AlterOffsets(ctx context.Context, name string, body []byte) (string, error) {
	b.arrived.Done()
	b.arrived.Wait()
	return b.REST.AlterOffsets(ctx, name, body)
}

// barrierRESTOffsets keeps GET offsets (verification) visible through the
// wrapper.
type barrierRESTOffsets struct {
	barrierREST
}

func (b barrierRESTOffsets) Offsets(ctx context.Context, name string) (connect.Offsets, error) {
	return b.REST.(apply.OffsetsReader).Offsets(ctx, name)
}

// Two PATCHes of one partition through Connect's REST API, both sent after
// both editors checked: the worker writes both records, and the order in
// the topic decides, verified by GET and by the topic.
func TestTwoRESTEditsOfOnePartitionNeverBothWin(t *testing.T) {
	h, _ := demoHarness(t)
	ctx := context.Background()
	if err := h.ed.StopConnector(ctx, "jdbc-shop"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the final flush to be read", func() bool { return time.Since(h.ordersRow().Updated) > 300*time.Millisecond })
	b := h.secondEditor("bob")
	b.REST = h.ed.REST
	h.ed.User = "alice"
	rest := h.ed.REST
	for run := 0; run < 3; run++ {
		var arrived sync.WaitGroup
		arrived.Add(2)
		wrap := barrierRESTOffsets{barrierREST{REST: rest, arrived: &arrived}}
		h.ed.REST, b.REST = wrap, wrap
		values := []string{fmt.Sprintf(`{"incrementing":%d}`, 10+2*run), fmt.Sprintf(`{"incrementing":%d}`, 11+2*run)}
		plans := make([]*plan.Plan, 2)
		for i, ed := range []*Editor{h.ed, b} {
			p, err := ed.Plan(ctx, plan.Request{Connector: "jdbc-shop", Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, ordersPartition), Offset: mustOffset(t, values[i])}}})
			if err != nil {
				t.Fatal(err)
			}
			if p.Path != plan.PathREST {
				t.Fatalf("path %s (%s)", p.Path, p.PathReason)
			}
			plans[i] = p
		}
		results := make([]apply.Result, 2)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, ed := range []*Editor{h.ed, b} {
			wg.Add(1)
			go func() { defer wg.Done(); results[i], errs[i] = ed.Apply(ctx, plans[i]) }()
		}
		wg.Wait()
		winner := -1
		for i := range results {
			if errs[i] == nil && results[i].Verified {
				if winner >= 0 {
					t.Fatalf("run %d: both verified", run)
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("run %d: none verified: %v %s / %v %s", run, errs[0], results[0].Summary(), errs[1], results[1].Summary())
		}
		loser := results[1-winner]
		if len(loser.Lost) != 1 || !strings.Contains(loser.Summary(), values[winner]) {
			t.Errorf("run %d: loser: %v %s", run, errs[1-winner], loser.Summary())
		}
		h.waitFor("the winner's value in force", func() bool { return h.ordersRow().Offset == values[winner] })
		got, err := rest.(apply.OffsetsReader).Offsets(ctx, "jdbc-shop")
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, o := range got.Offsets {
			if strings.Contains(string(o.Partition), `"shop.public.orders"`) {
				found = string(o.Offset) == values[winner]
			}
		}
		if !found {
			t.Errorf("run %d: GET offsets does not show the winner's %s: %+v", run, values[winner], got)
		}
	}
}

// committer commits another value right after koff's group commit, as a
// second editor (or a sink task) would.
type committer struct {
	spyWriter
	then map[model.TopicPartition]int64
}

func (c *committer) CommitGroupOffsets(ctx context.Context, group string, offsets map[model.TopicPartition]int64) error {
	if err := c.Config.CommitGroupOffsets(ctx, group, offsets); err != nil {
		return err
	}
	return c.Config.CommitGroupOffsets(ctx, group, c.then)
}

func TestASinkCommitReplacedAfterItLandedSaysSo(t *testing.T) {
	h, _ := sinkHarness(t)
	tp0 := model.TopicPartition{Topic: "orders", Partition: 0}
	p, err := h.ed.PlanSink(context.Background(), plan.SinkRequest{Connector: "s3", Kind: plan.KindSet, Partitions: []model.TopicPartition{tp0}, Strategy: plan.SinkStrategy{Kind: plan.SinkToOffset, Offset: 7}})
	if err != nil {
		t.Fatal(err)
	}
	h.ed.Kafka = &committer{spyWriter: spyWriter{Config: h.kafka}, then: map[model.TopicPartition]int64{tp0: 9}}
	res, err := h.ed.Apply(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Summary(); res.Verified || !strings.Contains(s, `written, then overwritten`) || !strings.Contains(s, `{"kafka_topic":"orders","kafka_partition":0} holds {"kafka_offset":9}`) {
		t.Errorf("summary: %s", s)
	}
}
