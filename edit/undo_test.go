package edit

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"koff/edit/apply"
	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/undo"
	"koff/model"
)

// setOffset applies a koff set of one partition and returns its edit id.
func setOffset(t *testing.T, h *harness, conn, partition, offset string) string {
	t.Helper()
	ctx := context.Background()
	p, err := h.ed.Plan(ctx, plan.Request{Connector: conn, Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, partition), Offset: mustOffset(t, offset)}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.ed.Apply(ctx, p); err != nil {
		t.Fatal(err)
	}
	edits, err := h.ed.Audit.Edits()
	if err != nil {
		t.Fatal(err)
	}
	return edits[len(edits)-1].ID()
}

// applyUndo plans and applies an undo request.
func applyUndo(t *testing.T, h *harness, req plan.Request) {
	t.Helper()
	ctx := context.Background()
	p, err := h.ed.Plan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.ed.Apply(ctx, p); err != nil {
		t.Fatal(err)
	}
}

func offsetOf(h *harness, conn, partition string) string {
	for _, r := range h.rows(conn) {
		if r.Partition == partition && r.Live {
			return r.Offset
		}
	}
	return ""
}

// Two clusters, one audit log, a connector of the same name on each: undo
// on B never plans A's edit, even named by id, and says where the last
// edit of the name was made.
func TestUndoNeverAppliesAnEditOfAnotherCluster(t *testing.T) {
	a, b := newClusterHarness(t, "cluster-a"), newClusterHarness(t, "cluster-b")
	b.ed.Audit = a.ed.Audit
	key, part := `["src",{"file":"x"}]`, `{"file":"x"}`
	a.workerWrite(key, `{"pos":1}`)
	b.workerWrite(key, `{"pos":100}`)
	idA := setOffset(t, a, "src", part, `{"pos":5}`)

	edits, _ := a.ed.Audit.Edits()
	s := edits[0].Start
	if s.Cluster != "cluster-a" || !slices.Equal(s.OffsetsTopics, []string{"connect-offsets"}) {
		t.Errorf("the audit line does not name its cluster and offsets topics: %+v", s)
	}
	_, _, err := b.ed.UndoRequest("src")
	if err == nil || !strings.Contains(err.Error(), "no edit of src on this cluster to undo: the last edit of src was on cluster cluster-a") || !strings.Contains(err.Error(), "connected to cluster-b") {
		t.Fatalf("bare undo on B: %v", err)
	}
	_, err = b.ed.FindUndo(context.Background(), undo.Query{EditID: idA})
	if err == nil || !strings.Contains(err.Error(), "was made on cluster cluster-a; connected to cluster-b") {
		t.Fatalf("undo --edit of A's edit on B: %v", err)
	}

	idB := setOffset(t, b, "src", part, `{"pos":200}`)
	setOffset(t, a, "src", part, `{"pos":6}`) // the newest edit of src is A's again
	u, err := b.ed.FindUndo(context.Background(), undo.Query{Connector: "src"})
	if err != nil {
		t.Fatal(err)
	}
	if u.Edit.ID != idB || len(u.Notes) != 1 || !strings.Contains(u.Notes[0], "the last edit of src was on another cluster") || !strings.Contains(u.Notes[0], "cluster-a") {
		t.Fatalf("undo on B chose %s (want %s), notes %q", u.Edit.ID, idB, u.Notes)
	}
	applyUndo(t, b, u.Request)
	if got := offsetOf(b, "src", part); got != `{"pos":100}` {
		t.Errorf("B after undo: %s, want its own before-value", got)
	}
	if got := offsetOf(a, "src", part); got != `{"pos":6}` {
		t.Errorf("A moved by B's undo: %s", got)
	}
}

// A task flushed after the edit: undo refuses, naming the partition, the
// newer value and that koff did not write it; forced, it puts the
// before-value back. A newer koff edit is named by its id.
func TestUndoRefusesToOverwriteANewerValue(t *testing.T) {
	h := newHarness(t)
	key, part := `["src",{"file":"x"}]`, `{"file":"x"}`
	h.workerWrite(key, `{"pos":1}`)
	id1 := setOffset(t, h, "src", part, `{"pos":5}`)
	h.workerWrite(key, `{"pos":6}`) // the task flushed

	_, _, err := h.ed.UndoRequest("src")
	var newer *undo.NewerValueError
	if !errors.As(err, &newer) || !strings.Contains(err.Error(), `{"file":"x"} in connect-offsets/`) ||
		!strings.Contains(err.Error(), `now holds {"pos":6}, not {"pos":5} as the edit wrote`) || !strings.Contains(err.Error(), "not written by koff") ||
		!strings.Contains(err.Error(), "--force") {
		t.Fatalf("undo after a flush: %v", err)
	}
	u, err := h.ed.FindUndo(context.Background(), undo.Query{Connector: "src"})
	if err != nil || u.Refusal(true, false) != nil {
		t.Fatalf("forced: %v %v", err, u.Refusal(true, false))
	}
	applyUndo(t, h, u.Request)
	if got := offsetOf(h, "src", part); got != `{"pos":1}` {
		t.Errorf("forced undo left %s", got)
	}

	// A newer edit by koff: named as such, by its id.
	id2 := setOffset(t, h, "src", part, `{"pos":7}`)
	u, err = h.ed.FindUndo(context.Background(), undo.Query{EditID: id1})
	if err != nil || len(u.Newer) != 1 || !strings.Contains(u.Newer[0].By, "written by koff: the set of src by tester") {
		t.Fatalf("undo --edit of the older edit: %v %+v", err, u)
	}
	if !strings.Contains(u.Newer[0].By, "(edit "+id2+")") {
		t.Errorf("the newer edit is not named: %s", u.Newer[0].By)
	}
}

// An edit that was interrupted before its first write wrote nothing: a
// bare undo names the older edit it would undo instead and refuses until
// told (the CLI's --edit ID, --yes, or the prompt).
func TestABareUndoDoesNotSilentlyGoPastAnEditThatWroteNothing(t *testing.T) {
	h := newHarness(t)
	key, part := `["src",{"file":"x"}]`, `{"file":"x"}`
	tp := h.workerWrite(key, `{"pos":1}`)
	id1 := setOffset(t, h, "src", part, `{"pos":5}`)

	// The next edit's write-ahead line is on disk, and a signal stopped
	// it before its first produce request: its outcome names the
	// partition not written. (A process that died without an outcome line
	// may have had its first request in flight: that edit is unknown, and
	// undo puts its before-values back.)
	ctx := context.Background()
	p, err := h.ed.Plan(ctx, plan.Request{Connector: "src", Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, part), Offset: mustOffset(t, `{"pos":9}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	// The lines Apply writes (apply/record.go), by a process now gone (pid 0).
	cluster, _ := h.ed.ClusterID(ctx)
	host, _ := os.Hostname()
	id := audit.NewEditID(time.Now())
	entry := func(result string) audit.Entry {
		return audit.Entry{ID: id, Time: time.Now().UTC(), User: h.ed.User, Host: host, Connector: p.Connector, Kind: p.Kind, Path: p.Path,
			State: p.State, Result: result, Cluster: cluster, OffsetsTopics: h.ed.Topics}
	}
	en := entry(audit.ResultInProgress)
	en.Changes = audit.ChangesOf(p)
	en.Positions = map[string]int64{p.Changes[0].Writes[0].TopicPartition.String(): h.endOffset(tp)}
	if err := h.ed.Audit.Append(en); err != nil {
		t.Fatal(err)
	}
	out := entry(audit.ResultInterrupted)
	out.Error = apply.ErrInterrupted.Error()
	out.NotWritten = []string{p.Changes[0].Writes[0].TopicPartition.String()}
	if err := h.ed.Audit.Append(out); err != nil {
		t.Fatal(err)
	}

	_, _, err = h.ed.UndoRequest("src")
	var older *undo.OlderEditError
	if !errors.As(err, &older) || !strings.Contains(err.Error(), "the last edit, the set of src by tester") ||
		!strings.Contains(err.Error(), "wrote nothing (interrupted") || !strings.Contains(err.Error(), "--edit "+id1) {
		t.Fatalf("bare undo: %v", err)
	}
	u, err := h.ed.FindUndo(ctx, undo.Query{Connector: "src"})
	if err != nil || u.Edit.ID != id1 || u.Refusal(false, true) != nil {
		t.Fatalf("confirmed: %v %+v", err, u)
	}
	u, err = h.ed.FindUndo(ctx, undo.Query{EditID: id1})
	if err != nil || len(u.Skipped) != 0 || u.Refusal(false, false) != nil {
		t.Fatalf("--edit %s: %v %+v", id1, err, u)
	}
	applyUndo(t, h, u.Request)
	if got := offsetOf(h, "src", part); got != `{"pos":1}` {
		t.Errorf("undo --edit left %s", got)
	}
	// Undone: naming it again is refused, and says by which undo.
	u, err = h.ed.FindUndo(ctx, undo.Query{EditID: id1})
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Refusal(false, false); err == nil || !strings.Contains(err.Error(), "was undone already by the undo by tester") {
		t.Errorf("undo of an undone edit: %v", err)
	}
	// Undoing that undo puts the edit back in force: it may be undone again.
	redo, err := h.ed.FindUndo(ctx, undo.Query{Connector: "src"})
	if err != nil || redo.Edit.Kind != plan.KindUndo || redo.Edit.Undoes != id1 {
		t.Fatalf("bare undo after undo --edit: %v %+v", err, redo)
	}
	applyUndo(t, h, redo.Request)
	if u, err = h.ed.FindUndo(ctx, undo.Query{EditID: id1}); err != nil || u.UndoneBy != nil || u.Refusal(false, false) != nil {
		t.Errorf("undo --edit after the redo: %v %+v", err, u)
	}
	if _, err := h.ed.FindUndo(ctx, undo.Query{EditID: "nope"}); err == nil || !strings.Contains(err.Error(), "no edit nope in ") {
		t.Errorf("an unknown id: %v", err)
	}
}

// A sink's tasks committed after the edit: undo refuses, naming the
// topic-partition and the group's offset now.
func TestUndoOfASinkEditRefusesANewerCommit(t *testing.T) {
	h, _ := sinkHarness(t)
	ctx := context.Background()
	tp0 := model.TopicPartition{Topic: "orders", Partition: 0}
	p, err := h.ed.PlanSink(ctx, plan.SinkRequest{Connector: "s3", Kind: plan.KindSet, Partitions: []model.TopicPartition{tp0}, Strategy: plan.SinkStrategy{Kind: plan.SinkToOffset, Offset: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.ed.Apply(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := h.kafka.CommitGroupOffsets(ctx, "connect-s3", map[model.TopicPartition]int64{tp0: 8}); err != nil { // the task consumed on
		t.Fatal(err)
	}
	_, _, err = h.ed.UndoRequest("s3")
	if err == nil || !strings.Contains(err.Error(), `{"kafka_topic":"orders","kafka_partition":0} in group connect-s3 now holds {"kafka_offset":8}, not {"kafka_offset":3}`) ||
		!strings.Contains(err.Error(), "committed by the group, not by koff") {
		t.Fatalf("undo after a commit: %v", err)
	}
	u, err := h.ed.FindUndo(ctx, undo.Query{Connector: "s3"})
	if err != nil || u.Refusal(true, false) != nil {
		t.Fatalf("forced: %v", err)
	}
	applyUndo(t, h, u.Request)
	if got := committed(t, h, "connect-s3"); got["orders/0"] != 12 {
		t.Errorf("after undo --force: %v", got)
	}
}
