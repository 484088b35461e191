package edit

import (
	"context"
	"errors"
	"strings"
	"testing"

	"koff/edit/plan"
	"koff/edit/planner"
	"koff/model"
)

// A partition the connector never had is a typo until --create says
// otherwise: refused, nothing written, the closest stored ones named.
func TestUnknownSourcePartitionIsRefusedWithDidYouMean(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	h.workerWrite(`["jdbc",{"protocol":"1","table":"shop.orders"}]`, `{"incrementing":48408}`)
	h.workerWrite(`["jdbc",{"protocol":"1","table":"shop.customers"}]`, `{"incrementing":7}`)
	h.workerWrite(`["jdbc",{"protocol":"1","table":"shop.gone"}]`, ``) // reset once: still its own
	h.waitFor("three rows", func() bool { return len(h.rows("jdbc")) == 3 })
	before := h.endOffsets()
	for _, tc := range []struct {
		name string
		req  plan.Request
		want []string
	}{
		{"misspelt value", plan.Request{Connector: "jdbc", Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, `{"protocol":"1","table":"shop.ordrs"}`), Offset: mustOffset(t, `{"incrementing":1}`)}}},
			[]string{`{"protocol":"1","table":"shop.ordrs"} (did you mean {"protocol":"1","table":"shop.orders"}?)`, "--create"}},
		{"missing field", plan.Request{Connector: "jdbc", Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, `{"table":"shop.customers"}`), Offset: mustOffset(t, `{"incrementing":1}`)}}},
			[]string{`did you mean {"protocol":"1","table":"shop.customers"}`}},
		{"import lists each", plan.Request{Connector: "jdbc", Kind: plan.KindImport, Items: []plan.Item{
			{Partition: mustPartition(t, `{"protocol":"1","table":"shop.orders"}`), Offset: mustOffset(t, `{"incrementing":1}`)},
			{Partition: mustPartition(t, `{"protocol":"1","table":"shop.custmers"}`), Offset: mustOffset(t, `{"incrementing":1}`)},
			{Partition: mustPartition(t, `{"protocol":"2","table":"shop.orders"}`), Offset: mustOffset(t, `{"incrementing":1}`)}}},
			[]string{`shop.custmers"} (did you mean {"protocol":"1","table":"shop.customers"}?)`, `{"protocol":"2","table":"shop.orders"} (did you mean {"protocol":"1","table":"shop.orders"}`}},
		{"named reset", plan.Request{Connector: "jdbc", Kind: plan.KindReset, Create: true, Items: []plan.Item{{Partition: mustPartition(t, `{"protocol":"1","table":"shop.ordrs"}`)}}},
			[]string{"did you mean", "nothing to reset"}},
	} {
		_, err := h.ed.Plan(ctx, tc.req)
		var u *planner.UnknownPartitionError
		if !errors.As(err, &u) {
			t.Errorf("%s: %v, want an unknown partition refused", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", tc.name, err, w)
			}
		}
	}
	if strings.Contains(mustPlanErr(h, plan.Request{Connector: "jdbc", Kind: plan.KindImport, Items: []plan.Item{
		{Partition: mustPartition(t, `{"protocol":"1","table":"shop.custmers"}`), Offset: mustOffset(t, `{"incrementing":1}`)}}}), "shop.orders\"} (") {
		t.Error("a known partition of the file was listed as unknown")
	}
	// Once reset, a partition is still the connector's: set again freely.
	if _, err := h.ed.Plan(ctx, plan.Request{Connector: "jdbc", Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, `{"table":"shop.gone","protocol":"1"}`), Offset: mustOffset(t, `{"incrementing":3}`)}}}); err != nil {
		t.Errorf("set of a reset partition: %v", err)
	}
	if h.endOffsets() != before {
		t.Fatal("a refused plan wrote to the offsets topic")
	}
	// --create adds it.
	p, err := h.ed.Plan(ctx, plan.Request{Connector: "jdbc", Kind: plan.KindSet, Create: true, Items: []plan.Item{{Partition: mustPartition(t, `{"protocol":"1","table":"shop.payments"}`), Offset: mustOffset(t, `{"incrementing":1}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := h.ed.Apply(ctx, p); err != nil || !res.Verified {
		t.Fatalf("--create: %v", err)
	}
}

func mustPlanErr(h *harness, req plan.Request) string {
	_, err := h.ed.Plan(context.Background(), req)
	if err == nil {
		return ""
	}
	return err.Error()
}

// Connect answers a second DELETE of a stopped connector's offsets with
// 200: a whole reset of a connector with nothing left is no failure.
func TestResetAllOfNothingLeftSaysNothingToReset(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	h.workerWrite(`["mm2",{"cluster":"primary","partition":0,"topic":"orders"}]`, `{"offset":1}`)
	h.workerWrite(`["mm2",{"cluster":"primary","partition":0,"topic":"orders"}]`, ``)
	h.waitFor("the tombstone", func() bool { r := h.rows("mm2"); return len(r) == 1 && r[0].Deleted })
	_, err := h.ed.Plan(ctx, plan.Request{Connector: "mm2", Kind: plan.KindResetAll})
	var none *planner.NothingToResetError
	if !errors.As(err, &none) || !strings.HasPrefix(err.Error(), "nothing to reset: connector mm2 has no offsets in ") {
		t.Fatalf("reset of nothing left: %v", err)
	}
	// A name koff never saw stays a typo.
	var unknown *planner.UnknownConnectorError
	if _, err := h.ed.Plan(ctx, plan.Request{Connector: "mm3", Kind: plan.KindResetAll}); !errors.As(err, &unknown) {
		t.Errorf("reset of an unknown name: %v", err)
	}
}

// A sink's topic-partition the group never committed is a typo unless
// --create names one the topic really has.
func TestUnknownSinkPartitionIsRefusedUnlessTheTopicHasIt(t *testing.T) {
	h, _ := sinkHarness(t)
	ctx := context.Background()
	if err := createTopic(h, "payments", 2); err != nil {
		t.Fatal(err)
	}
	set := func(create bool, tp model.TopicPartition) error {
		_, err := h.ed.PlanSink(ctx, plan.SinkRequest{Connector: "s3", Kind: plan.KindSet, Group: "connect-s3", Create: create,
			Strategy: plan.SinkStrategy{Kind: plan.SinkToEarliest}, Partitions: []model.TopicPartition{tp}})
		return err
	}
	err := set(false, model.TopicPartition{Topic: "ordrs", Partition: 1})
	var u *planner.UnknownPartitionError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), `never committed {"kafka_topic":"ordrs","kafka_partition":1} (did you mean`) || !strings.Contains(err.Error(), `{"kafka_topic":"orders","kafka_partition":1}`) {
		t.Errorf("misspelt topic: %v", err)
	}
	if err := set(false, model.TopicPartition{Topic: "payments", Partition: 0}); !errors.As(err, &u) {
		t.Errorf("a topic the group never read, without --create: %v", err)
	}
	if err := set(true, model.TopicPartition{Topic: "orders", Partition: 2}); err == nil || !strings.Contains(err.Error(), "topic orders has no partition 2 (it has 2 partitions)") {
		t.Errorf("--create of a partition the topic does not have: %v", err)
	}
	if err := set(true, model.TopicPartition{Topic: "payments", Partition: 1}); err != nil {
		t.Errorf("--create of a partition the topic has: %v", err)
	}
	if got := committed(t, h, "connect-s3"); len(got) != 2 {
		t.Errorf("planning committed something: %v", got)
	}
}

// The plan judges a new offset's shape as the dashboard does, learning
// the shapes the connector writes from its history: Debezium's move from
// snapshot to streaming is no warning, a number turned string is.
func TestPlanWarnsOfShapesTheConnectorNeverWrote(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	key := `["dbz",{"server":"inventory"}]`
	h.workerWrite(key, `{"last_snapshot_record":false,"lsn":23760216,"snapshot":true,"ts_usec":1,"txId":780}`)
	h.workerWrite(key, `{"lsn_proc":23760400,"messageType":"UPDATE","lsn":23760400,"txId":781,"ts_usec":2,"lsn_commit":23760400}`)
	h.workerWrite(`["jdbc",{"table":"orders"}]`, `{"incrementing":48408}`)
	h.waitFor("both", func() bool { return len(h.rows("dbz")) == 1 && len(h.rows("jdbc")) == 1 })
	warns := func(conn, part, off string) string {
		p, err := h.ed.Plan(ctx, plan.Request{Connector: conn, Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, part), Offset: mustOffset(t, off)}}})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(p.Warnings, "\n")
	}
	if w := warns("dbz", `{"server":"inventory"}`, `{"last_snapshot_record":true,"lsn":23760000,"snapshot":true,"ts_usec":1,"txId":700}`); strings.Contains(w, "drops") || strings.Contains(w, "misspelt") {
		t.Errorf("Debezium's own snapshot shape warned:\n%s", w)
	}
	if w := warns("jdbc", `{"table":"orders"}`, `{"incrementing":"1000"}`); !strings.Contains(w, `{"table":"orders"}: offset incrementing is a string, the offset in force has a number there`) {
		t.Errorf("a number turned string:\n%s", w)
	}
	if w := warns("jdbc", `{"table":"orders"}`, `{"incrementng":1000}`); !strings.Contains(w, "drops incrementing and adds incrementng (misspelt?)") {
		t.Errorf("a misspelt field:\n%s", w)
	}
}
