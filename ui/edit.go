package ui

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"koff/edit"
	"koff/edit/apply"
	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/planner"
	"koff/edit/undo"
	"koff/model"
	"koff/model/java"
	"koff/ui/dialogs"
	"koff/ui/kit"
	"koff/ui/screens"
)

var _ kit.Editor = (*edit.Editor)(nil)

// Messages the edit commands return. id ties each to the job that started
// it; a message of an older job is dropped.
type (
	jobMsg interface{ jobID() int }

	planDoneMsg struct {
		id     int
		plan   *plan.Plan
		undo   *undo.Undo // for an undo: the edit it undoes, and what is in its way
		note   string     // how the offsets were chosen (sink strategies, copies)
		detail []string   // what the note found: a rewind's commits
		err    error
		// none: the connector has no edit to undo, which is no failure.
		none bool
	}
	applyDoneMsg struct {
		id  int
		res apply.Result
		err error
	}
	stopDoneMsg struct {
		id   int
		name string
		err  error
	}
	resumeDoneMsg struct {
		id   int
		name string
		err  error
	}
)

// An operation of several steps (a rename): planned, then run.
type (
	opPlanDoneMsg struct {
		id  int
		op  *plan.Operation
		err error
	}
	opApplyDoneMsg struct {
		id  int
		res apply.OperationResult
		err error
	}
)

func (m opPlanDoneMsg) jobID() int  { return m.id }
func (m opApplyDoneMsg) jobID() int { return m.id }
func (m planDoneMsg) jobID() int    { return m.id }
func (m applyDoneMsg) jobID() int   { return m.id }
func (m stopDoneMsg) jobID() int    { return m.id }
func (m resumeDoneMsg) jobID() int  { return m.id }

// startJob marks a job in flight (one at a time) and returns its command,
// with the spinner's first tick when nothing was spinning yet. run gets a
// context bounded by timeout and must not touch the model.
func (m *Model) startJob(label string, timeout time.Duration, run func(ctx context.Context, id int) tea.Msg) tea.Cmd {
	m.jobSeq++
	id := m.jobSeq
	spinning := m.busy != ""
	m.busy = label
	m.planCancel = nil
	m.setStatus(statusBusy, label)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	m.jobCancel = cancel
	cmd := func() tea.Msg {
		defer cancel()
		return run(ctx, id)
	}
	if spinning {
		return cmd
	}
	return tea.Batch(cmd, m.spinner.Tick)
}

// cancelPlan stops the plan job in flight, if one is, and forgets it: its
// late answer is dropped. Plans only read, so nothing is left half done.
func (m *Model) cancelPlan() bool {
	if m.planCancel == nil || m.busy == "" {
		return false
	}
	m.planCancel()
	m.planCancel = nil
	m.busy = ""
	m.jobSeq++
	m.status = status{}
	return true
}

func (m *Model) planJob(req plan.Request) tea.Cmd {
	return m.planWith(dialogs.PlanRequest(req))
}

// planWith plans what a dialog or key submitted.
func (m *Model) planWith(sub *dialogs.Submission) tea.Cmd {
	ed := m.opts.Editor
	if sub.Operation != nil {
		cmd := m.startJob(sub.Label, kit.PlanTimeout, func(ctx context.Context, id int) tea.Msg {
			op, err := sub.Operation(ctx, ed)
			return opPlanDoneMsg{id: id, op: op, err: err}
		})
		m.planCancel = m.jobCancel
		return cmd
	}
	cmd := m.startJob(sub.Label, kit.PlanTimeout, func(ctx context.Context, id int) tea.Msg {
		p, err := sub.Plan(ctx, ed)
		return planDoneMsg{id: id, plan: p, note: sub.Note, detail: sub.Detail, err: err}
	})
	m.planCancel = m.jobCancel
	return cmd
}

// undoJob reads the audit log for the last edit of connector on this
// cluster and plans putting its before-values back: u acts on the
// selected connector as every key does, never on another's edit. Newer
// values it would overwrite, and newer edits that wrote nothing, are shown
// in the confirmation: enter there is the operator's go-ahead (the CLI's
// --force and --yes).
func (m *Model) undoJob(connector string) tea.Cmd {
	ed := m.opts.Editor
	defer func() { m.planCancel = m.jobCancel }()
	return m.startJob("finding the last edit of "+kit.Clean(connector)+" in the audit log…", kit.PlanTimeout, func(ctx context.Context, id int) tea.Msg {
		u, err := ed.FindUndo(ctx, undo.Query{Connector: connector})
		if err != nil {
			return planDoneMsg{id: id, err: err, none: strings.HasPrefix(err.Error(), "no edit of ")}
		}
		if u.Operation != nil {
			// An operation (a rename) is undone step by step, confirmed
			// as it was: by typing the name it made.
			return opPlanDoneMsg{id: id, op: u.Operation}
		}
		p, err := ed.Plan(ctx, u.Request)
		return planDoneMsg{id: id, plan: p, undo: u, err: err}
	})
}

// applyJob applies a copy of the plan: Apply updates the plan's state as
// it re-checks, while the dialog keeps drawing the original.
func (m *Model) applyJob(p *plan.Plan) tea.Cmd {
	ed := m.opts.Editor
	cp := *p
	label := fmt.Sprintf("applying %s of %s: writing, then reading it back…", p.Kind, p.Connector)
	if p.Watch > 0 {
		// Not STOPPED by Connect's word: the dialog said how long, and why.
		label = fmt.Sprintf("applying %s of %s: writing, reading it back, then watching %s for a task's commit over it…", p.Kind, p.Connector, p.WatchFor())
	}
	return m.startJob(label, kit.ApplyTimeout, func(ctx context.Context, id int) tea.Msg {
		res, err := ed.Apply(ctx, &cp)
		return applyDoneMsg{id: id, res: res, err: err}
	})
}

// replanApplyJob is the apply step of stop → apply → resume. Stopping made
// the tasks commit one last time, so the confirmed edit is planned again on
// the offsets they left (a shift moves from where the sink stopped; the
// audit log's before-values are the ones really replaced), then applied.
func (m *Model) replanApplyJob(p *plan.Plan) tea.Cmd {
	ed := m.opts.Editor
	cp := *p
	label := fmt.Sprintf("applying %s of %s on the offsets left at stop…", p.Kind, p.Connector)
	return m.startJob(label, kit.ApplyTimeout, func(ctx context.Context, id int) tea.Msg {
		np, err := ed.Replan(ctx, &cp)
		if err != nil {
			return applyDoneMsg{id: id, err: err}
		}
		res, err := ed.Apply(ctx, np)
		return applyDoneMsg{id: id, res: res, err: err}
	})
}

func (m *Model) stopJob(name string) tea.Cmd {
	ed := m.opts.Editor
	return m.startJob("stopping "+name+"…", kit.StopTimeout, func(ctx context.Context, id int) tea.Msg {
		return stopDoneMsg{id: id, name: name, err: ed.StopConnector(ctx, name)}
	})
}

func (m *Model) resumeJob(name string) tea.Cmd {
	ed := m.opts.Editor
	return m.startJob("resuming "+name+"…", kit.ResumeTimeout, func(ctx context.Context, id int) tea.Msg {
		return resumeDoneMsg{id: id, name: name, err: ed.ResumeConnector(ctx, name)}
	})
}

// handleJob takes a finished job's message. It returns the next job's
// command when the job was a step of stop → apply → resume.
func (m *Model) handleJob(msg jobMsg) tea.Cmd {
	if msg.jobID() != m.jobSeq || m.busy == "" {
		return nil // an older job's answer
	}
	m.busy = ""
	m.status = status{}
	// A verified edit is in the Store already: show the row's new value
	// together with the status line, not a tick later.
	defer m.handleTick()
	switch msg := msg.(type) {
	case planDoneMsg:
		m.handlePlanDone(msg)
	case applyDoneMsg:
		return m.handleApplyDone(msg)
	case stopDoneMsg:
		return m.handleStopDone(msg)
	case resumeDoneMsg:
		m.handleResumeDone(msg)
	case opPlanDoneMsg:
		m.handleOpPlanDone(msg)
	case opApplyDoneMsg:
		m.handleOpApplyDone(msg)
	}
	return nil
}

// handleOpPlanDone opens the operation's confirmation, or says in the
// form why it cannot be planned.
func (m *Model) handleOpPlanDone(msg opPlanDoneMsg) {
	if msg.err != nil {
		if m.form != nil {
			st := m.form.State()
			st.Planning, st.PlanErr = false, msg.err.Error()
		}
		m.setStatus(statusErr, msg.err.Error())
		return
	}
	m.form = nil
	m.op = dialogs.NewOperationDialog(&m.km, m.styles, msg.op)
	m.layout()
}

// operationJob runs a confirmed operation's steps.
func (m *Model) operationJob(op *plan.Operation) tea.Cmd {
	ed := m.opts.Editor
	label := fmt.Sprintf("running the %s: %d steps…", op.What(), len(op.Steps))
	return m.startJob(label, kit.ApplyTimeout, func(ctx context.Context, id int) tea.Msg {
		res, err := ed.ApplyOperation(ctx, op)
		return opApplyDoneMsg{id: id, res: res, err: err}
	})
}

// handleOpApplyDone closes the confirmation and says what happened: all
// steps done, or which were, and how to bring back the start.
func (m *Model) handleOpApplyDone(msg opApplyDoneMsg) {
	op := m.op
	m.op = nil
	m.layout()
	if op != nil {
		m.edited[op.Op.Connector] = m.opts.Now()
	}
	if msg.err != nil {
		var oe *apply.OperationError
		if errors.As(msg.err, &oe) && oe.Undo != "" {
			// What to do first, then what happened: a narrow bar cuts
			// only the details.
			var done []string
			for _, i := range oe.Done {
				d := fmt.Sprintf("%d %s %s", i+1, oe.Steps[i].Kind, oe.Steps[i].Connector)
				if w := oe.Steps[i].Where; w != "" {
					d += " on " + w
				}
				done = append(done, d)
			}
			failed := oe.Steps[oe.Failed]
			both := ""
			if op != nil && op.Op.OnBoth(oe.Done) {
				both = op.Op.OnBothText() + " · "
			}
			m.setStatus(statusErr, fmt.Sprintf("%s stopped at step %d (%s %s): %v · %sdone: %s · %s brings back the start (%s on the connector)",
				oe.What, oe.Failed+1, failed.Kind, failed.Connector, oe.Err, both, strings.Join(done, ", "), oe.Undo, m.km.Undo.Help().Key))
			return
		}
		m.setStatus(statusErr, msg.err.Error())
		return
	}
	what := msg.res.Operation.What()
	m.setStatus(statusOK, fmt.Sprintf("%s: %s · undo: %s", what, msg.res.Operation.DoneText(), msg.res.UndoCommand()))
}

// handleOperationKey drives the operation's confirmation: its name typed,
// enter runs it, esc cancels.
func (m *Model) handleOperationKey(msg tea.KeyPressMsg) tea.Cmd {
	d := m.op
	switch {
	case key.Matches(msg, m.km.ForceQuit):
		return tea.Quit
	case d.Running:
		return nil
	case key.Matches(msg, m.km.Cancel):
		m.op = nil
		m.layout()
		m.setStatus(statusInfo, "cancelled: nothing was done")
		return nil
	case key.Matches(msg, m.km.Confirm):
		if !d.CanApply() {
			return nil
		}
		d.Start()
		return m.operationJob(d.Op)
	}
	return d.Update(msg)
}

func (m *Model) handlePlanDone(msg planDoneMsg) {
	if msg.err != nil {
		words := msg.err.Error()
		if m.form != nil {
			st := m.form.State()
			st.Planning, st.PlanErr = false, words
			var u *planner.UnknownPartitionError
			if errors.As(msg.err, &u) && !u.Reset && !u.Sink {
				words = unknownPartitionWords(u, m.km.FormSubmit.Help().Key)
				st.PlanErr, st.Create = words, true
			}
		}
		var none *planner.NothingToResetError
		if errors.As(msg.err, &none) || msg.none {
			m.setStatus(statusInfo, words) // as Connect's 200 to a second DELETE: no failure
			return
		}
		m.setStatus(statusErr, words)
		return
	}
	m.form = nil
	m.confirm = dialogs.NewConfirmDialog(&m.km, m.styles, msg.plan, msg.undo, m.opts.Now())
	m.confirm.Note, m.confirm.Detail = msg.note, msg.detail
	if msg.undo != nil && len(msg.undo.Unreadable) > 0 {
		// An edit in a skipped line is one this undo cannot see.
		m.setStatus(statusWarn, audit.UnreadableText(msg.undo.Unreadable))
	}
	m.layout()
}

func (m *Model) handleApplyDone(msg applyDoneMsg) tea.Cmd {
	d := m.confirm
	if d != nil && d.Flow {
		name := d.Plan.Connector
		if msg.err != nil {
			d.Fail(dialogs.StepApply)
			m.closeConfirm()
			how := "the edit failed"
			var we *apply.WriteError
			if errors.As(msg.err, &we) && len(we.Unknown) > 0 {
				how = "the edit may have been written"
			}
			m.setStatus(statusErr, fmt.Sprintf("%s — %s was left STOPPED: %s, so koff did not resume it (R resumes it)", msg.err, name, how))
			return nil
		}
		d.Done(dialogs.StepApply)
		d.Result = &msg.res
		m.edited[name] = m.opts.Now()
		return m.resumeJob(name)
	}
	m.closeConfirm()
	if msg.err != nil {
		m.setStatus(statusErr, msg.err.Error())
		return nil
	}
	if msg.res.Plan != nil {
		m.edited[msg.res.Plan.Connector] = m.opts.Now()
	}
	m.setStatus(resultKind(msg.res), resultText(msg.res))
	return nil
}

func (m *Model) handleStopDone(msg stopDoneMsg) tea.Cmd {
	d := m.confirm
	if d != nil && d.Flow {
		if msg.err != nil {
			d.Fail(dialogs.StepStop)
			m.closeConfirm()
			m.setStatus(statusErr, fmt.Sprintf("could not stop %s: %s — nothing was written", msg.name, msg.err))
			return nil
		}
		d.Done(dialogs.StepStop)
		return m.replanApplyJob(d.Plan)
	}
	if msg.err != nil {
		m.setStatus(statusErr, fmt.Sprintf("stop %s: %s", msg.name, msg.err))
		return nil
	}
	m.setStatus(statusOK, fmt.Sprintf("stopped %s: its tasks are gone and its offsets can be edited (R resumes it)", msg.name))
	return nil
}

func (m *Model) handleResumeDone(msg resumeDoneMsg) {
	d := m.confirm
	if d != nil && d.Flow {
		res := *d.Result
		m.closeConfirm()
		if msg.err != nil {
			m.setStatus(statusWarn, fmt.Sprintf("%s; but resuming %s failed: %s — it is still STOPPED (R resumes it)", resultText(res), msg.name, msg.err))
			return
		}
		m.setStatus(resultKind(res), resultText(res)+" · resumed "+msg.name)
		return
	}
	if msg.err != nil {
		m.setStatus(statusErr, fmt.Sprintf("resume %s: %s", msg.name, msg.err))
		return
	}
	m.setStatus(statusOK, "resumed "+msg.name)
}

// resultText is Result.Brief, with Connect's own answer for REST edits.
func resultText(r apply.Result) string {
	s := r.Brief()
	if r.Message != "" {
		s += " · Connect: " + r.Message
	}
	return s
}

// resultKind marks only a verified edit with a check; one read back but
// not verified for the worker is a warning, as its words say.
func resultKind(r apply.Result) statusKind {
	if r.Verified && !r.ReadBackOnly() {
		return statusOK
	}
	return statusWarn
}

func (m *Model) closeConfirm() {
	m.confirm = nil
	m.layout()
}

// pressed is key.Matches for a binding whether or not it is enabled: a
// disabled edit key still answers with the reason it cannot act.
func pressed(msg tea.KeyPressMsg, b key.Binding) bool {
	b.SetEnabled(true)
	return key.Matches(msg, b)
}

// applyEditAvailability disables the edit bindings a session cannot use;
// help hides them, and a press says why (editBlocked).
func (m *Model) applyEditAvailability() {
	if m.opts.ReadOnly || m.opts.Editor == nil {
		for _, b := range m.km.EditBindings() {
			b.SetEnabled(false)
		}
	}
	if !m.opts.REST {
		m.km.Stop.SetEnabled(false)
		m.km.Resume.SetEnabled(false)
		m.km.Rename.SetEnabled(false)
		m.km.Rekey.SetEnabled(false)
		m.km.Move.SetEnabled(false)
		m.km.Create.SetEnabled(false)
	}
	if m.opts.Served {
		m.km.Move.SetEnabled(false)
	}
}

// editBlocked says why an edit key cannot act now, "" when it can.
func (m *Model) editBlocked(b *key.Binding) string {
	switch {
	case m.opts.ReadOnly:
		return "read-only: " + m.opts.ReadOnlyReason
	case m.opts.Editor == nil:
		return "editing is not available: this dashboard was started without an edit pipeline"
	case (b == &m.km.Stop || b == &m.km.Resume) && !m.opts.REST:
		return "needs --connect-url: stopping and resuming a connector go through Connect's REST API"
	case b == &m.km.Rename && !m.opts.REST:
		return "needs --connect-url: a rename creates and deletes connectors through Connect's REST API"
	case b == &m.km.Rekey && !m.opts.REST:
		return "needs --connect-url: a rekey stops the connector and changes its config through Connect's REST API"
	case b == &m.km.Move && !m.opts.REST:
		return "needs --connect-url: a move creates and deletes connectors through Connect's REST API"
	case b == &m.km.Create && !m.opts.REST:
		return "needs --connect-url: a connector is created through Connect's REST API (POST /connectors, STOPPED until its offsets are in place)"
	case b == &m.km.Move && m.opts.Served:
		return "koff serve has no contexts (its sessions share one cluster): a move is made with koff move NAME --to-context CTX, or M in a local dashboard"
	case m.busy != "":
		return "busy: " + m.busy + " Wait for it to finish."
	}
	return ""
}

// editTarget is what an edit key acts on: the connector, and the row
// selected on its screen.
type editTarget struct {
	name   string
	sink   bool
	screen screens.Screen
	// On the partitions screen: the selected source partition.
	row    model.PartitionRow
	hasRow bool
	// On the sink screen: the selected topic-partition and their number.
	sinkRow    model.SinkPartitionRow
	hasSinkRow bool
	sinkRows   int
	group      string
}

// handleEditKey acts on an edit key pressed on a table screen. ok is false
// when the key is not an edit key here, so the screen gets it.
func (m *Model) handleEditKey(msg tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	var b *key.Binding
	for _, e := range m.km.EditBindings() {
		if pressed(msg, *e) {
			b = e
			break
		}
	}
	if b == nil {
		return nil, false
	}
	t := editTarget{screen: m.top()}
	switch s := m.top().(type) {
	case *screens.ConnectorsScreen:
		r, found := s.Selected()
		if !found {
			m.setStatus(statusInfo, "no connector selected")
			return nil, true
		}
		t.name, t.sink = r.ID.Name, r.IsSink()
	case *screens.PartitionsScreen:
		t.name = s.ID.Name
		t.row, t.hasRow = s.Selected()
	case *screens.SinkScreen:
		t.name, t.sink, t.group = s.Name, true, s.Group()
		t.sinkRow, t.hasSinkRow = s.Selected()
		t.sinkRows = len(s.List.Items)
	case *screens.DetailScreen:
		// The partition shown, and its connector.
		t.name = s.Connector().Name
		if k, err := model.ParseKey([]byte(s.ID().Key)); err == nil && t.name == "" {
			t.name = k.Connector
		}
		d, found := s.Detail()
		t.row, t.hasRow = d.PartitionRow, found
		if b == &m.km.ToCommit {
			if reason := m.editBlocked(b); reason != "" {
				m.setStatus(statusInfo, reason)
				return nil, true
			}
			return m.editToCommit(s), true
		}
	default:
		// The unparseable records belong to no connector.
		m.setStatus(statusInfo, fmt.Sprintf("%s: %s; unparseable records belong to no connector: select one on the connectors screen (%s)",
			b.Help().Key, b.Help().Desc, m.km.Back.Help().Key))
		return nil, true
	}
	if reason := m.editBlocked(b); reason != "" {
		m.setStatus(statusInfo, reason)
		return nil, true
	}
	switch {
	case b == &m.km.ToCommit:
		m.setStatus(statusInfo, b.Help().Key+": edits to a commit of a partition's history; open a source partition first ("+m.km.Open.Help().Key+")")
		return nil, true
	case b == &m.km.RewindTime:
		return m.rewindTime(t), true
	case t.sink:
		return m.handleSinkEditKey(b, t), true
	}
	return m.handleSourceEditKey(b, t), true
}

// handleSourceEditKey acts on an edit key for a source connector.
func (m *Model) handleSourceEditKey(b *key.Binding, t editTarget) tea.Cmd {
	parts, onPartitions := t.screen.(*screens.PartitionsScreen)
	_, onDetail := t.screen.(*screens.DetailScreen)
	needsPartition := b == &m.km.EditOffset || b == &m.km.ResetOffset
	switch {
	case onDetail && b == &m.km.NewPartition:
		m.setStatus(statusInfo, fmt.Sprintf("%s: %s; on the partitions screen (%s goes back)", b.Help().Key, b.Help().Desc, m.km.Back.Help().Key))
		return nil
	case !onPartitions && !onDetail && (needsPartition || b == &m.km.NewPartition):
		m.setStatus(statusInfo, fmt.Sprintf("%s: %s works on source partitions; open a connector first (%s)", b.Help().Key, b.Help().Desc, m.km.Open.Help().Key))
		return nil
	}
	var partition java.Object
	if needsPartition {
		if !t.hasRow {
			m.setStatus(statusInfo, "no source partition selected")
			return nil
		}
		k, err := model.ParseKey([]byte(t.row.ID.Key))
		if err != nil {
			m.setStatus(statusErr, "the selected key cannot be parsed: "+err.Error())
			return nil
		}
		partition = k.Partition
	}
	name := t.name
	if needsPartition && !t.row.Live && t.row.Stray != "" {
		// A stray copy: say which copy is live and what the task reads,
		// and keep "this copy only" apart from the partition's edit.
		return m.openForm(dialogs.NewStrayForm(&m.km, m.styles, name, t.row, partition, b == &m.km.ResetOffset))
	}
	switch b {
	case &m.km.EditOffset:
		var shapes []java.Object
		if onPartitions {
			shapes = parts.SiblingShapes(m.opts.Source, t.row).Offsets
		}
		return m.openForm(dialogs.NewOffsetForm(&m.km, m.styles, name, t.row, partition, shapes))
	case &m.km.NewPartition:
		return m.openForm(dialogs.NewPartitionForm(&m.km, m.styles, name, t.row, t.hasRow, parts.KnownPartitions(), parts.SiblingShapes(m.opts.Source, t.row)))
	case &m.km.ResetOffset:
		if t.row.Deleted {
			m.setStatus(statusInfo, "this source partition's offset is already deleted (its latest record is a tombstone)")
			return nil
		}
		return m.planJob(plan.Request{Connector: name, Kind: plan.KindReset, Items: []plan.Item{{Partition: partition}}})
	case &m.km.ResetAll:
		return m.planJob(plan.Request{Connector: name, Kind: plan.KindResetAll})
	case &m.km.Copy:
		return m.openForm(dialogs.NewCopyForm(&m.km, m.styles, name, m.connectorNames()))
	}
	return m.handleConnectorKey(b, name, false)
}

// handleSinkEditKey acts on an edit key for a sink connector: its offsets
// are a consumer group's, set by strategy through Editor.PlanSink.
func (m *Model) handleSinkEditKey(b *key.Binding, t editTarget) tea.Cmd {
	_, onSink := t.screen.(*screens.SinkScreen)
	name := t.name
	switch b {
	case &m.km.EditOffset, &m.km.ResetOffset:
		if !onSink {
			m.setStatus(statusInfo, fmt.Sprintf("%s works on a sink's topic-partitions: open it first (%s)", b.Help().Desc, m.km.Open.Help().Key))
			return nil
		}
		if b == &m.km.EditOffset {
			if t.sinkRows == 0 {
				m.setStatus(statusInfo, "group "+t.group+" has no committed offsets to set")
				return nil
			}
			return m.openForm(dialogs.NewSinkForm(&m.km, m.styles, name, t.group, t.sinkRow, t.hasSinkRow, t.sinkRows, m.opts.Now))
		}
		if !t.hasSinkRow {
			m.setStatus(statusInfo, "no topic-partition selected")
			return nil
		}
		if t.sinkRow.Committed < 0 {
			m.setStatus(statusInfo, t.sinkRow.TopicPartition.String()+" has no committed offset to reset")
			return nil
		}
		return m.planWith(dialogs.PlanSinkRequest(plan.SinkRequest{Connector: name, Kind: plan.KindReset,
			Partitions: []model.TopicPartition{t.sinkRow.TopicPartition}, Strategy: plan.SinkStrategy{Kind: plan.SinkReset}},
			"delete the committed offset of "+t.sinkRow.TopicPartition.String()))
	case &m.km.ResetAll:
		return m.planWith(dialogs.PlanSinkRequest(plan.SinkRequest{Connector: name, Kind: plan.KindResetAll,
			Strategy: plan.SinkStrategy{Kind: plan.SinkReset}}, "delete every committed offset of the group"))
	case &m.km.NewPartition:
		m.setStatus(statusInfo, name+" is a sink: its topic-partitions come from its topics; "+m.km.EditOffset.Help().Key+" sets their committed offsets")
		return nil
	case &m.km.Copy:
		m.setStatus(statusInfo, name+" is a sink: copy moves source offsets (a sink's are its consumer group's)")
		return nil
	}
	return m.handleConnectorKey(b, name, true)
}

// handleConnectorKey acts on the keys that work alike for sources and
// sinks: stop and resume (each asks first), and undo.
func (m *Model) handleConnectorKey(b *key.Binding, name string, sink bool) tea.Cmd {
	switch b {
	case &m.km.Stop, &m.km.Resume:
		m.state = dialogs.NewStateDialog(&m.km, m.styles, b == &m.km.Stop, name, sink, m.rest)
		m.layout()
	case &m.km.Rename:
		return m.openForm(dialogs.NewRenameForm(&m.km, m.styles, name, m.connectorNames()))
	case &m.km.Rekey:
		if sink {
			m.setStatus(statusInfo, name+" is a sink: its offsets are its consumer group's, keyed by topic-partition; a rekey rewrites source partitions")
			return nil
		}
		// The fields are a hint: read off the UI goroutine (a connector
		// can have a million partitions), the form fills them in.
		return tea.Batch(m.openForm(dialogs.NewRekeyForm(&m.km, m.styles, name, nil)), m.partitionFields(name))
	case &m.km.Move:
		var others []string
		for _, c := range m.opts.Contexts {
			if c != m.opts.Context {
				others = append(others, c)
			}
		}
		if len(others) == 0 {
			m.setStatus(statusInfo, "a move goes to another Connect cluster a context names: add one to "+m.contextFileName()+" (koff help move)")
			return nil
		}
		return m.openForm(dialogs.NewMoveForm(&m.km, m.styles, name, others))
	case &m.km.Create:
		c, ok := m.opts.Source.REST().Connectors[name]
		if !ok || len(c.Config) == 0 {
			m.setStatus(statusInfo, name+" is not in Connect: no config to create a connector like it from (koff create -f CONFIG.json takes one)")
			return nil
		}
		return m.openForm(dialogs.NewCreateForm(&m.km, m.styles, name, sink, c.Config, m.connectorNames()))
	case &m.km.Undo:
		return m.undoJob(name)
	}
	return nil
}

// handleStateKey drives the stop or resume confirmation.
func (m *Model) handleStateKey(msg tea.KeyPressMsg) tea.Cmd {
	d := m.state
	switch {
	case key.Matches(msg, m.km.ForceQuit):
		return tea.Quit
	case key.Matches(msg, m.km.Cancel):
		m.state = nil
		m.layout()
		m.setStatus(statusInfo, "cancelled: "+d.Name+" was not "+map[bool]string{true: "stopped", false: "resumed"}[d.Stop])
	case key.Matches(msg, m.km.Confirm):
		m.state = nil
		m.layout()
		if d.Stop {
			return m.stopJob(d.Name)
		}
		return m.resumeJob(d.Name)
	}
	return nil
}

func (m *Model) openForm(f dialogs.FormDialog) tea.Cmd {
	m.form, m.commitGen = f, nil
	m.layout()
	return f.FocusCmd()
}

// connectorNames are the connectors koff knows, for the copy prompt: those
// Connect lists and those with offsets.
func (m *Model) connectorNames() map[string]bool {
	names := map[string]bool{}
	for _, r := range m.opts.Source.Connectors() {
		names[r.ID.Name] = r.InREST
	}
	return names
}

// handleFormKey drives the open form: esc cancels, and what it submits is
// planned.
func (m *Model) handleFormKey(msg tea.KeyPressMsg) tea.Cmd {
	f := m.form
	switch {
	case key.Matches(msg, m.km.ForceQuit):
		return tea.Quit
	case f.State().Planning && key.Matches(msg, m.km.FormCancel):
		// Connect may hang: Esc stops the plan's requests and the form.
		m.cancelPlan()
		m.form = nil
		m.layout()
		m.setStatus(statusInfo, "cancelled: the plan's requests were stopped; nothing was changed")
		return nil
	case f.State().Planning && key.Matches(msg, m.km.Quit):
		m.cancelPlan()
		return tea.Quit
	case f.State().Planning:
		return nil // the plan is for what was submitted: no edits meanwhile
	case key.Matches(msg, m.km.FormCancel):
		m.form = nil
		m.layout()
		m.setStatus(statusInfo, "cancelled: nothing was changed")
		return nil
	}
	cmd, sub := f.Key(msg)
	if sw, ok := f.(interface{ NextForm() dialogs.FormDialog }); ok {
		if next := sw.NextForm(); next != nil {
			return m.openForm(next) // a stray copy's dialog, on to the partition's edit
		}
	}
	if sub == nil {
		return cmd
	}
	st := f.State()
	st.Planning, st.PlanErr = true, ""
	return m.planWith(sub)
}

// handleConfirmKey drives the confirmation dialog.
func (m *Model) handleConfirmKey(msg tea.KeyPressMsg) tea.Cmd {
	d := m.confirm
	switch {
	case key.Matches(msg, m.km.ForceQuit):
		return tea.Quit
	case d.Running:
		return nil // keys wait until the job is done
	case key.Matches(msg, m.km.Cancel):
		m.closeConfirm()
		m.setStatus(statusInfo, "cancelled: nothing was written")
		return nil
	case key.Matches(msg, m.km.Confirm, m.km.StopApplyResume) && m.commitReloaded() != "":
		m.dropCommitEdit()
		return nil
	case key.Matches(msg, m.km.Confirm):
		if !d.CanApply() {
			return nil // the dialog says what is missing
		}
		d.Start(false)
		return m.applyJob(d.Plan)
	case key.Matches(msg, m.km.StopApplyResume):
		if !d.CanFlow() {
			return nil
		}
		d.Start(true)
		return m.stopJob(d.Plan.Connector)
	}
	return d.Update(msg)
}

// unknownPartitionWords refuse, in the form's status line, a partition
// the connector never had, naming the closest stored ones; the same
// submission again adds it (the CLI's --create).
func unknownPartitionWords(u *planner.UnknownPartitionError, submit string) string {
	parts := make([]string, len(u.Unknown))
	for i, p := range u.Unknown {
		parts[i] = kit.Clean(p.Partition) + kit.Clean(planner.PartitionDidYouMean(p.Closest))
	}
	return fmt.Sprintf("%s has no offset for %s; %s again adds it as a new source partition",
		kit.Clean(u.Connector), strings.Join(parts, ", "), submit)
}

// partitionFields are the field names of a source connector's partitions,
// for the rekey form's hint.
func (m *Model) partitionFields(name string) tea.Cmd {
	src := m.opts.Source
	return func() tea.Msg {
		seen := map[string]bool{}
		var out []string
		for _, r := range src.Connectors() {
			if r.ID.Name != name {
				continue
			}
			for _, p := range src.Partitions(r.ID) {
				k, err := model.ParseKey([]byte(p.ID.Key))
				if err != nil {
					continue
				}
				for _, f := range k.Partition {
					if !seen[f.Name] {
						seen[f.Name] = true
						out = append(out, f.Name)
					}
				}
			}
		}
		sort.Strings(out)
		return rekeyFieldsMsg{connector: name, fields: out}
	}
}

// rekeyFieldsMsg is partitionFields' answer: the field names of a
// connector's source partitions, for the K form's hint.
type rekeyFieldsMsg struct {
	connector string
	fields    []string
}

// contextFileName names the contexts file, for a hint.
func (m *Model) contextFileName() string {
	if m.opts.ContextFile != "" {
		return m.opts.ContextFile
	}
	return "$XDG_CONFIG_HOME/koff/config.yaml"
}
