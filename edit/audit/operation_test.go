package audit

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"koff/edit/plan"
)

// An operation's lines group into one edit: its steps from the
// write-ahead line, the step lines as done, and its outcome; cut short,
// it is interrupted, and its notice and headline say which steps happened
// and what brings back the start.
func TestOperationLinesGroupIntoOneEdit(t *testing.T) {
	at := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	start := Entry{ID: "20261205T100000.000Z-0123abcd", Time: at, User: "alice", Connector: "new", From: "old", Kind: plan.KindRename,
		Result: ResultInProgress, Cluster: "c1", Steps: []Step{
			{Kind: plan.StepStop, Connector: "old"}, {Kind: plan.StepCreate, Connector: "new"}, {Kind: plan.StepDelete, Connector: "old"},
		}}
	zero, one := 0, 1
	step0 := start
	step0.Steps, step0.Result, step0.Step = nil, ResultStep, &zero
	step1 := step0
	step1.Step = &one
	sub := Entry{ID: "20261205T100001.000Z-99999999", Time: at, User: "alice", Connector: "new", Kind: plan.KindCopy, Result: ResultVerified, Cluster: "c1", PartOf: start.ID}
	out := start
	out.Steps, out.Result, out.Error = nil, ResultPartial, "connection reset by peer"
	eds := GroupEdits([]Entry{start, step0, sub, step1, out})
	if len(eds) != 2 || len(eds[0].Done) != 2 || eds[0].Result() != ResultPartial {
		t.Fatalf("grouped %+v", eds)
	}
	if done, _ := eds[0].DoneSteps(); len(done) != 2 || done[1] != 1 {
		t.Fatalf("done steps %v", done)
	}
	got := interruptedOf(eds, "c1")
	if len(got) != 1 || got[0].ID() != start.ID {
		t.Fatalf("interrupted: %+v (the step's own edit is the operation's to tell)", got)
	}
	n := got[0].Notice()
	for _, want := range []string{"INTERRUPTED RENAME: the rename of old to new by alice", "a step failed: connection reset by peer",
		"done: 1 stop old, 2 create new; not done: 3 delete old", "koff undo new --edit " + start.ID} {
		if !strings.Contains(n, want) {
			t.Errorf("notice %q lacks %q", n, want)
		}
	}
	if h := got[0].Headline(); !strings.HasPrefix(h, "INTERRUPTED RENAME of new: koff undo new --edit 0123abcd brings back the start (2/3 steps done") {
		t.Errorf("headline %q", h)
	}
	// Its undo, verified, settles it.
	undone := Entry{ID: "20261205T100100.000Z-aaaaaaaa", Time: at, User: "alice", Connector: "new", Kind: plan.KindUndoOperation,
		Undoes: start.ID, Result: ResultVerified, Cluster: "c1"}
	if got := interruptedOf(GroupEdits([]Entry{start, step0, sub, step1, out, undone}), "c1"); len(got) != 0 {
		t.Errorf("still interrupted after its undo: %+v", got)
	}
}

// A move cut after the connector was created on the target and before it
// was deleted here: its notice says it is on both clusters, STOPPED on
// both, and names where each step was.
func TestInterruptedMoveSaysBothStopped(t *testing.T) {
	log := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
	op := &plan.Operation{Kind: plan.KindMove, Connector: "mm", To: "dr", Steps: []plan.Step{
		{Kind: plan.StepStop, Connector: "mm", State: "RUNNING"},
		{Kind: plan.StepCreate, Connector: "mm", Where: "dr", State: "STOPPED"},
		{Kind: plan.StepDelete, Connector: "mm"},
		{Kind: plan.StepResume, Connector: "mm", Where: "dr"},
	}}
	start := Entry{ID: "0123abcd", Time: time.Now(), User: "alice", Connector: "mm", To: "dr", Kind: plan.KindMove, Result: ResultInProgress, Steps: StepsOf(op), Cluster: "c1"}
	zero, one := 0, 1
	for _, en := range []Entry{start,
		{ID: "0123abcd", Time: time.Now(), Connector: "mm", Kind: plan.KindMove, Result: ResultStep, Step: &zero, Cluster: "c1"},
		{ID: "0123abcd", Time: time.Now(), Connector: "mm", Kind: plan.KindMove, Result: ResultStep, Step: &one, Cluster: "c1"},
		{ID: "0123abcd", Time: time.Now(), Connector: "mm", Kind: plan.KindMove, Result: ResultPartial, Error: "connection reset by peer", Cluster: "c1"},
	} {
		if err := log.Append(en); err != nil {
			t.Fatal(err)
		}
	}
	got, err := log.Interrupted("c1")
	if err != nil || len(got) != 1 {
		t.Fatalf("interrupted: %v %v", got, err)
	}
	n := got[0].Notice()
	for _, want := range []string{"INTERRUPTED MOVE: the move of mm to dr by alice", "mm is on both Connect clusters, STOPPED on both (here and on dr)", "2 create mm on dr", "not done: 3 delete mm, 4 resume mm on dr"} {
		if !strings.Contains(n, want) {
			t.Errorf("notice %q lacks %q", n, want)
		}
	}
}
