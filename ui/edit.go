package ui

import (
	"context"
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"koff/edit"
	"koff/model"
)

// Editor is the edit pipeline as the dashboard uses it; *edit.Editor
// satisfies it. Every call does I/O, so the UI makes them only inside
// tea.Cmds.
type Editor interface {
	Plan(ctx context.Context, req edit.Request) (*edit.Plan, error)
	Check(ctx context.Context, p *edit.Plan) error
	Apply(ctx context.Context, p *edit.Plan) (edit.Result, error)
	StopConnector(ctx context.Context, name string) error
	ResumeConnector(ctx context.Context, name string) error
	UndoRequest(connector string) (edit.Request, edit.AuditEntry, error)
}

var _ Editor = (*edit.Editor)(nil)

// How long each call may take. Apply includes the wait for the tailer to
// read the write back; Stop the wait for the connector's tasks to go.
const (
	planTimeout   = 30 * time.Second
	applyTimeout  = 2 * time.Minute
	stopTimeout   = 90 * time.Second
	resumeTimeout = 30 * time.Second
)

// Messages the edit commands return. id ties each to the job that started
// it; a message of an older job is dropped.
type (
	jobMsg interface{ jobID() int }

	planDoneMsg struct {
		id   int
		plan *edit.Plan
		undo *edit.AuditEntry // for an undo: the edit it undoes
		err  error
	}
	applyDoneMsg struct {
		id  int
		res edit.Result
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

func (m planDoneMsg) jobID() int   { return m.id }
func (m applyDoneMsg) jobID() int  { return m.id }
func (m stopDoneMsg) jobID() int   { return m.id }
func (m resumeDoneMsg) jobID() int { return m.id }

// startJob marks a job in flight (one at a time) and returns its command,
// with the spinner's first tick when nothing was spinning yet. run gets a
// context bounded by timeout and must not touch the model.
func (m *Model) startJob(label string, timeout time.Duration, run func(ctx context.Context, id int) tea.Msg) tea.Cmd {
	m.jobSeq++
	id := m.jobSeq
	spinning := m.busy != ""
	m.busy = label
	m.setStatus(statusBusy, label)
	cmd := func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		return run(ctx, id)
	}
	if spinning {
		return cmd
	}
	return tea.Batch(cmd, m.spinner.Tick)
}

func (m *Model) planJob(req edit.Request) tea.Cmd {
	ed := m.opts.Editor
	label := fmt.Sprintf("planning %s of %s…", req.Kind, req.Connector)
	return m.startJob(label, planTimeout, func(ctx context.Context, id int) tea.Msg {
		p, err := ed.Plan(ctx, req)
		return planDoneMsg{id: id, plan: p, err: err}
	})
}

// undoJob reads the audit log for the last edit and plans putting its
// before-values back.
func (m *Model) undoJob() tea.Cmd {
	ed := m.opts.Editor
	return m.startJob("finding the last edit in the audit log…", planTimeout, func(ctx context.Context, id int) tea.Msg {
		req, entry, err := ed.UndoRequest("")
		if err != nil {
			return planDoneMsg{id: id, err: err}
		}
		p, err := ed.Plan(ctx, req)
		return planDoneMsg{id: id, plan: p, undo: &entry, err: err}
	})
}

// applyJob applies a copy of the plan: Apply updates the plan's state as
// it re-checks, while the dialog keeps drawing the original.
func (m *Model) applyJob(p *edit.Plan) tea.Cmd {
	ed := m.opts.Editor
	cp := *p
	label := fmt.Sprintf("applying %s of %s: writing, then reading it back…", p.Kind, p.Connector)
	return m.startJob(label, applyTimeout, func(ctx context.Context, id int) tea.Msg {
		res, err := ed.Apply(ctx, &cp)
		return applyDoneMsg{id: id, res: res, err: err}
	})
}

func (m *Model) stopJob(name string) tea.Cmd {
	ed := m.opts.Editor
	return m.startJob("stopping "+name+"…", stopTimeout, func(ctx context.Context, id int) tea.Msg {
		return stopDoneMsg{id: id, name: name, err: ed.StopConnector(ctx, name)}
	})
}

func (m *Model) resumeJob(name string) tea.Cmd {
	ed := m.opts.Editor
	return m.startJob("resuming "+name+"…", resumeTimeout, func(ctx context.Context, id int) tea.Msg {
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
	}
	return nil
}

func (m *Model) handlePlanDone(msg planDoneMsg) {
	if msg.err != nil {
		if m.form != nil {
			m.form.planning = false
			m.form.planErr = msg.err.Error()
		}
		m.setStatus(statusErr, msg.err.Error())
		return
	}
	m.form = nil
	m.confirm = newConfirmDialog(&m.km, m.styles, msg.plan, msg.undo, m.opts.Now())
	m.layout()
}

func (m *Model) handleApplyDone(msg applyDoneMsg) tea.Cmd {
	d := m.confirm
	if d != nil && d.flow {
		name := d.plan.Connector
		if msg.err != nil {
			d.fail(stepApply)
			m.closeConfirm()
			m.setStatus(statusErr, fmt.Sprintf("%s — %s was left STOPPED: the edit failed, so koff did not resume it (R resumes it)", msg.err, name))
			return nil
		}
		d.done(stepApply)
		d.result = &msg.res
		return m.resumeJob(name)
	}
	m.closeConfirm()
	if msg.err != nil {
		m.setStatus(statusErr, msg.err.Error())
		return nil
	}
	m.setStatus(resultKind(msg.res), resultText(msg.res))
	return nil
}

func (m *Model) handleStopDone(msg stopDoneMsg) tea.Cmd {
	d := m.confirm
	if d != nil && d.flow {
		if msg.err != nil {
			d.fail(stepStop)
			m.closeConfirm()
			m.setStatus(statusErr, fmt.Sprintf("could not stop %s: %s — nothing was written", msg.name, msg.err))
			return nil
		}
		d.done(stepStop)
		return m.applyJob(d.plan)
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
	if d != nil && d.flow {
		res := *d.result
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

// resultText is Result.Summary, with Connect's own answer for REST edits.
func resultText(r edit.Result) string {
	s := r.Summary()
	if r.Message != "" {
		s += " · Connect: " + r.Message
	}
	return s
}

func resultKind(r edit.Result) statusKind {
	if r.Verified {
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
	case m.busy != "":
		return "busy: " + m.busy + " Wait for it to finish."
	}
	return ""
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
	var conn model.ConnectorID
	var row model.PartitionRow
	var hasRow bool
	parts, onPartitions := m.top().(*partitionsScreen)
	switch s := m.top().(type) {
	case *connectorsScreen:
		id, found := s.selected()
		if !found {
			m.setStatus(statusInfo, "no connector selected")
			return nil, true
		}
		conn = id
	case *partitionsScreen:
		conn = s.id
		row, hasRow = s.list.selected()
	default:
		return nil, false // the detail and unparseable views have no edits
	}
	if reason := m.editBlocked(b); reason != "" {
		m.setStatus(statusInfo, reason)
		return nil, true
	}
	needsPartition := b == &m.km.EditOffset || b == &m.km.ResetOffset
	if !onPartitions && (needsPartition || b == &m.km.NewPartition) {
		m.setStatus(statusInfo, fmt.Sprintf("%s works on source partitions: open a connector first (%s)", b.Help().Desc, m.km.Open.Help().Key))
		return nil, true
	}
	var partition model.Object
	if needsPartition {
		if !hasRow {
			m.setStatus(statusInfo, "no source partition selected")
			return nil, true
		}
		k, err := model.ParseKey([]byte(row.ID.Key))
		if err != nil {
			m.setStatus(statusErr, "the selected key cannot be parsed: "+err.Error())
			return nil, true
		}
		partition = k.Partition
	}
	name := conn.Name
	switch b {
	case &m.km.EditOffset:
		m.form = newOffsetForm(&m.km, m.styles, name, row, partition)
		m.layout()
		return m.form.focusCmd(), true
	case &m.km.NewPartition:
		m.form = newPartitionForm(&m.km, m.styles, name, row, hasRow, parts.knownPartitions())
		m.layout()
		return m.form.focusCmd(), true
	case &m.km.ResetOffset:
		if row.Deleted {
			m.setStatus(statusInfo, "this source partition's offset is already deleted (its latest record is a tombstone)")
			return nil, true
		}
		return m.planJob(edit.Request{Connector: name, Kind: edit.KindReset, Items: []edit.Item{{Partition: partition}}}), true
	case &m.km.ResetAll:
		return m.planJob(edit.Request{Connector: name, Kind: edit.KindResetAll}), true
	case &m.km.Stop:
		return m.stopJob(name), true
	case &m.km.Resume:
		return m.resumeJob(name), true
	case &m.km.Undo:
		return m.undoJob(), true
	}
	return nil, false
}

// handleFormKey drives the offset editor: text goes to the focused field,
// submit plans the edit when every field is valid.
func (m *Model) handleFormKey(msg tea.KeyPressMsg) tea.Cmd {
	f := m.form
	switch {
	case key.Matches(msg, m.km.ForceQuit):
		return tea.Quit
	case f.planning:
		return nil // the plan is for what was submitted: no edits meanwhile
	case key.Matches(msg, m.km.FormCancel):
		m.form = nil
		m.layout()
		m.setStatus(statusInfo, "cancelled: nothing was changed")
		return nil
	case key.Matches(msg, m.km.FormNext):
		return f.cycleFocus()
	case key.Matches(msg, m.km.FormSubmit) && f.valid():
		req, err := f.request()
		if err != nil { // valid() parsed the same text: cannot happen
			m.setStatus(statusErr, err.Error())
			return nil
		}
		f.planning, f.planErr = true, ""
		return m.planJob(req)
	case key.Matches(msg, m.km.FormSubmit) && !f.enterTypes(msg):
		return nil // ctrl+s on invalid JSON: the message under the field says why
	}
	return f.update(msg)
}

// handleConfirmKey drives the confirmation dialog.
func (m *Model) handleConfirmKey(msg tea.KeyPressMsg) tea.Cmd {
	d := m.confirm
	switch {
	case key.Matches(msg, m.km.ForceQuit):
		return tea.Quit
	case d.running:
		return nil // keys wait until the job is done
	case key.Matches(msg, m.km.Cancel):
		m.closeConfirm()
		m.setStatus(statusInfo, "cancelled: nothing was written")
		return nil
	case key.Matches(msg, m.km.Confirm):
		if !d.canApply() {
			return nil // the dialog says what is missing
		}
		d.start(false)
		return m.applyJob(d.plan)
	case key.Matches(msg, m.km.StopApplyResume):
		if !d.canFlow() {
			return nil
		}
		d.start(true)
		return m.stopJob(d.plan.Connector)
	}
	return d.update(msg)
}
