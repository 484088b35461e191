package edit

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"koff/connect"
	"koff/demo"
	"koff/edit/apply"
	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/planner"
	"koff/kafka"
	"koff/model"
	"koff/model/store"
)

// demoHarness is the demo cluster with its Connect REST emulator, a live
// tailer, and an Editor that talks REST.
func demoHarness(t *testing.T) (*harness, *demo.Cluster) {
	t.Helper()
	c, err := demo.Start(context.Background(), demo.Options{FlushInterval: 200 * time.Millisecond, ConnectListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	h := &harness{t: t, addr: c.Bootstrap(), store: store.NewStore(store.StoreOptions{}), kafka: kafka.Config{Brokers: []string{c.Bootstrap()}}}
	tl := kafka.NewTailer(h.kafka, []string{"connect-offsets"}, h.store, kafka.TailerOptions{MaxWait: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tl.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	<-tl.CaughtUp()
	rest, err := connect.New(connect.Config{URL: c.ConnectURL()})
	if err != nil {
		t.Fatal(err)
	}
	h.ed = &Editor{
		Store: h.store, Kafka: h.kafka, REST: rest, Topics: []string{"connect-offsets"},
		User: "tester", Audit: &audit.Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")},
	}
	return h, c
}

const ordersPartition = `{"protocol":"1","table":"shop.public.orders"}`

func incrementing(t *testing.T, raw string) int64 {
	t.Helper()
	o, err := model.ParseOffset([]byte(raw))
	if err != nil {
		t.Fatalf("offset %s: %v", raw, err)
	}
	v, _ := o.Get("incrementing")
	num, _ := v.(json.Number)
	n, err := num.Int64()
	if err != nil {
		t.Fatalf("incrementing in %s: %v", raw, err)
	}
	return n
}

func (h *harness) ordersRow() model.PartitionRow {
	for _, r := range h.rows("jdbc-shop") {
		if r.Partition == ordersPartition {
			return r
		}
	}
	h.t.Fatal("no orders partition")
	return model.PartitionRow{}
}

func TestRESTEditRefusedWhileRunning(t *testing.T) {
	h, _ := demoHarness(t)
	ctx := context.Background()
	pl, err := h.ed.Plan(ctx, plan.Request{Connector: "jdbc-shop", Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, ordersPartition), Offset: mustOffset(t, `{"incrementing":1}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if pl.State != "RUNNING" || pl.Path != plan.PathREST {
		t.Fatalf("plan state %q path %q (%s)", pl.State, pl.Path, pl.PathReason)
	}
	_, err = h.ed.Apply(ctx, pl)
	var ns *apply.NotStoppedError
	// koff's words, not Connect's: Connect was not asked to alter anything.
	want := "jdbc-shop is RUNNING (Connect REST status, 2 tasks): koff changes offsets only of a STOPPED connector, as Connect does; stop it first (koff stop jdbc-shop)"
	if !errors.As(err, &ns) || err.Error() != want || strings.Contains(err.Error(), "Connectors must be") {
		t.Errorf("apply while RUNNING: %v", err)
	}
}

// The whole flow an operator runs: stop, move an offset back through REST,
// resume, and the connector continues from the new offset.
func TestRESTStopPatchResumeContinuesFromNewOffset(t *testing.T) {
	h, _ := demoHarness(t)
	ctx := context.Background()
	if err := h.ed.StopConnector(ctx, "jdbc-shop"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the final flush to be read", func() bool { return time.Since(h.ordersRow().Updated) > 300*time.Millisecond })
	old := incrementing(t, h.ordersRow().Offset)
	target := old / 2
	pl, err := h.ed.Plan(ctx, plan.Request{Connector: "jdbc-shop", Kind: plan.KindSet, Items: []plan.Item{{
		Partition: mustPartition(t, `{"table":"shop.public.orders","protocol":"1"}`),
		Offset:    mustOffset(t, `{"incrementing":`+strconv.FormatInt(target, 10)+`}`),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if pl.State != "STOPPED" || pl.Path != plan.PathREST {
		t.Fatalf("plan state %q path %q (%s)", pl.State, pl.Path, pl.PathReason)
	}
	res, err := h.ed.Apply(ctx, pl)
	if err != nil || !res.Verified {
		t.Fatalf("apply: %v (verified %v)", err, res.Verified)
	}
	if !strings.Contains(res.Message, "have been altered successfully") {
		t.Errorf("Connect's message = %q", res.Message)
	}
	if got := incrementing(t, h.ordersRow().Offset); got != target {
		t.Fatalf("stored offset %d, want %d", got, target)
	}
	if err := h.ed.ResumeConnector(ctx, "jdbc-shop"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the resumed connector to flush", func() bool { return incrementing(t, h.ordersRow().Offset) != target })
	if got := incrementing(t, h.ordersRow().Offset); got <= target || got >= old {
		t.Errorf("after resume the connector flushed %d: want it to continue from %d (below the old %d)", got, target, old)
	}
}

func TestRESTResetAllOnStoppedConnector(t *testing.T) {
	h, _ := demoHarness(t)
	ctx := context.Background()
	if err := h.ed.StopConnector(ctx, "mm2-primary"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the final flush", func() bool {
		for _, r := range h.rows("mm2-primary") {
			if time.Since(r.Updated) < 300*time.Millisecond {
				return false
			}
		}
		return true
	})
	pl, err := h.ed.Plan(ctx, plan.Request{Connector: "mm2-primary", Kind: plan.KindResetAll})
	if err != nil {
		t.Fatal(err)
	}
	if pl.Path != plan.PathREST || len(pl.Changes) != 24 {
		t.Fatalf("path %s (%s), %d changes", pl.Path, pl.PathReason, len(pl.Changes))
	}
	res, err := h.ed.Apply(ctx, pl)
	if err != nil || !res.Verified || !strings.Contains(res.Message, "have been reset successfully") {
		t.Fatalf("reset: %v %+v", err, res)
	}
	for _, r := range h.rows("mm2-primary") {
		if !r.Deleted {
			t.Errorf("%s survived the reset", r.Partition)
		}
	}
}

func TestRESTUnknownConnector(t *testing.T) {
	h, _ := demoHarness(t)
	_, err := h.ed.Plan(context.Background(), plan.Request{Connector: "nosuch", Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, `{"a":"b"}`), Offset: mustOffset(t, `{"o":1}`)}}})
	// Nowhere in the offsets topic, no group, and Connect's 404: refused,
	// with the names koff knows that are closest.
	var unknown *planner.UnknownConnectorError
	if !errors.As(err, &unknown) || !strings.Contains(err.Error(), "Connect does not list it") {
		t.Errorf("plan for an unknown connector: %v", err)
	}
	// Stop says it in the same words, with the names closest to it.
	if err := h.ed.StopConnector(context.Background(), "nosuch"); !errors.As(err, &unknown) || err.Error() != "unknown connector nosuch: Connect does not list it." {
		t.Errorf("stop of an unknown connector: %v", err)
	}
}

// Stop → apply → resume: stopping makes the tasks commit once more, so the
// plan made while RUNNING is stale; Replan plans the same edit on the
// offsets left at stop.
func TestReplanAfterStopAppliesTheConfirmedEdit(t *testing.T) {
	h, _ := demoHarness(t)
	ctx := context.Background()
	h.waitFor("es-search's first commits", func() bool {
		p, err := h.ed.groupPoll(ctx, "es-search-v2")
		return err == nil && len(p.Partitions) >= 4
	})
	pl, err := h.ed.PlanSink(ctx, plan.SinkRequest{Connector: "es-search", Kind: plan.KindSet, Strategy: plan.SinkStrategy{Kind: plan.SinkShiftBy, Shift: -1}})
	if err != nil {
		t.Fatal(err)
	}
	if pl.State != "RUNNING" || !strings.Contains(pl.Command, "koff set es-search --shift-by -1") {
		t.Fatalf("plan: state %s command %s", pl.State, pl.Command)
	}
	time.Sleep(500 * time.Millisecond) // the sink commits again meanwhile
	if err := h.ed.StopConnector(ctx, "es-search"); err != nil {
		t.Fatal(err)
	}
	var conflict *apply.ConflictError
	if _, err := h.ed.Apply(ctx, pl); !errors.As(err, &conflict) {
		t.Fatalf("the stale plan applied: %v", err)
	}
	fresh, err := h.ed.Replan(ctx, pl)
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.ed.Apply(ctx, fresh)
	if err != nil || !res.Verified {
		t.Fatalf("replanned apply: %v (verified %v)", err, res.Verified)
	}
	for _, c := range fresh.Sink {
		if c.After != c.Before-1 {
			t.Errorf("%s: %d → %d, want one back from where it stopped", c.TopicPartition, c.Before, c.After)
		}
	}
}

// An orphan (offsets, no connector in Connect) and a connector not created
// yet are edited in the offsets topic even with REST configured.
func TestOrphanResetAndCopyWithREST(t *testing.T) {
	h, _ := demoHarness(t)
	ctx := context.Background()
	req, err := h.ed.CopyRequest("jdbc-old-orders", "jdbc-orders-v2")
	if err != nil {
		t.Fatal(err)
	}
	req.Create = true // a connector not created yet
	pl, err := h.ed.Plan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !pl.Absent || pl.Path != plan.PathTopic || !strings.Contains(strings.Join(pl.Warnings, " "), "jdbc-orders-v2 is not in Connect") {
		t.Fatalf("copy plan: absent %v path %s warnings %q", pl.Absent, pl.Path, pl.Warnings)
	}
	if res, err := h.ed.Apply(ctx, pl); err != nil || !res.Verified {
		t.Fatalf("copy: %v %+v", err, res)
	}
	if n := len(h.rows("jdbc-orders-v2")); n != 2 {
		t.Errorf("copied %d partitions, want the orphan's 2", n)
	}
	pl, err = h.ed.Plan(ctx, plan.Request{Connector: "jdbc-old-orders", Kind: plan.KindResetAll})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := h.ed.Apply(ctx, pl); err != nil || !res.Verified {
		t.Fatalf("reset of the orphan: %v %+v", err, res)
	}
	for _, r := range h.rows("jdbc-old-orders") {
		if !r.Deleted {
			t.Errorf("%s survived", r.Partition)
		}
	}
}

// The Editor's stop and resume (the CLI's, the dashboard's S and R, koff
// serve's) follow every edit's rule: no audit line, no action. Done, the
// line names the cluster.
func TestStopAndResumeAreRefusedWithoutTheirAuditLine(t *testing.T) {
	h, c := demoHarness(t)
	ctx := context.Background()
	good := h.ed.Audit
	h.ed.Audit = &audit.Log{Path: t.TempDir()} // a directory: nothing can be appended
	if err := h.ed.StopConnector(ctx, "jdbc-shop"); err == nil || !strings.Contains(err.Error(), "not stopped") {
		t.Errorf("stop without its audit line: %v", err)
	}
	if st := c.ConnectorState("jdbc-shop"); st != "RUNNING" {
		t.Errorf("the connector was stopped unaudited: %s", st)
	}
	h.ed.Audit = good
	if err := h.ed.StopConnector(ctx, "jdbc-shop"); err != nil {
		t.Fatal(err)
	}
	h.ed.Audit = &audit.Log{Path: t.TempDir()}
	if err := h.ed.ResumeConnector(ctx, "jdbc-shop"); err == nil || !strings.Contains(err.Error(), "not resumed") {
		t.Errorf("resume without its audit line: %v", err)
	}
	if st := c.ConnectorState("jdbc-shop"); st != "STOPPED" {
		t.Errorf("the connector was resumed unaudited: %s", st)
	}
	cluster, _ := h.kafka.ClusterID(ctx)
	eds, _ := good.Edits()
	if len(eds) != 1 || eds[0].Start.Kind != plan.KindStop || eds[0].Start.Cluster != cluster || cluster == "" {
		t.Errorf("the stop's line: %+v (cluster %q)", eds, cluster)
	}
}
