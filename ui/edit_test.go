package ui

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"koff/edit"
	"koff/edit/apply"
	"koff/edit/audit"
	"koff/edit/history"
	"koff/edit/plan"
	"koff/edit/planner"
	"koff/edit/undo"
	"koff/model"
	"koff/model/java"
	"koff/model/store"
	"koff/ui/dialogs"
	"koff/ui/kit"
)

// storeWriter is the Kafka side of a real edit.Editor in tests: records it
// writes land in the fixture's Store at once, as if the tailer read them.
type storeWriter struct {
	mu sync.Mutex
	f  *fixture
}

func (w *storeWriter) WriteRecords(_ context.Context, recs []store.Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range recs {
		var v *string
		if r.Value != nil {
			s := string(r.Value)
			v = &s
		}
		w.f.store.Ingest([]store.Record{w.f.rec(t0, string(r.Key), v, r.Partition)})
	}
	return nil
}

func (w *storeWriter) PartitionCount(context.Context, string) (int, error) { return 25, nil }

// Sink groups are the fixture's latest polls.
func (w *storeWriter) GroupPolls(_ context.Context, named []string) ([]model.GroupPoll, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []model.GroupPoll
	for _, g := range named {
		if p, ok := w.f.groups[g]; ok {
			out = append(out, p)
		}
	}
	return out, nil
}

func (w *storeWriter) LogBounds(_ context.Context, tps []model.TopicPartition) (map[model.TopicPartition][2]int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[model.TopicPartition][2]int64{}
	for _, g := range w.f.groups {
		for _, p := range g.Partitions {
			out[p.TopicPartition] = [2]int64{p.Start, p.End}
		}
	}
	return out, nil
}

// OffsetsAt answers every partition with its log start + 100: the tests
// check what was asked, not Kafka's index.
func (w *storeWriter) OffsetsAt(_ context.Context, tps []model.TopicPartition, _ time.Time) (map[model.TopicPartition]int64, error) {
	bounds, _ := w.LogBounds(context.Background(), tps)
	out := map[model.TopicPartition]int64{}
	for _, tp := range tps {
		out[tp] = bounds[tp][0] + 100
	}
	return out, nil
}

// Group commits and deletes change the fixture's groups, and the Store
// reads them back as the lag poller would.
func (w *storeWriter) CommitGroupOffsets(_ context.Context, group string, offsets map[model.TopicPartition]int64) error {
	w.editGroup(group, func(p *model.GroupPartition) {
		if off, ok := offsets[p.TopicPartition]; ok {
			p.Committed = off
		}
	})
	return nil
}

func (w *storeWriter) DeleteGroupOffsets(_ context.Context, group string, tps []model.TopicPartition) error {
	w.editGroup(group, func(p *model.GroupPartition) {
		if slices.Contains(tps, p.TopicPartition) {
			p.Committed = -1
		}
	})
	return nil
}

func (w *storeWriter) DeleteGroup(_ context.Context, group string) error {
	w.editGroup(group, func(p *model.GroupPartition) { p.Committed = -1 })
	return nil
}

// editGroup changes a copy of a group's latest poll and records it.
func (w *storeWriter) editGroup(group string, change func(*model.GroupPartition)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	g, ok := w.f.groups[group]
	if !ok {
		return
	}
	g.Partitions = slices.Clone(g.Partitions)
	for i := range g.Partitions {
		change(&g.Partitions[i])
	}
	w.f.groups[group] = g
	var polls []model.GroupPoll
	for _, p := range w.f.groups {
		polls = append(polls, p)
	}
	w.f.store.SetGroups(t0, polls)
}

// stopGroup empties a sink's group, as stopping the connector does.
func (w *storeWriter) stopGroup(group string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if g, ok := w.f.groups[group]; ok {
		g.Members, g.Clients, g.State = 0, nil, "Empty"
		w.f.groups[group] = g
	}
}

// fakeEditor records every call. Plans come from a real edit.Editor over
// the fixture's Store (so they hold real changes, writes and command
// lines), then take the connector state and path the test sets; Apply
// writes through the real Editor unless the test wants an error.
type fakeEditor struct {
	real *edit.Editor

	mu       sync.Mutex
	calls    []string
	sinkReqs []plan.SinkRequest

	state     string // what REST says; "" is unknown (no --connect-url)
	tasks     int
	restPath  bool // plans go through Connect REST
	planErr   error
	applyErr  error
	stopErr   error
	resumeErr error
}

func newFakeEditor(t *testing.T, f *fixture) *fakeEditor {
	return &fakeEditor{real: &edit.Editor{
		Store: f.store, Kafka: &storeWriter{f: f}, Topics: []string{topic},
		User: "alice", Audit: &audit.Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")},
		Cluster:       "prod-cluster",
		Cmd:           plan.CommandLine{Globals: []string{"-b", "kafka-1.prod.internal:9092"}},
		VerifyTimeout: time.Second,
		// State unknown (no REST): edits are watched after the read-back,
		// briefly here.
		WatchLimit:  200 * time.Millisecond,
		Now:         func() time.Time { return t0 },
		History:     f.readHistory,
		HistoryFrom: f.readHistoryFrom,
		// The detail's history is the cluster's shared one, as under koff
		// serve and the dashboard.
		Shared: &history.Share{Reloaded: func() time.Time { return f.store.Stats().Status.Reloaded }},
	}}
}

func (e *fakeEditor) record(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, fmt.Sprintf(format, args...))
}

func (e *fakeEditor) Calls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.calls...)
}

func (e *fakeEditor) Plan(ctx context.Context, req plan.Request) (*plan.Plan, error) {
	e.record("plan %s %s", req.Kind, req.Connector)
	if e.planErr != nil {
		return nil, e.planErr
	}
	p, err := e.real.Plan(ctx, req)
	if err != nil {
		return nil, err
	}
	if e.state != "" {
		p.State, p.Tasks = e.state, e.tasks
		p.Warnings = nil // the real plan warned that the state is unknown
		p.PathReason = ""
		p.Unsure = ""               // REST would name an own offsets topic
		p.Watch, p.WatchWhy = 0, "" // REST's word: no watch after the read-back
	}
	if e.restPath {
		p.Path = plan.PathREST
		p.PathReason = "PATCH /connectors/" + p.Connector + "/offsets"
	}
	return p, nil
}

func (e *fakeEditor) PlanSink(ctx context.Context, req plan.SinkRequest) (*plan.Plan, error) {
	e.record("plan-sink %s %s %s", req.Kind, req.Connector, req.Strategy.Kind)
	e.mu.Lock()
	e.sinkReqs = append(e.sinkReqs, req)
	e.mu.Unlock()
	if e.planErr != nil {
		return nil, e.planErr
	}
	p, err := e.real.PlanSink(ctx, req)
	if err != nil {
		return nil, err
	}
	if e.state != "" {
		p.State, p.Tasks = e.state, e.tasks
		p.Warnings = slices.DeleteFunc(p.Warnings, func(w string) bool { return strings.HasPrefix(w, "Connector state unknown") })
		p.Unsure = ""
		p.PathReason = ""
	}
	if e.restPath {
		p.Path = plan.PathREST
		p.PathReason = "PATCH /connectors/" + p.Connector + "/offsets"
	}
	return p, nil
}

func (e *fakeEditor) SinkRequests() []plan.SinkRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]plan.SinkRequest(nil), e.sinkReqs...)
}

func (e *fakeEditor) CopyRequest(from, to string) (plan.Request, error) {
	e.record("copy-request %s %s", from, to)
	return e.real.CopyRequest(from, to)
}

func (e *fakeEditor) ReadHistory(ctx context.Context, req history.Request, each func(*history.Commit) error) (*history.History, error) {
	e.record("history %s", req.Connector)
	return e.real.ReadHistory(ctx, req, each)
}

func (e *fakeEditor) PartitionHistory(ctx context.Context, connector string, partition java.Object, keep int) (*history.PartitionHistory, error) {
	e.record("history %s", connector)
	return e.real.PartitionHistory(ctx, connector, partition, keep)
}

func (e *fakeEditor) PlanRewind(ctx context.Context, req plan.RewindRequest) (*history.Rewind, error) {
	e.record("rewind %s %s %q", req.Connector, req.At.UTC().Format(time.RFC3339), req.IfNewer)
	return e.real.PlanRewind(ctx, req)
}

// Replan keeps the plan: the fake's plans carry the state the test set.
func (e *fakeEditor) Replan(_ context.Context, p *plan.Plan) (*plan.Plan, error) { return p, nil }

func (e *fakeEditor) Check(context.Context, *plan.Plan) error {
	e.record("check")
	return nil
}

func (e *fakeEditor) Apply(ctx context.Context, p *plan.Plan) (apply.Result, error) {
	e.record("apply %s %s", p.Kind, p.Connector)
	if e.applyErr != nil {
		return apply.Result{Plan: p}, e.applyErr
	}
	if p.Path == plan.PathREST {
		return apply.Result{Plan: p, Verified: true, Message: "The offsets for this connector have been altered successfully"}, nil
	}
	return e.real.Apply(ctx, p)
}

func (e *fakeEditor) StopConnector(_ context.Context, name string) error {
	e.record("stop %s", name)
	if e.stopErr == nil {
		e.real.Kafka.(*storeWriter).stopGroup(model.SinkGroupName(name, nil))
	}
	return e.stopErr
}

func (e *fakeEditor) ResumeConnector(_ context.Context, name string) error {
	e.record("resume %s", name)
	return e.resumeErr
}

// PlanRename plans the steps a rename has, offsets but none: the real
// planning is the edit pipeline's (edit/operation_test.go).
func (e *fakeEditor) PlanRename(_ context.Context, old, new string) (*plan.Operation, error) {
	e.record("plan-rename %s %s", old, new)
	if e.planErr != nil {
		return nil, e.planErr
	}
	cfg := map[string]string{"connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector", "name": new}
	return &plan.Operation{Kind: plan.KindRename, Connector: new, From: old, Steps: []plan.Step{
		{Kind: plan.StepStop, Connector: old, State: "RUNNING"},
		{Kind: plan.StepCreate, Connector: new, Config: cfg, State: "STOPPED"},
		{Kind: plan.StepDelete, Connector: old, Config: cfg, State: "RUNNING"},
		{Kind: plan.StepResume, Connector: new},
	}, Command: "koff rename " + old + " " + new}, nil
}

// PlanRekey plans a rekey's steps as the pipeline would for a running
// connector (edit/rekey_test.go has the real planning).
func (e *fakeEditor) PlanRekey(_ context.Context, req planner.RekeyRequest) (*plan.Operation, error) {
	e.record("plan-rekey %s %s", req.Name, req.Rekey.Text())
	if e.planErr != nil {
		return nil, e.planErr
	}
	cfg := map[string]string{"connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector", "name": req.Name}
	next := maps.Clone(cfg)
	maps.Copy(next, req.Config)
	if req.Rename != "" {
		e.record("  renamed to %s", req.Rename)
		next["name"] = req.Rename
		return &plan.Operation{Kind: plan.KindRename, Connector: req.Rename, From: req.Name, Steps: []plan.Step{
			{Kind: plan.StepStop, Connector: req.Name, State: "RUNNING"},
			{Kind: plan.StepCreate, Connector: req.Rename, Config: next, State: "STOPPED"},
			{Kind: plan.StepDelete, Connector: req.Name, Config: cfg, State: "RUNNING"},
			{Kind: plan.StepResume, Connector: req.Rename},
		}, Command: "koff rekey " + req.Name + " --rename " + req.Rename}, nil
	}
	return &plan.Operation{Kind: plan.KindRekey, Connector: req.Name, Steps: []plan.Step{
		{Kind: plan.StepStop, Connector: req.Name, State: "RUNNING"},
		{Kind: plan.StepConfig, Connector: req.Name, Config: next, Previous: cfg},
		{Kind: plan.StepResume, Connector: req.Name},
	}, Command: "koff rekey " + req.Name}, nil
}

// PlanMove plans a move's steps, offsets aside (edit/move_test.go has
// the real planning).
func (e *fakeEditor) PlanMove(_ context.Context, req planner.MoveRequestOf) (*plan.Operation, error) {
	e.record("plan-move %s %s", req.Name, req.To)
	if e.planErr != nil {
		return nil, e.planErr
	}
	cfg := map[string]string{"connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector", "name": req.Name}
	return &plan.Operation{Kind: plan.KindMove, Connector: req.Name, To: req.To, Steps: []plan.Step{
		{Kind: plan.StepStop, Connector: req.Name, State: "RUNNING"},
		{Kind: plan.StepCreate, Connector: req.Name, Where: req.To, Config: cfg, State: "STOPPED"},
		{Kind: plan.StepDelete, Connector: req.Name, Config: cfg, State: "RUNNING"},
		{Kind: plan.StepResume, Connector: req.Name, Where: req.To},
	}, Command: "koff move " + req.Name + " --to-context " + req.To}, nil
}

// PlanCreate plans a create's steps as the planner would, offsets aside
// (edit/operation_test.go has the real planning).
func (e *fakeEditor) PlanCreate(_ context.Context, req planner.CreateRequest) (*plan.Operation, error) {
	e.record("plan-create %s %s=%s secret=%s from=%q none=%v start=%s", req.Name, "topic.prefix", req.Config["topic.prefix"],
		req.Config["connection.password"], req.OffsetsFrom, req.NoOffsets, req.Start)
	if e.planErr != nil {
		return nil, e.planErr
	}
	op := &plan.Operation{Kind: plan.KindCreate, Connector: req.Name, From: req.OffsetsFrom, Steps: []plan.Step{
		{Kind: plan.StepCreate, Connector: req.Name, Config: req.Config, State: "STOPPED"},
	}, Command: "koff create -f <(printf '%s\\n' …) " + strings.Join(req.Args, " ")}
	if req.Start == "running" {
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepResume, Connector: req.Name})
	}
	return op, nil
}

func (e *fakeEditor) ApplyOperation(_ context.Context, op *plan.Operation) (apply.OperationResult, error) {
	e.record("apply-operation %s", op.What())
	if e.applyErr != nil {
		return apply.OperationResult{Operation: op, ID: "20261205T101646.888Z-20085b7d", Done: []int{0, 1}},
			&apply.OperationError{What: op.What(), Steps: op.Steps, Done: []int{0, 1}, Failed: 2, Err: e.applyErr,
				Undo: plan.UndoCommand(op.Connector, "20261205T101646.888Z-20085b7d")}
	}
	return apply.OperationResult{Operation: op, ID: "20261205T101646.888Z-20085b7d", Done: []int{0, 1, 2, 3}}, nil
}

func (e *fakeEditor) FindUndo(ctx context.Context, q undo.Query) (*undo.Undo, error) {
	e.record("undo-request %q", q.Connector)
	return e.real.FindUndo(ctx, q)
}

// editModel is the dashboard on the demo store with a fake editor.
func editModel(t *testing.T, w, h int, opts func(*Options)) (*fixture, *fakeEditor, *Model) {
	t.Helper()
	f := demoStore()
	ed := newFakeEditor(t, f)
	o := Options{
		Source:    f.store,
		Bootstrap: "kafka-1.prod.internal:9092,kafka-2.prod.internal:9092",
		Topics:    []string{topic},
		Now:       func() time.Time { return t0 },
		Editor:    ed,
		REST:      true,
	}
	if opts != nil {
		opts(&o)
	}
	m := New(o)
	send(t, m, size(w, h))
	return f, ed, m
}

// awaitJob runs cmd (and every command of a batch) and returns the first
// edit-job message it produces.
func awaitJob(t *testing.T, cmd tea.Cmd) tea.Msg {
	t.Helper()
	return awaitMsg[jobMsg](t, cmd, "no edit job finished")
}

// awaitMsg runs cmd (and every command of a batch) and returns the first
// message of type M it produces. Timers in the batch (spinner, cursor
// blink) are left to run out on their own.
func awaitMsg[M tea.Msg](t *testing.T, cmd tea.Cmd, none string) M {
	t.Helper()
	msgs := make(chan tea.Msg, 64)
	var launch func(tea.Cmd)
	launch = func(c tea.Cmd) {
		if c == nil {
			return
		}
		go func() {
			msg := c()
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					launch(c)
				}
				return
			}
			msgs <- msg
		}()
	}
	launch(cmd)
	timeout := time.After(10 * time.Second)
	for {
		select {
		case msg := <-msgs:
			if m, ok := msg.(M); ok {
				return m
			}
		case <-timeout:
			t.Fatal(none)
			var zero M
			return zero
		}
	}
}

// settle feeds finished jobs back into the model until none is in flight,
// as the program would: each step of stop → apply → resume starts the next.
func settle(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	for i := 0; m.busy != ""; i++ {
		if i > 10 {
			t.Fatal("jobs keep starting")
		}
		cmd = send(t, m, awaitJob(t, cmd))
	}
}

// pressSettle presses keys and runs the jobs the last one started.
func pressSettle(t *testing.T, m *Model, keys ...string) {
	t.Helper()
	settle(t, m, send(t, m, press(keys...)...))
}

func requireCalls(t *testing.T, ed *fakeEditor, want ...string) {
	t.Helper()
	got := ed.Calls()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("editor calls:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func requireStatus(t *testing.T, m *Model, want string) {
	t.Helper()
	// Compare without spaces: the bar wraps long messages.
	squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
	if got := ansi.Strip(m.statusView()); !strings.Contains(squash(got), squash(want)) {
		t.Fatalf("status bar %q lacks %q", got, want)
	}
}

// openPartition opens jdbc-orders and selects the partition whose row
// contains what.
func selectPartition(t *testing.T, m *Model, connector, what string) {
	t.Helper()
	openConnectorNamed(t, m, connector)
	for range 20 {
		if selectedLine(m, what) {
			return
		}
		send(t, m, press("down")...)
	}
	t.Fatalf("no partition %s:\n%s", what, screenText(m))
}

// setField replaces a field's text, as a paste over a selection would.
func setField(m *Model, i int, text string) {
	f := m.form.(*dialogs.EditForm)
	f.Fields[i].Area.SetValue(text)
	f.Validate()
}

func TestEditOffsetValidatesPlansAndApplies(t *testing.T) {
	f, ed, m := editModel(t, 80, 24, nil)
	selectPartition(t, m, "jdbc-orders", "customers")
	send(t, m, press("e")...)
	if m.form == nil {
		t.Fatalf("e opened no editor:\n%s", screenText(m))
	}
	requireContains(t, m, "Edit offset · jdbc-orders", `{"protocol":"1","table":"customers"}`,
		`{"incrementing":9002}`, `"incrementing": 9002`, "✓ valid offset", "enter/ctrl+s review")

	// A stray character: the parser's message, and no way to review.
	send(t, m, press("x")...)
	requireContains(t, m, "✗ offset is not valid JSON", "fix the JSON to review")
	requireLacks(t, m, "enter/ctrl+s review")
	send(t, m, press("ctrl+s")...)
	if m.confirm != nil || len(ed.Calls()) > 0 {
		t.Fatal("ctrl+s planned an invalid offset")
	}
	// A nested value is refused with Connect's own words.
	send(t, m, press("backspace", "backspace")...)
	send(t, m, tea.PasteMsg{Content: `,"x":{"y":1}}`})
	const nested = "Offsets may only contain primitive types as values, but field x contains MAP"
	if err := m.form.(*dialogs.EditForm).Fields[0].Err; err == nil || err.Error() != nested {
		t.Fatalf("nested value: %v, want %q", err, nested)
	}
	requireContains(t, m, "✗ Offsets may only contain primitive types")

	// Back to valid, with a new value: enter now reviews instead of
	// inserting a newline.
	setField(m, 0, `{"incrementing":9100}`)
	send(t, m, press("end")...)
	requireContains(t, m, "✓ valid offset")
	pressSettle(t, m, "enter")
	if m.confirm == nil {
		t.Fatalf("no confirmation after a valid offset:\n%s", screenText(m))
	}
	requireContains(t, m, "Set offset · jdbc-orders", `{"incrementing":9002} → {"incrementing":9100}`,
		"rewrites the existing key's exact bytes", "Verify   watch 200ms after the read-back")
	// State unknown: the watch line takes the room of the command's
	// first line, one page down.
	send(t, m, press("pgdown")...)
	requireContains(t, m, "koff set jdbc-orders")

	pressSettle(t, m, "enter")
	requireCalls(t, ed, "plan set jdbc-orders", "apply set jdbc-orders")
	if m.confirm != nil {
		t.Fatal("the dialog stayed open after the edit")
	}
	requireStatus(t, m, "set 1 partition of jdbc-orders: read back, NOT verified for the worker")

	// The table shows the new value at the next tick of the Store.
	send(t, m, tickMsg{})
	requireContains(t, m, `{"incrementing":9100}`)
	_ = f
}

func TestEnterInsertsANewlineWhileTheJSONIsIncomplete(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	selectPartition(t, m, "jdbc-orders", "customers")
	send(t, m, press("e")...)
	setField(m, 0, `{"incrementing":`)
	send(t, m, press("enter")...)
	if m.confirm != nil || m.busy != "" || len(ed.Calls()) > 0 {
		t.Fatal("enter submitted incomplete JSON")
	}
	if v := m.form.(*dialogs.EditForm).Fields[0].Area.Value(); v != "{\"incrementing\":\n" {
		t.Fatalf("enter did not insert a newline: %q", v)
	}
	send(t, m, press("7", "}")...)
	requireContains(t, m, "✓ valid offset")
}

func TestResetDialogEscCancels(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	selectPartition(t, m, "jdbc-orders", "orders")
	pressSettle(t, m, "x")
	if m.confirm == nil {
		t.Fatalf("x opened no confirmation:\n%s", screenText(m))
	}
	requireContains(t, m, "Reset offset · jdbc-orders", "? unknown (no --connect-url, no config topic)",
		"Connector state unknown", "offsets topic connect-offsets", "→ (deleted)",
		"tombstone under the existing key's exact bytes", "enter apply", "esc cancel")
	send(t, m, press("esc")...)
	if m.confirm != nil {
		t.Fatal("esc left the dialog open")
	}
	requireCalls(t, ed, "plan reset jdbc-orders")
	requireStatus(t, m, "cancelled: nothing was written")
	// The status goes with the next key; the table is back.
	send(t, m, press("down")...)
	if m.statusView() != "" {
		t.Errorf("the cancel notice outlived the next key: %q", m.statusView())
	}
}

func TestResetAllNeedsTheConnectorsName(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	selectConnector(t, m, "jdbc-orders")
	pressSettle(t, m, "X")
	if m.confirm == nil {
		t.Fatalf("X opened no confirmation:\n%s", screenText(m))
	}
	requireContains(t, m, "Reset ALL offsets (3) · jdbc-orders", "Type jdbc-orders to reset every offset",
		"type the name to continue")
	requireLacks(t, m, "enter apply")

	send(t, m, press("enter")...)
	send(t, m, press("jdbc-order")...)
	send(t, m, press("enter")...)
	if m.busy != "" || m.confirm.Running {
		t.Fatal("enter applied before the name was typed in full")
	}
	// Printable keys are the name's, not the dashboard's: q did not quit,
	// x did not start another reset.
	send(t, m, press("q", "x", "backspace", "backspace")...)
	requireCalls(t, ed, "plan reset-all jdbc-orders")

	send(t, m, press("s")...)
	requireContains(t, m, "enter apply")
	pressSettle(t, m, "enter")
	requireCalls(t, ed, "plan reset-all jdbc-orders", "apply reset-all jdbc-orders")
	requireStatus(t, m, "reset 3 partitions of jdbc-orders: read back, NOT verified for the worker")
}

func TestRunningConnectorOffersStopApplyResume(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	ed.state, ed.tasks, ed.restPath = "RUNNING", 2, true
	selectPartition(t, m, "jdbc-orders", "orders")
	pressSettle(t, m, "x")
	requireContains(t, m, "● RUNNING · 2 tasks", "Connect REST", "jdbc-orders is RUNNING",
		"ctrl+r stop → apply → resume")
	requireLacks(t, m, "enter apply")

	send(t, m, press("enter")...) // plain apply is not offered
	requireCalls(t, ed, "plan reset jdbc-orders")

	cmd := send(t, m, press("ctrl+r")...)
	requireContains(t, m, "stop jdbc-orders and wait for its tasks to go", "apply the edit and read it back", "resume jdbc-orders")
	// While it runs, keys wait: esc does not close the dialog.
	send(t, m, press("esc")...)
	if m.confirm == nil {
		t.Fatal("esc closed the dialog while the edit ran")
	}
	settle(t, m, cmd)
	requireCalls(t, ed, "plan reset jdbc-orders", "stop jdbc-orders", "apply reset jdbc-orders", "resume jdbc-orders")
	requireStatus(t, m, "verified: reset 1 partition of jdbc-orders via Connect REST · Connect: The offsets for this connector have been altered successfully · resumed jdbc-orders")
}

func TestFailedApplyLeavesTheConnectorStopped(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	ed.state, ed.tasks = "RUNNING", 1
	conflict := &apply.ConflictError{Partition: `{"protocol":"1","table":"orders"}`, Now: []byte(`{"incrementing":7}`)}
	ed.applyErr = conflict
	selectPartition(t, m, "jdbc-orders", "orders")
	pressSettle(t, m, "x")
	pressSettle(t, m, "ctrl+r")
	requireCalls(t, ed, "plan reset jdbc-orders", "stop jdbc-orders", "apply reset jdbc-orders")
	if m.confirm != nil {
		t.Fatal("the dialog stayed open after the failure")
	}
	requireStatus(t, m, conflict.Error())
	requireStatus(t, m, "jdbc-orders was left STOPPED: the edit failed, so koff did not resume it")
}

// An edit whose produce answer was lost says first that it may have been
// written, naming the topic-partition, and that the connector stays
// STOPPED because of it.
func TestAnApplyWhoseAnswerWasLostSaysMayHaveBeenWritten(t *testing.T) {
	_, ed, m := editModel(t, 160, 48, nil)
	ed.state, ed.tasks = "RUNNING", 1
	tp := model.TopicPartition{Topic: topic, Partition: 3}
	ed.applyErr = &apply.WriteError{Unknown: []model.TopicPartition{tp}, Err: errors.New("write to connect-offsets/3: connection reset by peer")}
	selectPartition(t, m, "jdbc-orders", "orders")
	pressSettle(t, m, "x")
	pressSettle(t, m, "ctrl+r")
	requireStatus(t, m, "may have been written: connect-offsets/3 (its answer was lost")
	requireStatus(t, m, "jdbc-orders was left STOPPED: the edit may have been written, so koff did not resume it")
}

func TestFailedStopWritesNothing(t *testing.T) {
	_, ed, m := editModel(t, 160, 48, nil)
	ed.state, ed.tasks = "PAUSED", 1
	ed.stopErr = errors.New("Connector jdbc-orders not found")
	selectPartition(t, m, "jdbc-orders", "orders")
	pressSettle(t, m, "x")
	requireContains(t, m, "Resuming leaves it RUNNING, not PAUSED.")
	pressSettle(t, m, "ctrl+r")
	requireCalls(t, ed, "plan reset jdbc-orders", "stop jdbc-orders")
	requireStatus(t, m, "could not stop jdbc-orders: Connector jdbc-orders not found — nothing was written")
}

func TestApplyErrorsAreShownWordForWord(t *testing.T) {
	for _, err := range []error{
		apply.ErrReadOnly,
		&apply.NotStoppedError{Connector: "jdbc-orders", State: "RUNNING", Tasks: 2},
		errors.New("Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/jdbc-orders/stop' endpoint"),
	} {
		_, ed, m := editModel(t, 120, 30, nil)
		ed.applyErr = err
		selectPartition(t, m, "jdbc-orders", "orders")
		pressSettle(t, m, "x")
		pressSettle(t, m, "enter")
		requireStatus(t, m, err.Error())
	}
}

func TestPlanErrorShownInTheStatusBar(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	ed.planErr = errors.New("Connector jdbc-orders not found")
	selectConnector(t, m, "jdbc-orders")
	pressSettle(t, m, "X")
	if m.confirm != nil {
		t.Fatal("a failed plan opened a dialog")
	}
	requireStatus(t, m, "Connector jdbc-orders not found")
}

func TestReadOnlyEditKeysSayWhy(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, func(o *Options) { o.ReadOnly = true })
	requireLacks(t, m, "X reset", "S stop")
	for _, k := range []string{"X", "S", "R", "u"} {
		send(t, m, press(k)...)
		requireStatus(t, m, "read-only: started with --read-only")
	}
	openConnectorNamed(t, m, "jdbc-orders")
	requireLacks(t, m, "e edit")
	for _, k := range []string{"e", "x", "X", "n", "S", "R", "u", "c"} {
		send(t, m, press(k)...)
		requireStatus(t, m, "read-only: started with --read-only")
		if m.form != nil || m.confirm != nil || m.busy != "" {
			t.Fatalf("%s acted in a read-only session", k)
		}
	}
	send(t, m, press("?")...)
	requireLacks(t, m, "edit offset", "reset connector", "undo")
	requireCalls(t, ed)
}

func TestStopAndResumeNeedREST(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, func(o *Options) { o.REST = false })
	requireContains(t, m, "X reset")
	requireLacks(t, m, "S stop")
	for _, k := range []string{"S", "R"} {
		send(t, m, press(k)...)
		requireStatus(t, m, "needs --connect-url")
	}
	requireCalls(t, ed)
}

func TestNoEditorSaysSo(t *testing.T) {
	_, _, m := editModel(t, 80, 24, func(o *Options) { o.Editor = nil })
	requireLacks(t, m, "X reset")
	requireContains(t, m, "U unparseable")
	send(t, m, press("X")...)
	requireStatus(t, m, "editing is not available")
}

func TestStopAndResumeShowProgressAndResult(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	selectConnector(t, m, "jdbc-orders")
	send(t, m, press("S")...)
	requireCalls(t, ed) // S only asks
	cmd := send(t, m, press("enter")...)
	requireContains(t, m, "stopping jdbc-orders…")
	// One job at a time: a second key says so instead of starting another.
	send(t, m, press("R")...)
	requireStatus(t, m, "busy: stopping jdbc-orders…")
	settle(t, m, cmd)
	requireStatus(t, m, "stopped jdbc-orders")
	send(t, m, press("R")...)
	pressSettle(t, m, "enter")
	requireStatus(t, m, "resumed jdbc-orders")
	requireCalls(t, ed, "stop jdbc-orders", "resume jdbc-orders")

	ed.stopErr = errors.New("Unknown connector jdbc-orders")
	send(t, m, press("S")...)
	pressSettle(t, m, "enter")
	requireStatus(t, m, "stop jdbc-orders: Unknown connector jdbc-orders")
}

// S and R ask first, naming the connector and the state Connect reports;
// esc leaves it as it is.
func TestStopAndResumeAskFirst(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			f, ed, m := editModel(t, sz[0], sz[1], nil)
			setREST(f)
			send(t, m, tickMsg{})
			selectConnector(t, m, "jdbc-orders")
			send(t, m, press("S")...)
			requireContains(t, m, "Stop connector · jdbc-orders", "● RUNNING · 2 tasks", "✗ 1 failed", "enter stop jdbc-orders", "esc cancel")
			requireFits(t, screenText(m), sz[0], sz[1])
			send(t, m, press("esc")...)
			requireStatus(t, m, "cancelled: jdbc-orders was not stopped")
			requireLacks(t, m, "Stop connector")

			selectConnector(t, m, "file-source")
			send(t, m, press("R")...)
			requireContains(t, m, "Resume connector · file-source", "■ STOPPED", "Resuming starts its tasks again")
			send(t, m, press("esc")...)
			send(t, m, press("S")...)
			requireContains(t, m, "already STOPPED")
			send(t, m, press("esc")...)
			requireCalls(t, ed)
		})
	}
}

func TestUndoShowsWhichEditItUndoes(t *testing.T) {
	f, ed, m := editModel(t, 100, 40, nil)
	selectPartition(t, m, "jdbc-orders", "customers")
	send(t, m, press("e")...)
	setField(m, 0, `{"incrementing":1}`)
	pressSettle(t, m, "ctrl+s")
	pressSettle(t, m, "enter")
	requireStatus(t, m, "set 1 partition of jdbc-orders: read back, NOT verified for the worker")
	send(t, m, tickMsg{})

	pressSettle(t, m, "u")
	if m.confirm == nil {
		t.Fatalf("u opened no dialog:\n%s", screenText(m))
	}
	requireContains(t, m, "Undo the last edit · jdbc-orders", "Undoes", "set of jdbc-orders by alice",
		"2025-11-29 18:10:00.000 UTC", "verified", `{"incrementing":1} → {"incrementing":9002}`)
	pressSettle(t, m, "enter")
	requireCalls(t, ed, "plan set jdbc-orders", "apply set jdbc-orders", `undo-request "jdbc-orders"`, "plan undo jdbc-orders", "apply undo jdbc-orders")
	requireStatus(t, m, "undid the set of jdbc-orders: 1 partition of jdbc-orders: read back, NOT verified for the worker")
	send(t, m, tickMsg{})
	requireContains(t, m, `{"incrementing":9002}`)
	_ = f
}

// A task flushed after the edit: u's confirmation names the partition,
// the newer value and that koff did not write it, before enter; enter
// undoes it all the same (the dashboard's --force).
func TestUndoShowsANewerValueBeforeConfirming(t *testing.T) {
	f, ed, m := editModel(t, 120, 50, nil)
	selectPartition(t, m, "jdbc-orders", "customers")
	send(t, m, press("e")...)
	setField(m, 0, `{"incrementing":1}`)
	pressSettle(t, m, "ctrl+s")
	pressSettle(t, m, "enter")
	requireStatus(t, m, "set 1 partition of jdbc-orders: read back, NOT verified for the worker")
	f.put(t0.Add(time.Second), keyCustomers, `{"incrementing":7}`) // the task flushed
	send(t, m, tickMsg{})

	pressSettle(t, m, "u")
	if m.confirm == nil {
		t.Fatalf("u opened no dialog:\n%s", screenText(m))
	}
	requireContains(t, m, "Undo the last edit · jdbc-orders", "cluster prod-cluster", "NEWER VALUE:",
		`{"incrementing":7}, not {"incrementing":1} as the edit wrote`, "not written by koff", "undo overwrites it")
	pressSettle(t, m, "enter")
	requireCalls(t, ed, "plan set jdbc-orders", "apply set jdbc-orders", `undo-request "jdbc-orders"`, "plan undo jdbc-orders", "apply undo jdbc-orders")
	send(t, m, tickMsg{})
	requireContains(t, m, `{"incrementing":9002}`)
}

// The last edit was refused (it wrote nothing): u's confirmation says so
// and that it undoes the older edit, before enter.
func TestUndoNamesANewerEditThatWroteNothing(t *testing.T) {
	_, ed, m := editModel(t, 120, 50, nil)
	selectPartition(t, m, "jdbc-orders", "customers")
	send(t, m, press("e")...)
	setField(m, 0, `{"incrementing":1}`)
	pressSettle(t, m, "ctrl+s")
	pressSettle(t, m, "enter")
	requireStatus(t, m, "set 1 partition of jdbc-orders: read back, NOT verified for the worker")
	send(t, m, tickMsg{})

	ed.real.ReadOnly = true // the next edit is refused, and audited as such
	send(t, m, press("e")...)
	setField(m, 0, `{"incrementing":2}`)
	pressSettle(t, m, "ctrl+s")
	pressSettle(t, m, "enter")
	ed.real.ReadOnly = false
	send(t, m, press("esc")...)

	pressSettle(t, m, "u")
	if m.confirm == nil {
		t.Fatalf("u opened no dialog:\n%s", screenText(m))
	}
	requireContains(t, m, "NEWER EDIT WROTE NOTHING:", "(refused): this undoes the older edit above", `{"incrementing":1} → {"incrementing":9002}`)
}

func TestUndoWithNothingToUndo(t *testing.T) {
	_, _, m := editModel(t, 80, 24, nil)
	pressSettle(t, m, "u")
	requireStatus(t, m, "no edit of jdbc-orders in")
}

func TestNewPartitionValidatesBothFields(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	selectPartition(t, m, "jdbc-orders", "customers")
	send(t, m, press("n")...)
	requireContains(t, m, "Add a source partition · jdbc-orders", "stored already: its offset is replaced")
	setField(m, 0, `{"protocol":"1","table":`)
	send(t, m, press("end")...)
	requireContains(t, m, `partition is not valid JSON: {"protocol":"1","table":`)
	send(t, m, press(`"`, "r", "e", "f", "u", "n", "d", "s", `"`, "}")...)
	requireContains(t, m, "✓ new source partition")
	send(t, m, press("tab")...)
	setField(m, 1, "null")
	send(t, m, press("end")...)
	requireContains(t, m, "a new source partition needs an offset object, not null")
	setField(m, 1, `{"incrementing":1}`)
	send(t, m, press("end")...)
	// A partition the connector never had is refused first, as a typo
	// would be, naming the closest; the same submission again adds it.
	pressSettle(t, m, "ctrl+s")
	if m.confirm != nil || m.form == nil {
		t.Fatalf("a partition jdbc-orders never had went to review:\n%s", screenText(m))
	}
	requireContains(t, m, "jdbc-orders has no offset for", "again adds it as a new source partition")
	requireFits(t, screenText(m), 80, 24)
	pressSettle(t, m, "ctrl+s")
	requireContains(t, m, "Set offset · jdbc-orders", `(none) → {"incrementing":1}`, "writes a new key")
	pressSettle(t, m, "enter")
	requireCalls(t, ed, "plan set jdbc-orders", "plan set jdbc-orders", "apply set jdbc-orders")
	send(t, m, tickMsg{})
	requireContains(t, m, "refunds")
}

func TestPartitionKeysOnTheConnectorsScreenSayWhere(t *testing.T) {
	_, ed, m := editModel(t, 80, 24, nil)
	send(t, m, press("e")...)
	requireStatus(t, m, "open a connector first")
	requireCalls(t, ed)
}

func TestDialogsFitEverySize(t *testing.T) {
	for _, sz := range [][2]int{{40, 12}, {60, 20}, {80, 24}, {200, 60}} {
		_, ed, m := editModel(t, sz[0], sz[1], nil)
		ed.state, ed.tasks = "RUNNING", 2
		selectPartition(t, m, "jdbc-orders", "1732903002") // orders: its offset shows at every width
		send(t, m, press("e")...)
		requireFits(t, screenText(m), sz[0], sz[1])
		send(t, m, press("esc")...)
		pressSettle(t, m, "X")
		requireFits(t, screenText(m), sz[0], sz[1])
		send(t, m, press("pgdown", "down")...)
		requireFits(t, screenText(m), sz[0], sz[1])
	}
}

// The equivalent command keeps the session's --context and --read-only
// and the cluster, and breaks only between words, each broken line ending
// in " \" so that what is copied runs as it is.
func TestEquivalentCommandKeepsContextAndWords(t *testing.T) {
	for _, w := range []int{60, 80, 100} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			_, ed, m := editModel(t, w, 24, nil)
			ed.real.Cmd = plan.CommandLine{Globals: []string{"--context", "prod eu", "-b", "kafka-1.prod.internal:9092,kafka-2.prod.internal:9092",
				"--connect-url", "http://connect-1.prod.internal:8083"}}
			selectPartition(t, m, "jdbc-orders", "customers")
			send(t, m, press("e")...)
			setField(m, 0, `{"incrementing":18446744073709551615}`)
			pressSettle(t, m, "ctrl+s")
			if m.confirm == nil {
				t.Fatalf("no confirmation:\n%s", screenText(m))
			}
			cmd := m.confirm.Plan.Command
			if !strings.Contains(cmd, "--context 'prod eu'") || !strings.Contains(cmd, "--connect-url http://connect-1.prod.internal:8083") {
				t.Fatalf("command %s lacks the context or the Connect URL", cmd)
			}
			inner := m.confirm.Width - kit.DialogFrameW
			lines := m.confirm.Content(inner)
			at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(ansi.Strip(l), "Command") })
			var joined []string
			for i, l := range lines[at+1:] {
				l = ansi.Strip(l)
				if ansi.StringWidth(l) > inner {
					t.Errorf("command line %d is %d wide, the dialog %d", i, ansi.StringWidth(l), inner)
				}
				l = strings.TrimPrefix(l, "  ")
				if cont := strings.HasSuffix(l, " \\"); cont != (i < len(lines[at+1:])-1) {
					t.Errorf("line %d %q: a broken line ends in \" \\\", the last does not", i, l)
				}
				joined = append(joined, strings.TrimSuffix(l, " \\"))
			}
			if got := strings.Join(joined, " "); got != cmd {
				t.Errorf("the command as shown, joined:\n  %s\nis not the command:\n  %s", got, cmd)
			}
		})
	}
}

// An edit of a STOPPED connector writes records, but no task flushed: its
// panel says it is idle because it is stopped, and marks the edit as an
// edit, not "ok: flushing · last flush just now".
func TestEditOfAStoppedConnectorIsNoFlush(t *testing.T) {
	f, ed, m := editModel(t, 120, 35, nil)
	ed.state = "STOPPED"
	setREST(f)
	send(t, m, tickMsg{})
	selectPartition(t, m, "file-source", "application-server-01")
	send(t, m, press("e")...)
	setField(m, 0, `{"position":1}`)
	pressSettle(t, m, "ctrl+s")
	pressSettle(t, m, "enter")
	requireStatus(t, m, "verified")
	send(t, m, tickMsg{})
	requireContains(t, m, "◌ idle: STOPPED: no task flushes", "✎ newest records: the edit, just now")
	requireLacks(t, m, "ok: flushing", "last flush just now")
}

// n with a misspelt table: the form's status line names the partition
// meant, and a key typed after it takes back the "again adds it".
func TestNewPartitionTypoIsRefusedWithDidYouMean(t *testing.T) {
	_, ed, m := editModel(t, 60, 20, nil)
	selectPartition(t, m, "jdbc-orders", "customers")
	send(t, m, press("n")...)
	setField(m, 0, `{"protocol":"1","table":"custmers"}`)
	setField(m, 1, `{"incrementing":1}`)
	// Said as it is typed, before any plan.
	requireContains(t, m, "⚠ not one of the connector's partitions (did you mean", `{"protocol":"1","table":"customers"}?)`)
	pressSettle(t, m, "ctrl+s")
	requireStatus(t, m, `jdbc-orders has no offset for {"protocol":"1","table":"custmers"} (did you mean {"protocol":"1","table":"customers"}?)`)
	requireFits(t, screenText(m), 60, 20)
	send(t, m, press("end", " ")...)
	pressSettle(t, m, "ctrl+s")
	if m.confirm != nil {
		t.Fatalf("an edited typo went to review without a second submission:\n%s", screenText(m))
	}
	requireCalls(t, ed, "plan set jdbc-orders", "plan set jdbc-orders")
}

// Without REST the dialog says koff watches the edit after its read-back,
// and a task's commit in that time is said in the status bar as an
// overwrite, naming the value in force, never as verified.
func TestAnEditOverwrittenWhileWatchedSaysSo(t *testing.T) {
	f, ed, m := editModel(t, 120, 40, nil)
	ed.real.Progress = func(p *plan.Plan, _ time.Duration) {
		ed.real.Progress = nil
		w := p.Changes[0].Writes[0]
		v := `{"incrementing":9003}`
		f.store.Ingest([]store.Record{f.rec(t0, string(w.Key), &v, w.Partition)})
	}
	selectPartition(t, m, "jdbc-orders", "customers")
	send(t, m, press("e")...)
	setField(m, 0, `{"incrementing":9100}`)
	send(t, m, press("end")...)
	pressSettle(t, m, "enter")
	requireContains(t, m, "Verify   watch 200ms after the read-back (its flush interval: 1m)", "State    ? unknown (no --connect-url, no config topic)")
	pressSettle(t, m, "enter")
	requireStatus(t, m, `written, then overwritten: set 1 partition of jdbc-orders via offsets topic, but {"protocol":"1","table":"customers"} holds {"incrementing":9003}`)
}
