package edit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"koff/connect"
	"koff/demo"
	"koff/edit/apply"
	"koff/edit/plan"
	"koff/edit/planner"
	"koff/edit/undo"
	"koff/kafka"
	"koff/model"
	"koff/model/store"
)

// moveHarness is the demo with its second Connect cluster: h edits the
// first, h2 the second (context "two"), one audit log.
// Its workers lack the plugins without names.
func moveHarness(t *testing.T, without ...string) (h, h2 *harness, c, c2 *demo.Cluster) {
	t.Helper()
	h, c = demoHarness(t)
	c2, err := c.StartSecondConnect("127.0.0.1:0", without...)
	if err != nil {
		t.Fatal(err)
	}
	h2 = &harness{t: t, addr: c.Bootstrap(), store: store.NewStore(store.StoreOptions{}), kafka: kafka.Config{Brokers: []string{c.Bootstrap()}}}
	tl := kafka.NewTailer(h2.kafka, []string{demo.SecondOffsetsTopic}, h2.store, kafka.TailerOptions{MaxWait: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tl.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	<-tl.CaughtUp()
	rest, err := connect.New(connect.Config{URL: c2.ConnectURL()})
	if err != nil {
		t.Fatal(err)
	}
	h2.ed = &Editor{Store: h2.store, Kafka: h2.kafka, REST: rest, Topics: []string{demo.SecondOffsetsTopic}, User: "tester", Audit: h.ed.Audit}
	h.ed.Elsewhere = func(where string) (*Editor, error) {
		if where != "two" {
			return nil, fmt.Errorf("no context %s", where)
		}
		return h2.ed, nil
	}
	return h, h2, c, c2
}

// liveIn are a connector's live offsets in a harness's topic, by key.
func liveIn(h *harness, topic, name string) map[string]string {
	out := map[string]string{}
	for _, r := range h.store.Partitions(model.ConnectorID{Topic: topic, Name: name}) {
		if r.Live && !r.Deleted && r.Flags&model.FlagStray == 0 {
			out[r.ID.Key] = string(r.Stored)
		}
	}
	return out
}

func stepKinds(op *plan.Operation) string {
	var kinds []string
	for _, s := range op.Steps {
		k := string(s.Kind) + " " + s.Connector
		if s.Where != "" {
			k += "@" + s.Where
		}
		kinds = append(kinds, k)
	}
	return strings.Join(kinds, ",")
}

// A move to another Connect cluster: stopped here, created there STOPPED
// with its config, its offsets there under the very key bytes its task
// reads with the values it left at its stop, read back there; only then
// tombstoned and deleted here, and running there. Undo brings back the
// start: running here from its offsets, gone there with its offsets.
func TestMoveToAnotherConnectCluster(t *testing.T) {
	h, h2, c, c2 := moveHarness(t)
	ctx := context.Background()
	h.waitFor("file-logs' offsets", func() bool { return len(h.liveOffsets("file-logs")) == 1 })
	op, err := h.ed.PlanMove(ctx, planner.MoveRequestOf{Name: "file-logs", To: "two"})
	if err != nil {
		t.Fatal(err)
	}
	want := "stop file-logs,create file-logs@two,offsets file-logs@two,offsets file-logs,delete file-logs,resume file-logs@two"
	if got := stepKinds(op); got != want {
		t.Fatalf("steps %s, want %s", got, want)
	}
	if op.What() != "move of file-logs to two" {
		t.Errorf("What %q", op.What())
	}
	res, err := h.ed.ApplyOperation(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	if c.ConnectorState("file-logs") != "" || c2.ConnectorState("file-logs") != "RUNNING" {
		t.Fatalf("after the move: here %q, there %q", c.ConnectorState("file-logs"), c2.ConnectorState("file-logs"))
	}
	// What the copy wrote there is what the stopped connector held here,
	// key and value byte for byte.
	copied, reset := res.Offsets[0].Plan, res.Offsets[1].Plan
	held := map[string]string{}
	for _, ch := range reset.Changes {
		for _, w := range ch.Writes {
			if w.Before != nil {
				held[string(w.Key)] = string(w.Before)
			}
		}
	}
	for _, ch := range copied.Changes {
		for _, w := range ch.Writes {
			if w.Topic != demo.SecondOffsetsTopic || held[string(w.Key)] != string(w.Value) || w.Value == nil {
				t.Errorf("wrote %s %s = %s there; here it held %q", w.TopicPartition, w.Key, w.Value, held[string(w.Key)])
			}
		}
	}
	if len(copied.Changes) != 1 || len(h.liveOffsets("file-logs")) != 0 {
		t.Errorf("copied %d partitions; left here %v", len(copied.Changes), h.liveOffsets("file-logs"))
	}
	h2.waitFor("the offsets there", func() bool { return len(liveIn(h2, demo.SecondOffsetsTopic, "file-logs")) == 1 })

	edits, _ := h.ed.Audit.Edits()
	var found bool
	for _, ed := range edits {
		if ed.Start.Kind == plan.KindMove && ed.Start.Steps != nil {
			found = ed.Start.To == "two" && ed.Start.What() == "move of file-logs to two" && ed.Start.Steps[1].Where == "two"
		}
	}
	if !found {
		t.Error("the move's audit entry lacks where it went")
	}

	u, err := h.ed.FindUndo(ctx, undo.Query{Connector: "file-logs"})
	if err != nil {
		t.Fatal(err)
	}
	if u.Operation == nil || u.Edit.Kind != plan.KindMove {
		t.Fatalf("undo found %+v", u.Edit)
	}
	if got := stepKinds(u.Operation); got != "stop file-logs@two,create file-logs,offsets file-logs,offsets file-logs@two,delete file-logs@two,resume file-logs" {
		t.Fatalf("undo steps %s", got)
	}
	if _, err := h.ed.ApplyOperation(ctx, u.Operation); err != nil {
		t.Fatal(err)
	}
	if c.ConnectorState("file-logs") != "RUNNING" || c2.ConnectorState("file-logs") != "" {
		t.Fatalf("after undo: here %q, there %q", c.ConnectorState("file-logs"), c2.ConnectorState("file-logs"))
	}
	if len(h.liveOffsets("file-logs")) != 1 {
		t.Errorf("offsets here after undo: %v", h.liveOffsets("file-logs"))
	}
	h2.waitFor("no offsets there", func() bool { return len(liveIn(h2, demo.SecondOffsetsTopic, "file-logs")) == 0 })
}

// A move whose target runs a connector of that name is refused and
// changes nothing, when planned and when the target took the name after
// the plan.
func TestMoveRefusedWhenTargetHasIt(t *testing.T) {
	h, _, c, c2 := moveHarness(t)
	ctx := context.Background()
	h.waitFor("file-logs' offsets", func() bool { return len(h.liveOffsets("file-logs")) == 1 })
	op, err := h.ed.PlanMove(ctx, planner.MoveRequestOf{Name: "file-logs", To: "two"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(c2.ConnectURL()+"/connectors", "application/json", strings.NewReader(
		`{"name":"file-logs","config":{"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","file":"/var/log/other.log","topic":"logs.other"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	before := h.liveOffsets("file-logs")
	_, err = h.ed.ApplyOperation(ctx, op)
	var changed *apply.ConnectorChangedError
	if !errors.As(err, &changed) || !strings.Contains(err.Error(), "file-logs on two") {
		t.Fatalf("apply after the target took the name: %v", err)
	}
	if _, err := h.ed.PlanMove(ctx, planner.MoveRequestOf{Name: "file-logs", To: "two"}); err == nil || !strings.Contains(err.Error(), "refused: file-logs exists on two already (RUNNING)") {
		t.Fatalf("plan: %v", err)
	}
	if c.ConnectorState("file-logs") != "RUNNING" || c2.ConnectorState("file-logs") != "RUNNING" {
		t.Errorf("states after the refusals: here %q there %q", c.ConnectorState("file-logs"), c2.ConnectorState("file-logs"))
	}
	if after := h.liveOffsets("file-logs"); len(after) != 1 || len(before) != 1 {
		t.Errorf("offsets here %v → %v", before, after)
	}
	if got, _ := c2Config(ctx, c2, "file-logs"); got["file"] != "/var/log/other.log" {
		t.Errorf("the target's connector's config changed: %v", got)
	}
}

// A move to a Connect cluster whose workers lack the connector's class is
// refused before anything is done, naming the plugins they have: created
// there, the connector could never run. The connector runs on here with
// its offsets, and the target has no connector of its name.
func TestMoveRefusedWhenTargetLacksTheClass(t *testing.T) {
	const jdbc = "io.confluent.connect.jdbc.JdbcSourceConnector"
	h, _, c, c2 := moveHarness(t, jdbc)
	ctx := context.Background()
	h.waitFor("jdbc-shop's offsets", func() bool { return len(h.liveOffsets("jdbc-shop")) > 0 })
	before := h.liveOffsets("jdbc-shop")
	_, err := h.ed.PlanMove(ctx, planner.MoveRequestOf{Name: "jdbc-shop", To: "two"})
	if err == nil || !strings.Contains(err.Error(), "refused: the workers of two have no plugin "+jdbc+" (GET /connector-plugins lists ") ||
		!strings.Contains(err.Error(), "FileStreamSourceConnector") || !strings.HasSuffix(err.Error(), ": nothing changed") {
		t.Fatalf("a move to workers without the class: %v", err)
	}
	if c.ConnectorState("jdbc-shop") != "RUNNING" || c2.ConnectorState("jdbc-shop") != "" {
		t.Errorf("states after the refusal: here %q there %q", c.ConnectorState("jdbc-shop"), c2.ConnectorState("jdbc-shop"))
	}
	if after := h.liveOffsets("jdbc-shop"); len(after) != len(before) {
		t.Errorf("offsets here %v → %v", before, after)
	}
	// The workers refuse such a create themselves, as Connect does.
	resp, err := http.Post(c2.ConnectURL()+"/connectors", "application/json", strings.NewReader(
		`{"name":"jdbc-x","config":{"connector.class":"`+jdbc+`","topic.prefix":"x."}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "Failed to find any class that implements Connector and which name matches "+jdbc) {
		t.Errorf("POST /connectors of a missing class: %d %s", resp.StatusCode, body)
	}
}

func c2Config(ctx context.Context, c2 *demo.Cluster, name string) (map[string]string, error) {
	rest, err := connect.New(connect.Config{URL: c2.ConnectURL()})
	if err != nil {
		return nil, err
	}
	return rest.ConnectorConfig(ctx, name)
}

// A move cut after the target is created and before the source is
// deleted leaves the connector STOPPED on both clusters; undo brings back
// the start.
func TestMoveCutMidwayUndoBringsBackStart(t *testing.T) {
	h, h2, c, c2 := moveHarness(t)
	ctx := context.Background()
	h.waitFor("file-logs' offsets", func() bool { return len(h.liveOffsets("file-logs")) == 1 })
	rest := h.ed.REST.(*connect.Client)
	h.ed.REST = failingDelete{rest}
	op, err := h.ed.PlanMove(ctx, planner.MoveRequestOf{Name: "file-logs", To: "two"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.ed.ApplyOperation(ctx, op)
	var oe *apply.OperationError
	if !errors.As(err, &oe) || oe.Failed != 4 {
		t.Fatalf("error %v, want the delete (step 5) failed", err)
	}
	if c.ConnectorState("file-logs") != "STOPPED" || c2.ConnectorState("file-logs") != "STOPPED" {
		t.Fatalf("cut midway: here %q there %q, want both STOPPED", c.ConnectorState("file-logs"), c2.ConnectorState("file-logs"))
	}
	h.ed.REST = rest
	u, err := h.ed.FindUndo(ctx, undo.Query{Connector: "file-logs"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.ed.ApplyOperation(ctx, u.Operation); err != nil {
		t.Fatal(err)
	}
	if c.ConnectorState("file-logs") != "RUNNING" || c2.ConnectorState("file-logs") != "" {
		t.Fatalf("after undo: here %q there %q", c.ConnectorState("file-logs"), c2.ConnectorState("file-logs"))
	}
	if len(h.liveOffsets("file-logs")) != 1 {
		t.Errorf("offsets here after undo: %v", h.liveOffsets("file-logs"))
	}
	h2.waitFor("no offsets there", func() bool { return len(liveIn(h2, demo.SecondOffsetsTopic, "file-logs")) == 0 })
}

// A sink moved within one Kafka cluster keeps its consumer group, which
// the connector there reads as it is: no offsets step, said so.
func TestMoveSinkSameKafkaKeepsGroup(t *testing.T) {
	h, _, c, c2 := moveHarness(t)
	ctx := context.Background()
	op, err := h.ed.PlanMove(ctx, planner.MoveRequestOf{Name: "es-search", To: "two"})
	if err != nil {
		t.Fatal(err)
	}
	if got := stepKinds(op); got != "stop es-search,create es-search@two,delete es-search,resume es-search@two" {
		t.Fatalf("steps %s", got)
	}
	if !strings.Contains(strings.Join(op.Warnings, "\n"), "its consumer group es-search-v2 is in the same Kafka cluster") {
		t.Errorf("warnings %v", op.Warnings)
	}
	if _, err := h.ed.ApplyOperation(ctx, op); err != nil {
		t.Fatal(err)
	}
	if c.ConnectorState("es-search") != "" || c2.ConnectorState("es-search") != "RUNNING" {
		t.Errorf("after: here %q there %q", c.ConnectorState("es-search"), c2.ConnectorState("es-search"))
	}
}

// A sink moved to another Kafka cluster: refused unless --same-topics
// says its topics there hold the same records at the same offsets; with
// it, its group's committed offsets there are the ones it had here after
// its stop.
func TestMoveSinkToAnotherKafkaCluster(t *testing.T) {
	h, c := demoHarness(t)
	h2, c2 := demoHarness(t)
	h2.ed.Audit = h.ed.Audit
	h.ed.Elsewhere = func(where string) (*Editor, error) { return h2.ed, nil }
	ctx := context.Background()
	// The other demo has its own es-search: gone there first.
	rest2, err := connect.New(connect.Config{URL: c2.ConnectURL()})
	if err != nil {
		t.Fatal(err)
	}
	if err := rest2.DeleteConnector(ctx, "es-search"); err != nil {
		t.Fatal(err)
	}
	h2.waitFor("es-search gone there", func() bool { return c2.ConnectorState("es-search") == "" })
	h.waitFor("es-search's commits", func() bool {
		p, err := plan.GroupPoll(ctx, h.kafka, "es-search-v2")
		return err == nil && len(p.Partitions) > 0 && p.Partitions[0].Committed > 0
	})
	_, err = h.ed.PlanMove(ctx, planner.MoveRequestOf{Name: "es-search", To: "other"})
	if err == nil || !strings.Contains(err.Error(), "refused: es-search is a sink and other is another Kafka cluster") || !strings.Contains(err.Error(), "--same-topics") {
		t.Fatalf("without --same-topics: %v", err)
	}
	op, err := h.ed.PlanMove(ctx, planner.MoveRequestOf{Name: "es-search", To: "other", SameTopics: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := stepKinds(op); got != "stop es-search,create es-search@other,offsets es-search@other,delete es-search,resume es-search@other" {
		t.Fatalf("steps %s (%v)", got, op.Warnings)
	}
	res, err := h.ed.ApplyOperation(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	if c.ConnectorState("es-search") != "" || c2.ConnectorState("es-search") != "RUNNING" {
		t.Fatalf("after: here %q there %q", c.ConnectorState("es-search"), c2.ConnectorState("es-search"))
	}
	here, err := plan.GroupPoll(ctx, h.kafka, "es-search-v2")
	if err != nil {
		t.Fatal(err)
	}
	there, err := plan.GroupPoll(ctx, h2.kafka, "es-search-v2")
	if err != nil {
		t.Fatal(err)
	}
	committed := func(p model.GroupPoll) map[model.TopicPartition]int64 {
		out := map[model.TopicPartition]int64{}
		for _, gp := range p.Partitions {
			if gp.Committed >= 0 {
				out[gp.TopicPartition] = gp.Committed
			}
		}
		return out
	}
	want := committed(here)
	if len(want) == 0 {
		t.Fatal("no committed offsets here")
	}
	// What the step asked there is what the group had here after the
	// stop (set as kafka-consumer-groups would: within the log there).
	asked := map[model.TopicPartition]int64{}
	for _, sc := range res.Offsets[0].Plan.Sink {
		asked[sc.TopicPartition] = sc.Asked
		if sc.After > sc.Asked || sc.After != sc.Asked && sc.Warning == "" {
			t.Errorf("%s: asked %d, set %d without a word", sc.TopicPartition, sc.Asked, sc.After)
		}
	}
	if fmt.Sprint(asked) != fmt.Sprint(want) {
		t.Errorf("asked there %v, committed here at the stop %v", asked, want)
	}
	if len(committed(there)) == 0 {
		t.Error("no committed offsets there")
	}
}

// A source moved to another Kafka cluster: its offsets are written to
// that cluster's offsets topic, the exact key bytes with the values it had
// here after its stop.
func TestMoveSourceToAnotherKafkaCluster(t *testing.T) {
	h, c := demoHarness(t)
	h2, c2 := demoHarness(t)
	h2.ed.Audit = h.ed.Audit
	h.ed.Elsewhere = func(where string) (*Editor, error) { return h2.ed, nil }
	ctx := context.Background()
	rest2, err := connect.New(connect.Config{URL: c2.ConnectURL()})
	if err != nil {
		t.Fatal(err)
	}
	if err := rest2.DeleteConnector(ctx, "jdbc-shop"); err != nil {
		t.Fatal(err)
	}
	h2.waitFor("jdbc-shop gone there", func() bool { return c2.ConnectorState("jdbc-shop") == "" })
	h.waitFor("jdbc-shop's offsets", func() bool { return len(h.liveOffsets("jdbc-shop")) > 0 })
	op, err := h.ed.PlanMove(ctx, planner.MoveRequestOf{Name: "jdbc-shop", To: "other"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.ed.ApplyOperation(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	if c.ConnectorState("jdbc-shop") != "" || c2.ConnectorState("jdbc-shop") != "RUNNING" {
		t.Fatalf("after: here %q there %q", c.ConnectorState("jdbc-shop"), c2.ConnectorState("jdbc-shop"))
	}
	held := map[string]string{}
	for _, ch := range res.Offsets[1].Plan.Changes {
		for _, w := range ch.Writes {
			if w.Before != nil {
				held[string(w.Key)] = string(w.Before)
			}
		}
	}
	for _, ch := range res.Offsets[0].Plan.Changes {
		for _, w := range ch.Writes {
			if held[string(w.Key)] != string(w.Value) || w.Topic != "connect-offsets" {
				t.Errorf("wrote %s %s = %s on the other cluster; here it held %q", w.TopicPartition, w.Key, w.Value, held[string(w.Key)])
			}
		}
	}
	if len(held) == 0 || len(h.liveOffsets("jdbc-shop")) != 0 {
		t.Errorf("offsets here: held %v, left %v", held, h.liveOffsets("jdbc-shop"))
	}
}
