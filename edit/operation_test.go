package edit

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"koff/connect"
	"koff/demo"
	"koff/edit/apply"
	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/planner"
	"koff/edit/undo"
	"koff/model"
)

// liveOffsets are the connector's live offsets in connect-offsets, by
// partition text, as the task reads them (exact bytes).
func (h *harness) liveOffsets(name string) map[string]string {
	out := map[string]string{}
	for _, r := range h.rows(name) {
		if r.Live && !r.Deleted && r.Flags&model.FlagStray == 0 {
			out[r.Partition] = r.Offset
		}
	}
	return out
}

func connectorState(t *testing.T, c *demo.Cluster, name string) string {
	t.Helper()
	return c.ConnectorState(name)
}

// A rename: the old connector stopped (its last flush), the new one
// created STOPPED with its config, its offsets copied byte for byte and
// read back, the old one's tombstoned and the old one deleted, the new one
// resumed; one write-ahead line holds every step before the first, and a
// line follows each step.
func TestRenameMovesConfigAndOffsets(t *testing.T) {
	h, c := demoHarness(t)
	ctx := context.Background()
	h.waitFor("file-logs' offsets", func() bool { return len(h.liveOffsets("file-logs")) == 1 })
	op, err := h.ed.PlanRename(ctx, "file-logs", "file-logs-v2")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, s := range op.Steps {
		kinds = append(kinds, string(s.Kind)+" "+s.Connector)
	}
	want := "stop file-logs,create file-logs-v2,offsets file-logs-v2,offsets file-logs,delete file-logs,resume file-logs-v2"
	if strings.Join(kinds, ",") != want {
		t.Fatalf("steps %v, want %s", kinds, want)
	}
	res, err := h.ed.ApplyOperation(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Done) != 6 || len(res.Offsets) != 2 || !res.Offsets[0].Verified || !res.Offsets[1].Verified {
		t.Fatalf("result %+v", res)
	}
	if connectorState(t, c, "file-logs") != "" || connectorState(t, c, "file-logs-v2") != "RUNNING" {
		t.Fatalf("after the rename: file-logs %q, file-logs-v2 %q", connectorState(t, c, "file-logs"), connectorState(t, c, "file-logs-v2"))
	}
	// The copy is the old connector's offsets as its last flush left them,
	// byte for byte: the step's edit wrote what it read after the stop.
	copied := res.Offsets[0].Plan
	for _, ch := range copied.Changes {
		var old string
		for _, r := range res.Offsets[1].Plan.Changes {
			if r.PartitionJSON == ch.PartitionJSON {
				old = string(r.Before)
			}
		}
		if string(ch.After) != old || old == "" {
			t.Errorf("%s: copied %s, file-logs held %s", ch.PartitionJSON, ch.After, old)
		}
	}
	if len(h.liveOffsets("file-logs")) != 0 {
		t.Errorf("file-logs' offsets not tombstoned: %v", h.liveOffsets("file-logs"))
	}
	cfg, err := h.ed.REST.ConnectorConfig(ctx, "file-logs-v2")
	if err != nil || cfg["name"] != "file-logs-v2" || cfg["file"] != "/var/log/app-1.log" {
		t.Errorf("file-logs-v2's config %v (%v)", cfg, err)
	}

	edits, err := h.ed.Audit.Edits()
	if err != nil {
		t.Fatal(err)
	}
	var opEdit *audit.Edit
	parts := 0
	for i, ed := range edits {
		switch {
		case ed.Start.Kind == plan.KindRename:
			opEdit = &edits[i]
		case ed.Start.PartOf == res.ID:
			parts++
		}
	}
	if opEdit == nil || opEdit.Start.Result != audit.ResultInProgress || len(opEdit.Start.Steps) != 6 ||
		len(opEdit.Done) != 6 || opEdit.Result() != audit.ResultVerified || opEdit.Start.From != "file-logs" {
		t.Fatalf("the rename's audit entry: %+v", opEdit)
	}
	if len(opEdit.Start.Steps[2].Changes) != 1 || opEdit.Start.Steps[0].State != "RUNNING" {
		t.Errorf("the write-ahead line's steps lack the offsets or the state: %+v", opEdit.Start.Steps)
	}
	if parts != 2 {
		t.Errorf("%d offsets edits name the rename, want 2", parts)
	}
	if !opEdit.Start.Time.Before(opEdit.Done[0].Time) && !opEdit.Start.Time.Equal(opEdit.Done[0].Time) {
		t.Error("the write-ahead line is not before the first step's")
	}
}

// failingDelete is the worker's REST API with DELETE /connectors/NAME
// failing, as when the connection drops after the offsets moved.
type failingDelete struct{ *connect.Client }

func (f failingDelete) DeleteConnector(context.Context, string) error {
	return errors.New("connection reset by peer")
}

// A rename whose delete fails leaves both connectors, says exactly which
// steps happened, and its undo brings back the start: the old one running
// with its offsets, the new one and its offsets gone.
func TestRenameCutMidwayUndoBringsBackStart(t *testing.T) {
	h, c := demoHarness(t)
	ctx := context.Background()
	h.waitFor("file-logs' offsets", func() bool { return len(h.liveOffsets("file-logs")) == 1 })
	rest := h.ed.REST.(*connect.Client)
	h.ed.REST = failingDelete{rest}
	op, err := h.ed.PlanRename(ctx, "file-logs", "file-logs-v2")
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.ed.ApplyOperation(ctx, op)
	var oe *apply.OperationError
	if !errors.As(err, &oe) || oe.Failed != 4 || len(oe.Done) != 4 {
		t.Fatalf("error %v, want the delete (step 5) failed after 4 steps", err)
	}
	msg := err.Error()
	for _, want := range []string{"step 5 (delete file-logs", "connection reset by peer", "1 stop file-logs", "2 create file-logs-v2", "not done: 6 resume", "koff undo file-logs-v2 --edit " + oe.Undo[strings.LastIndex(oe.Undo, " ")+1:]} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if connectorState(t, c, "file-logs") != "STOPPED" || connectorState(t, c, "file-logs-v2") != "STOPPED" {
		t.Fatalf("cut after the offsets: file-logs %q, file-logs-v2 %q", connectorState(t, c, "file-logs"), connectorState(t, c, "file-logs-v2"))
	}
	if tombstoned := h.liveOffsets("file-logs"); len(tombstoned) != 0 {
		t.Fatalf("file-logs' offsets: %v", tombstoned)
	}
	interrupted, err := h.ed.Audit.Interrupted("")
	if err != nil || len(interrupted) != 1 || !strings.Contains(interrupted[0].Notice(), "INTERRUPTED RENAME: the rename of file-logs to file-logs-v2 by tester") ||
		!strings.Contains(interrupted[0].Notice(), "not done: 5 delete file-logs, 6 resume file-logs-v2") {
		t.Fatalf("interrupted notice: %v %v", interrupted, err)
	}

	h.ed.REST = rest
	u, err := h.ed.FindUndo(ctx, undo.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if u.Operation == nil || u.Edit.Kind != plan.KindRename {
		t.Fatalf("undo found %+v", u.Edit)
	}
	var kinds []string
	for _, s := range u.Operation.Steps {
		kinds = append(kinds, string(s.Kind)+" "+s.Connector)
	}
	want := "offsets file-logs,offsets file-logs-v2,delete file-logs-v2,resume file-logs"
	if strings.Join(kinds, ",") != want {
		t.Fatalf("undo steps %v, want %s", kinds, want)
	}
	if _, err := h.ed.ApplyOperation(ctx, u.Operation); err != nil {
		t.Fatal(err)
	}
	if connectorState(t, c, "file-logs") != "RUNNING" || connectorState(t, c, "file-logs-v2") != "" {
		t.Fatalf("after undo: file-logs %q, file-logs-v2 %q", connectorState(t, c, "file-logs"), connectorState(t, c, "file-logs-v2"))
	}
	if got := h.liveOffsets("file-logs"); len(got) != 1 {
		t.Errorf("file-logs' offsets after undo: %v", got)
	}
	if got := h.liveOffsets("file-logs-v2"); len(got) != 0 {
		t.Errorf("file-logs-v2's offsets after undo: %v", got)
	}
	if left, _ := h.ed.Audit.Interrupted(""); len(left) != 0 {
		t.Errorf("still interrupted after its undo: %v", left[0].Notice())
	}
}

// koff create: the connector created STOPPED, its offsets written through
// Connect's PATCH and read back, then resumed: its task starts where they
// say. Its undo deletes it and tombstones what it wrote.
func TestCreateWithOffsetsStartsThere(t *testing.T) {
	h, c := demoHarness(t)
	ctx := context.Background()
	items := plan.Request{Kind: plan.KindImport, Items: []plan.Item{{
		Partition: mustPartition(t, `{"filename":"/var/log/new.log"}`), Offset: mustOffset(t, `{"position":9007199254740993}`),
	}}}
	op, err := h.ed.PlanCreate(ctx, planner.CreateRequest{Name: "file-new", Config: map[string]string{
		"connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector", "file": "/var/log/new.log", "topic": "logs.new",
	}, Offsets: &items, Start: "running", Args: []string{"create", "-f", "new.json"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(op.Steps) != 3 || op.Steps[1].Plan.Path != plan.PathREST || op.Steps[0].State != "STOPPED" {
		t.Fatalf("steps %+v", op.Steps)
	}
	res, err := h.ed.ApplyOperation(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Offsets[0].Verified {
		t.Fatalf("offsets not verified: %+v", res.Offsets[0])
	}
	h.waitFor("the task's first flush past 9007199254740993", func() bool {
		off := h.liveOffsets("file-new")[`{"filename":"/var/log/new.log"}`]
		o, err := model.ParseOffset([]byte(off))
		if err != nil {
			return false
		}
		v, _ := o.Get("position")
		n, _ := v.(json.Number).Int64()
		return n > 9007199254740993
	})
	if c.ConnectorState("file-new") != "RUNNING" {
		t.Fatalf("file-new %s", c.ConnectorState("file-new"))
	}

	u, err := h.ed.FindUndo(ctx, undo.Query{Connector: "file-new"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.ed.ApplyOperation(ctx, u.Operation); err != nil {
		t.Fatal(err)
	}
	if c.ConnectorState("file-new") != "" || len(h.liveOffsets("file-new")) != 0 {
		t.Fatalf("after undo: file-new %q with offsets %v", c.ConnectorState("file-new"), h.liveOffsets("file-new"))
	}
}

// A Connect without KIP-980 cannot create a connector STOPPED: create and
// rename are refused with the reason, before anything is done.
func TestCreateRefusedBeforeKIP980(t *testing.T) {
	c, err := demo.Start(context.Background(), demo.Options{FlushInterval: 200 * time.Millisecond, ConnectListen: "127.0.0.1:0", ConnectVersion: "3.6.2"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	rest, err := connect.New(connect.Config{URL: c.ConnectURL()})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	h.ed.REST = rest
	ctx := context.Background()
	_, err = h.ed.PlanCreate(ctx, planner.CreateRequest{Name: "x", Config: map[string]string{"connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector"}})
	if err == nil || !strings.Contains(err.Error(), "Connect 3.6.2 cannot create a connector STOPPED") || !strings.Contains(err.Error(), "KIP-980") || !strings.Contains(err.Error(), "3.7") {
		t.Fatalf("create on 3.6.2: %v", err)
	}
	if _, err := h.ed.PlanRename(ctx, "file-logs", "y"); err == nil || !strings.Contains(err.Error(), "KIP-980") {
		t.Fatalf("rename on 3.6.2: %v", err)
	}
}

// The conflict check: a name taken since the plan refuses the whole
// operation before its first step, and the refusal is one audit line.
func TestOperationRefusedWhenNameTakenSincePlan(t *testing.T) {
	h, c := demoHarness(t)
	ctx := context.Background()
	op, err := h.ed.PlanRename(ctx, "jdbc-shop", "jdbc-shop-v2")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateConnector(map[string]string{"name": "jdbc-shop-v2", "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector", "file": "/x", "topic": "x"}, "STOPPED"); err != nil {
		t.Fatal(err)
	}
	_, err = h.ed.ApplyOperation(ctx, op)
	var cc *apply.ConnectorChangedError
	if !errors.As(err, &cc) || !apply.IsRefusal(err) {
		t.Fatalf("error %v, want a refusal", err)
	}
	if c.ConnectorState("jdbc-shop") != "RUNNING" {
		t.Fatalf("jdbc-shop %s after a refused rename", c.ConnectorState("jdbc-shop"))
	}
	edits, _ := h.ed.Audit.Edits()
	if len(edits) != 1 || edits[0].Result() != audit.ResultRefused || len(edits[0].Start.Steps) != 6 {
		t.Fatalf("audit: %+v", edits)
	}
}

// An operation whose write-ahead line cannot be written does nothing: no
// step runs before the line that names them all is on disk.
func TestOperationNeedsItsWriteAheadLine(t *testing.T) {
	h, c := demoHarness(t)
	ctx := context.Background()
	op, err := h.ed.PlanRename(ctx, "jdbc-shop", "jdbc-shop-v2")
	if err != nil {
		t.Fatal(err)
	}
	h.ed.Audit.Path = t.TempDir() // a directory: no line can be appended
	_, err = h.ed.ApplyOperation(ctx, op)
	if err == nil || !strings.Contains(err.Error(), "nothing done (koff logs every operation before its first step)") {
		t.Fatalf("error %v", err)
	}
	if c.ConnectorState("jdbc-shop") != "RUNNING" || c.ConnectorState("jdbc-shop-v2") != "" {
		t.Fatalf("a step ran without its write-ahead line: jdbc-shop %s, jdbc-shop-v2 %q", c.ConnectorState("jdbc-shop"), c.ConnectorState("jdbc-shop-v2"))
	}
}

// A rename whose copy fails part way (one topic-partition written, the
// next produce refused): the operation ends there, and its undo puts back
// what the cut step wrote too (the new name's key tombstoned), deletes the
// new connector and resumes the old one.
func TestRenameCutInsideAStepUndoesItsWrites(t *testing.T) {
	h, c := demoHarness(t)
	ctx := context.Background()
	h.waitFor("jdbc-billing's offsets", func() bool { return len(h.liveOffsets("jdbc-billing")) == 2 })
	spy := &spyWriter{Config: h.kafka, before: func(n int, _ model.TopicPartition) error {
		if n == 2 {
			return notSent("dial tcp: connection refused")
		}
		return nil
	}}
	h.ed.Kafka = spy
	// billing-2's two keys are in two partitions of connect-offsets: two produces.
	op, err := h.ed.PlanRename(ctx, "jdbc-billing", "billing-2")
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.ed.ApplyOperation(ctx, op)
	var oe *apply.OperationError
	if !errors.As(err, &oe) || oe.Failed != 2 || len(oe.Done) != 2 {
		t.Fatalf("error %v, want the copy (step 3) cut after steps 1 and 2", err)
	}
	h.waitFor("the copy's one written partition", func() bool { return len(h.liveOffsets("billing-2")) == 1 })
	h.ed.Kafka = h.kafka
	u, err := h.ed.FindUndo(ctx, undo.Query{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, s := range u.Operation.Steps {
		kinds = append(kinds, string(s.Kind)+" "+s.Connector)
	}
	if want := "offsets billing-2,delete billing-2,resume jdbc-billing"; strings.Join(kinds, ",") != want {
		t.Fatalf("undo steps %v, want %s", kinds, want)
	}
	if _, err := h.ed.ApplyOperation(ctx, u.Operation); err != nil {
		t.Fatal(err)
	}
	if c.ConnectorState("jdbc-billing") != "RUNNING" || c.ConnectorState("billing-2") != "" || len(h.liveOffsets("billing-2")) != 0 {
		t.Fatalf("after undo: jdbc-billing %q, billing-2 %q with %v", c.ConnectorState("jdbc-billing"), c.ConnectorState("billing-2"), h.liveOffsets("billing-2"))
	}
}

// A sink created with offsets: its group (connect-NAME, or the config's
// consumer.override.group.id) is named by the config before Connect can,
// and the offsets go through Connect's PATCH once it is created STOPPED.
func TestCreateSinkWithOffsets(t *testing.T) {
	h, _ := demoHarness(t)
	ctx := context.Background()
	tp := model.TopicPartition{Topic: "shop.orders", Partition: 0}
	h.waitFor("records in shop.orders/0", func() bool {
		b, err := h.kafka.LogBounds(ctx, []model.TopicPartition{tp})
		return err == nil && b[tp][1] >= 2
	})
	items := plan.Request{Kind: plan.KindImport, Items: []plan.Item{{
		Partition: mustPartition(t, `{"kafka_topic":"shop.orders","kafka_partition":0}`), Offset: mustOffset(t, `{"kafka_offset":1}`),
	}}}
	op, err := h.ed.PlanCreate(ctx, planner.CreateRequest{Name: "s3-new", Config: map[string]string{
		"connector.class": "io.confluent.connect.s3.S3SinkConnector", "topics": "shop.orders", "consumer.override.group.id": "s3-new-group",
	}, Offsets: &items, Start: "stopped"})
	if err != nil {
		t.Fatal(err)
	}
	if op.Steps[1].Plan.Group != "s3-new-group" || op.Steps[1].Plan.Path != plan.PathREST {
		t.Fatalf("the offsets step: group %q path %s", op.Steps[1].Plan.Group, op.Steps[1].Plan.Path)
	}
	res, err := h.ed.ApplyOperation(ctx, op)
	if err != nil || !res.Offsets[0].Verified {
		t.Fatalf("%v %+v", err, res)
	}
	poll, err := plan.GroupPoll(ctx, h.kafka, "s3-new-group")
	if err != nil || len(poll.Partitions) != 1 || poll.Partitions[0].Committed != 1 {
		t.Fatalf("group s3-new-group: %+v (committed %v) %v", poll, committedOf(poll), err)
	}
}

func committedOf(poll model.GroupPoll) []int64 {
	var out []int64
	for _, p := range poll.Partitions {
		out = append(out, p.Committed)
	}
	return out
}

// A create from no offsets under a name that has some (a connector of that
// name before, orphaned) tombstones them after the create and before the
// start, so the new connector starts from none; the dashboard's create has
// the command line of its config given by printf, its secrets hidden.
func TestCreateFromNoOffsetsTombstonesTheNamesOwn(t *testing.T) {
	h, c := demoHarness(t)
	ctx := context.Background()
	const name = "jdbc-old-orders" // the demo's orphan
	h.waitFor("the orphan's offsets", func() bool { return len(h.liveOffsets(name)) > 0 })
	cfg := map[string]string{"connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector", "connection.url": "jdbc:postgresql://shop-db:5432/shop",
		"connection.password": "s3cret", "topic.prefix": "old.", "table.whitelist": "orders", "mode": "incrementing"}
	kept, err := h.ed.PlanCreate(ctx, planner.CreateRequest{Name: name, Config: cfg, Start: "running", Args: []string{"create", "-f", "x.json"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(kept.Steps) != 2 || !strings.Contains(strings.Join(kept.Warnings, " "), name+" has stored offsets this does not write, which its tasks will start from") {
		t.Fatalf("as stored: steps %s, warnings %q", stepKinds(kept), kept.Warnings)
	}
	op, err := h.ed.PlanCreate(ctx, planner.CreateRequest{Name: name, Config: cfg, NoOffsets: true, Start: "running",
		Args: []string{"--no-offsets", "--start", "running"}, FromDashboard: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := stepKinds(op); got != "create "+name+",offsets "+name+",resume "+name || len(op.Warnings) != 0 {
		t.Fatalf("steps %s, warnings %q", got, op.Warnings)
	}
	if !strings.HasPrefix(op.Command, `koff create -f <(printf '%s\n' '{"connection.password":"[hidden]",`) || strings.Contains(op.Command, "s3cret") ||
		!strings.Contains(op.Command, `) --no-offsets --start running`) {
		t.Errorf("command %s", op.Command)
	}
	res, err := h.ed.ApplyOperation(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Offsets) != 1 || !res.Offsets[0].Verified || len(res.Offsets[0].Plan.Changes) == 0 {
		t.Fatalf("offsets step %+v", res.Offsets)
	}
	for _, ch := range res.Offsets[0].Plan.Changes {
		if ch.After != nil || ch.Before == nil {
			t.Errorf("%s: %s → %s, want its stored offset tombstoned", ch.PartitionJSON, ch.Before, ch.After)
		}
	}
	if c.ConnectorState(name) != "RUNNING" {
		t.Errorf("state %q", c.ConnectorState(name))
	}
}
