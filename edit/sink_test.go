package edit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"koff/edit/apply"
	"koff/edit/plan"
	"koff/edit/planner"
	"koff/model"
	"koff/model/store"
)

// sinkHarness: a topic with records, and a sink group with no members
// that committed offsets, as a stopped sink connector leaves it.
func sinkHarness(t *testing.T) (*harness, time.Time) {
	t.Helper()
	h := newHarness(t)
	b := []store.Record{}
	for i := 0; i < 10; i++ {
		b = append(b, store.Record{Topic: "orders", Partition: 0, Key: []byte("k"), Value: []byte("v")})
	}
	if err := createTopic(h, "orders", 2); err != nil {
		t.Fatal(err)
	}
	if err := h.kafka.WriteRecords(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	mid := time.Now()
	time.Sleep(20 * time.Millisecond)
	if err := h.kafka.WriteRecords(context.Background(), b[:5]); err != nil {
		t.Fatal(err)
	}
	if err := h.kafka.WriteRecords(context.Background(), []store.Record{{Topic: "orders", Partition: 1, Key: []byte("k"), Value: []byte("v")}}); err != nil {
		t.Fatal(err)
	}
	tp0 := model.TopicPartition{Topic: "orders", Partition: 0}
	tp1 := model.TopicPartition{Topic: "orders", Partition: 1}
	if err := h.kafka.CommitGroupOffsets(context.Background(), "connect-s3", map[model.TopicPartition]int64{tp0: 12, tp1: 1}); err != nil {
		t.Fatal(err)
	}
	return h, mid
}

func createTopic(h *harness, name string, partitions int) error {
	_, err := h.kafka.PartitionCount(context.Background(), name)
	if err == nil {
		return nil
	}
	return demoBroker(h).CreateTopic(name, partitions, nil)
}

func committed(t *testing.T, h *harness, group string) map[string]int64 {
	t.Helper()
	polls, err := h.kafka.GroupPolls(context.Background(), []string{group})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, p := range polls {
		for _, gp := range p.Partitions {
			out[gp.TopicPartition.String()] = gp.Committed
		}
	}
	return out
}

func TestSinkStrategiesCommitToTheGroup(t *testing.T) {
	h, mid := sinkHarness(t)
	ctx := context.Background()
	tp0 := model.TopicPartition{Topic: "orders", Partition: 0}
	cases := []struct {
		name     string
		strategy plan.SinkStrategy
		parts    []model.TopicPartition
		want     map[string]int64
		warning  string
	}{
		{"to an offset", plan.SinkStrategy{Kind: plan.SinkToOffset, Offset: 3}, []model.TopicPartition{tp0}, map[string]int64{"orders/0": 3, "orders/1": 1}, ""},
		{"shift forward", plan.SinkStrategy{Kind: plan.SinkShiftBy, Shift: 2}, nil, map[string]int64{"orders/0": 5, "orders/1": 1}, "orders/1: offset 3 is above the log end 1: clamped to 1"},
		{"shift back", plan.SinkStrategy{Kind: plan.SinkShiftBy, Shift: -1}, []model.TopicPartition{tp0}, map[string]int64{"orders/0": 4, "orders/1": 1}, ""},
		{"to earliest", plan.SinkStrategy{Kind: plan.SinkToEarliest}, nil, map[string]int64{"orders/0": 0, "orders/1": 0}, ""},
		{"to latest", plan.SinkStrategy{Kind: plan.SinkToLatest}, nil, map[string]int64{"orders/0": 15, "orders/1": 1}, ""},
		{"to a timestamp", plan.SinkStrategy{Kind: plan.SinkToTimestamp, Time: mid}, []model.TopicPartition{tp0}, map[string]int64{"orders/0": 10, "orders/1": 1}, ""},
		{"beyond the end", plan.SinkStrategy{Kind: plan.SinkToOffset, Offset: 99}, []model.TopicPartition{tp0}, map[string]int64{"orders/0": 15, "orders/1": 1}, "offset 99 is above the log end 15: clamped to 15, as kafka-consumer-groups does"},
		{"reset one", plan.SinkStrategy{Kind: plan.SinkReset}, []model.TopicPartition{tp0}, map[string]int64{"orders/1": 1}, ""},
	}
	for _, c := range cases {
		pl, err := h.ed.PlanSink(ctx, plan.SinkRequest{Connector: "s3", Kind: plan.KindSet, Partitions: c.parts, Strategy: c.strategy})
		if err != nil {
			t.Fatalf("%s: plan: %v", c.name, err)
		}
		if pl.Path != plan.PathGroup || pl.Group != "connect-s3" {
			t.Fatalf("%s: path %s group %s", c.name, pl.Path, pl.Group)
		}
		if c.warning != "" && !strings.Contains(strings.Join(pl.Warnings, "|"), c.warning) {
			t.Errorf("%s: warnings %q lack %q", c.name, pl.Warnings, c.warning)
		}
		res, err := h.ed.Apply(ctx, pl)
		if err != nil || !res.Verified {
			t.Fatalf("%s: apply: %v (verified %v)", c.name, err, res.Verified)
		}
		got := committed(t, h, "connect-s3")
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s: %s committed %d, want %d", c.name, k, got[k], v)
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: committed %v, want %v", c.name, got, c.want)
		}
	}
	// Connect's sink shape through the generic request (koff set / import).
	pl, err := h.ed.Plan(ctx, plan.Request{Connector: "s3", Kind: plan.KindSet, Create: true, Items: []plan.Item{{
		Partition: mustPartition(t, `{"kafka_topic":"orders","kafka_partition":"0"}`), Offset: mustOffset(t, `{"kafka_offset":7}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if pl.Changes[0].PartitionJSON != `{"kafka_topic":"orders","kafka_partition":0}` || string(pl.Changes[0].After) != `{"kafka_offset":7}` || pl.Changes[0].Before != nil {
		t.Errorf("sink change = %+v", pl.Changes[0])
	}
	if _, err := h.ed.Apply(ctx, pl); err != nil {
		t.Fatal(err)
	}
	if got := committed(t, h, "connect-s3"); got["orders/0"] != 7 {
		t.Errorf("after set: %v", got)
	}
	edits, _ := h.ed.Audit.Edits()
	last := edits[len(edits)-1].Start
	if last.Path != plan.PathGroup || last.Changes[0].Writes[0] != "group connect-s3" || string(last.Changes[0].After) != `{"kafka_offset":7}` {
		t.Errorf("audit: %+v", last)
	}
	// Undo puts back the before-value (no committed offset: deleted).
	req, _, err := h.ed.UndoRequest("s3")
	if err != nil {
		t.Fatal(err)
	}
	undo, err := h.ed.Plan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.ed.Apply(ctx, undo); err != nil {
		t.Fatal(err)
	}
	if got := committed(t, h, "connect-s3"); len(got) != 1 || got["orders/1"] != 1 {
		t.Errorf("after undo: %v", got)
	}
}

func TestSinkCommitRefusedWhileTheGroupHasMembers(t *testing.T) {
	h, _ := sinkHarness(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(h.addr), kgo.ConsumerGroup("connect-s3"), kgo.ConsumeTopics("orders"), kgo.DisableAutoCommit())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		polls, _ := h.kafka.GroupPolls(ctx, nil)
		if len(polls) == 1 && polls[0].Members == 1 {
			break
		}
		cl.PollRecords(ctx, 1)
		if ctx.Err() != nil {
			t.Fatal("the member never joined")
		}
	}
	pl, err := h.ed.PlanSink(context.Background(), plan.SinkRequest{Connector: "s3", Kind: plan.KindSet, Strategy: plan.SinkStrategy{Kind: plan.SinkToEarliest}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(pl.Warnings, "|"), "has 1 active members") {
		t.Errorf("plan warnings: %q", pl.Warnings)
	}
	_, err = h.ed.Apply(context.Background(), pl)
	var ga *apply.GroupActiveError
	if !errors.As(err, &ga) || !strings.Contains(err.Error(), "stop the connector first") {
		t.Errorf("apply with members: %v", err)
	}
	if got := committed(t, h, "connect-s3"); got["orders/0"] != 12 {
		t.Errorf("offsets changed: %v", got)
	}
}

// Class 8, sinks: without Connect's REST API a sink's group is taken only
// from evidence, never from the connect-<name> guess alone
// (consumer.override.group.id makes the sink use another group), and a
// name koff has never seen is refused.
func TestSinkGroupOnlyFromEvidence(t *testing.T) {
	h, _ := sinkHarness(t)
	ctx := context.Background()
	to := plan.SinkStrategy{Kind: plan.SinkToOffset, Offset: 3}
	// connect-s3 has committed offsets: taken, and the plan says from what.
	p, err := h.ed.PlanSink(ctx, plan.SinkRequest{Connector: "s3", Kind: plan.KindSet, Strategy: to})
	if err != nil {
		t.Fatal(err)
	}
	if p.Group != "connect-s3" || !strings.Contains(strings.Join(p.Warnings, " "), "taken from its committed offsets") {
		t.Errorf("group %s, warnings %q", p.Group, p.Warnings)
	}
	// A typo: no group with commits, no offsets: refused with the closest name.
	var unknown *planner.UnknownConnectorError
	if _, err := h.ed.PlanSink(ctx, plan.SinkRequest{Connector: "s33", Kind: plan.KindSet, Strategy: to}); !errors.As(err, &unknown) {
		t.Fatalf("typo'd sink: %v", err)
	}
	// A sink whose group is overridden: --group names it.
	tp0 := model.TopicPartition{Topic: "orders", Partition: 0}
	if err := h.kafka.CommitGroupOffsets(ctx, "orders-archiver", map[model.TopicPartition]int64{tp0: 7}); err != nil {
		t.Fatal(err)
	}
	p, err = h.ed.PlanSink(ctx, plan.SinkRequest{Connector: "archiver", Kind: plan.KindSet, Strategy: to, Group: "orders-archiver"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Group != "orders-archiver" || len(p.Sink) != 1 || p.Sink[0].Before != 7 {
		t.Errorf("plan with --group: group %s, changes %+v", p.Group, p.Sink)
	}
	// --create with no evidence of the group: still needs --group.
	if _, err := h.ed.PlanSink(ctx, plan.SinkRequest{Connector: "new-sink", Kind: plan.KindSet, Strategy: to, Create: true, Partitions: []model.TopicPartition{tp0}}); err == nil || !strings.Contains(err.Error(), "pass --group") {
		t.Errorf("new sink without --group: %v", err)
	}
}

// Issue 21: an offset outside the log, however it is asked for (a shift
// past either end, --to-offset, Connect's sink shape), is clamped to the
// log start or end as kafka-consumer-groups --reset-offsets does, and the
// plan says so; the lag after is never negative.
func TestSinkOffsetOutsideTheLogIsClamped(t *testing.T) {
	h, _ := sinkHarness(t)
	ctx := context.Background()
	tp0 := model.TopicPartition{Topic: "orders", Partition: 0}
	for _, c := range []struct {
		name     string
		strategy plan.SinkStrategy
		want     int64
		says     string
	}{
		{"to an offset past the end", plan.SinkStrategy{Kind: plan.SinkToOffset, Offset: 1000}, 15, "offset 1000 is above the log end 15: clamped to 15"},
		{"a shift past the end", plan.SinkStrategy{Kind: plan.SinkShiftBy, Shift: 100}, 15, "offset 112 is above the log end 15: clamped to 15"},
		{"a shift before the start", plan.SinkStrategy{Kind: plan.SinkShiftBy, Shift: -100}, 0, "offset -88 is below the log start 0: clamped to 0"},
		{"Connect's shape past the end", plan.SinkStrategy{Kind: plan.SinkExplicit, Offsets: map[model.TopicPartition]int64{tp0: 40}}, 15, "offset 40 is above the log end 15: clamped to 15"},
	} {
		p, err := h.ed.PlanSink(ctx, plan.SinkRequest{Connector: "s3", Kind: plan.KindSet, Strategy: c.strategy, Partitions: []model.TopicPartition{tp0}})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		w := strings.Join(p.Warnings, " ")
		if p.Sink[0].After != c.want || !strings.Contains(w, c.says) || p.Sink[0].Lag() < 0 {
			t.Errorf("%s: new offset %d lag after %d, warnings %q; want %d saying %q", c.name, p.Sink[0].After, p.Sink[0].Lag(), w, c.want, c.says)
		}
		if strings.Contains(w, "replays") {
			t.Errorf("%s: a clamped offset replays nothing, yet the plan says %q", c.name, w)
		}
		if string(p.Changes[0].After) != fmt.Sprintf(`{"kafka_offset":%d}`, c.want) {
			t.Errorf("%s: the change commits %s", c.name, p.Changes[0].After)
		}
	}
}
