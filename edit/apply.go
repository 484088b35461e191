package edit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"koff/edit/plan"
	"koff/model"
	"koff/model/store"
)

// Result is what became of an applied plan.
type Result struct {
	Plan *plan.Plan
	// Verified: every write was read back, its record was the first of its
	// key after the plan, and it is still the one in force.
	Verified bool
	// Message is Connect's answer for REST edits.
	Message string
	// Written, NotWritten and Unknown are the topic-partitions by outcome
	// (direct writes: one produce request each, in a fixed order). Unknown
	// ones may have been written: their request was sent and its answer
	// lost, and no read has shown the records yet (outcome.go).
	Written, NotWritten, Unknown []model.TopicPartition
	// Lost are partitions a concurrent edit won: its record landed first,
	// and this edit put that value back over its own.
	Lost []Contest
	// Overwritten are partitions this edit wrote that another writer's
	// record replaced afterwards.
	Overwritten []Contest
	// Interrupted: a signal stopped the edit between produce requests.
	Interrupted bool
	// Unwatched: the edit was read back, but a signal (or a cancelled
	// context) ended the watch for a task's commit over it this long after
	// it began (Plan.Watch): whether the value stays is unknown.
	Unwatched time.Duration
	// EditID is the edit's id in the audit log ("" when none was logged).
	EditID string
}

// UndoCommand is the command that undoes this edit and no other, "" when
// it was not logged.
func (r Result) UndoCommand() string {
	if r.EditID == "" || r.Plan == nil {
		return ""
	}
	return plan.UndoCommand(r.Plan.Connector, r.EditID)
}

// Contest is a partition another writer also wrote during an edit.
type Contest struct {
	Partition string // as in Change.PartitionJSON
	Value     []byte // the value in force (nil: deleted)
	By        string // who wrote it, as the audit log knows ("" unknown)
}

func (c Contest) String() string {
	v := "deleted"
	if c.Value != nil {
		v = string(c.Value)
	}
	by := "another writer"
	if c.By != "" {
		by = c.By
	}
	return fmt.Sprintf("%s holds %s, written by %s", c.Partition, v, by)
}

// Summary is one line for the CLI.
func (r Result) Summary() string { return r.summary(false) }

// Brief is Summary for a status bar: a read-back edit koff cannot verify
// for the worker leaves out why (the confirmation said it: "no
// --connect-url, no config topic") so the line reads whole at 80 columns.
func (r Result) Brief() string { return r.summary(true) }

// ReadBackOnly: the edit was read back, but koff cannot tell the worker
// reads that topic (Plan.Unsure). Not a success to mark with a check.
func (r Result) ReadBackOnly() bool { return r.Verified && r.Plan.Unsure != "" }

func (r Result) summary(short bool) string {
	n := len(r.Plan.Changes)
	what := fmt.Sprintf("%d partition", n)
	if n != 1 {
		what += "s"
	}
	verb := map[plan.Kind]string{plan.KindReset: "reset", plan.KindResetAll: "reset", plan.KindImport: "imported", plan.KindRewind: "rewound", plan.KindUndo: "undid the last edit:", plan.KindCopy: "copied", plan.KindDeleteStray: "deleted a stray copy:"}[r.Plan.Kind]
	if verb == "" {
		verb = "set"
	}
	if r.Plan.Kind == plan.KindUndo && r.Plan.Request.UndoesWhat != "" {
		verb = "undid the " + r.Plan.Request.UndoesWhat + ":"
	}
	// did is what the edit did: "imported 3 partitions of NAME", and for a
	// rewind "rewind of NAME to T, 3 partitions", as its audit line names it.
	did := fmt.Sprintf("%s %s of %s", verb, what, r.Plan.Connector)
	if r.Plan.Request.Rewind != nil {
		did = fmt.Sprintf("%s, %s", r.Plan.What(), what)
	}
	via := "offsets topic"
	switch r.Plan.Path {
	case plan.PathREST:
		via = "Connect REST"
	case plan.PathGroup:
		via = "group " + r.Plan.Group
	}
	switch {
	case len(r.Lost) > 0:
		return fmt.Sprintf("NOT applied: lost a race with a concurrent edit of %s: %s first; koff put that value back over its own write%s", r.Plan.Connector, r.Lost[0], more(len(r.Lost)))
	case len(r.Overwritten) > 0:
		return fmt.Sprintf("written, then overwritten: %s via %s, but %s%s", did, via, r.Overwritten[0], more(len(r.Overwritten)))
	case r.Unwatched > 0:
		return fmt.Sprintf("written and read back, NOT verified: %s via %s; the watch for a task's commit over it was stopped after %s of %s, so whether it stays is unknown", did, via, plan.ShortDuration(r.Unwatched), plan.ShortDuration(r.Plan.Watch))
	case r.ReadBackOnly():
		// Read back, but koff cannot tell the worker reads that topic.
		if short {
			return fmt.Sprintf("%s: read back, NOT verified for the worker", did)
		}
		return fmt.Sprintf("written and read back, NOT verified for the worker: %s via %s; %s", did, via, r.Plan.Unsure)
	case r.Verified:
		return fmt.Sprintf("verified: %s via %s", did, via)
	}
	return fmt.Sprintf("written but NOT verified: %s via %s; the tailer has not read it back", did, via)
}

func more(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(" (and %d more partitions)", n-1)
}

// WriteError is a write that stopped part way: what reached the log, what
// may have (its answer was lost), and what did not.
type WriteError struct {
	Written, Unknown, NotWritten []model.TopicPartition
	// Group names the consumer group of a sink commit whose outcome is
	// unknown (its partitions are in Unknown).
	Group string
	Err   error
	// Connector and EditID name the edit, for the undo command.
	Connector, EditID string
}

func (e *WriteError) Error() string {
	if e.Group != "" {
		return fmt.Sprintf("may have been written: the commit to group %s (its answer was lost and the group does not show it yet: %v): %s (%s puts back the offsets it held before)", e.Group, e.Err, tpList(e.Unknown), e.undoCommand())
	}
	if len(e.Unknown) > 0 {
		// The outcome first: a status bar may cut the rest.
		s := fmt.Sprintf("may have been written: %s (its answer was lost and no read shows it yet: %v)", tpList(e.Unknown), e.Err)
		if len(e.Written) > 0 {
			s += "; written: " + tpList(e.Written)
		}
		if len(e.NotWritten) > 0 {
			s += "; not written: " + tpList(e.NotWritten)
		}
		return s + e.undoHint(len(e.Written)+len(e.Unknown))
	}
	if len(e.Written) == 0 && errors.Is(e.Err, ErrInterrupted) {
		return "interrupted before writing: nothing was written"
	}
	return fmt.Sprintf("%v; written: %s; not written: %s%s", e.Err, tpList(e.Written), tpList(e.NotWritten), e.undoHint(len(e.Written)))
}

func (e *WriteError) Unwrap() error { return e.Err }

// ErrInterrupted: a signal asked koff to stop while it was writing.
var ErrInterrupted = errors.New("interrupted by a signal: stopped after the produce request in flight")

func (e *WriteError) undoHint(n int) string {
	if n == 0 {
		return ""
	}
	return " (" + e.undoCommand() + " puts back the values before)"
}

// undoCommand is the undo of this edit, pinned by its id once Apply has
// named it.
func (e *WriteError) undoCommand() string {
	if e.EditID == "" {
		return "koff undo"
	}
	return plan.UndoCommand(e.Connector, e.EditID)
}

func tpList(tps []model.TopicPartition) string {
	if len(tps) == 0 {
		return "none"
	}
	s := make([]string, len(tps))
	for i, tp := range tps {
		s[i] = tp.String()
	}
	if len(s) > 8 {
		return strings.Join(s[:8], ", ") + fmt.Sprintf(" and %d more", len(s)-8)
	}
	return strings.Join(s, ", ")
}

// Apply checks the preconditions again, writes the plan, waits until the
// tailer has read every write back, and audits it: a write-ahead line
// before the first write, a line per topic-partition written, and an
// outcome. A refused or failed attempt is audited too.
func (e *Editor) Apply(ctx context.Context, p *plan.Plan) (Result, error) {
	res := Result{Plan: p}
	run := e.newRun(ctx, p)
	if err := e.Check(ctx, p); err != nil {
		run.refused(err)
		return res, err
	}
	var err error
	switch {
	case p.Group != "":
		if err = run.begin(nil); err != nil {
			return res, err
		}
		if p.Path == plan.PathREST {
			res.Message, err = e.applySinkREST(ctx, p)
		} else {
			err = e.applyGroup(ctx, p)
		}
		if err != nil && !provablyNotApplied(err) {
			// The answer was lost: the commit holds once the group shows
			// its offsets; until then it may have been written.
			if e.groupShowsWithin(context.WithoutCancel(ctx), p) {
				err = nil
			} else {
				for _, c := range p.Sink {
					res.Unknown = append(res.Unknown, c.TopicPartition)
				}
				run.unknown = []string{"group " + p.Group}
				err = &WriteError{Unknown: res.Unknown, Group: p.Group, Err: err}
			}
		}
		if err == nil {
			run.written = []string{"group " + p.Group}
			res.Verified, res.Overwritten = e.verifySink(ctx, p)
		}
	default:
		err = e.applySource(ctx, p, run, &res)
	}
	run.finish(&res, err)
	if run.begun && e.Audit != nil {
		res.EditID = run.id
		// Its undo hint names this edit: pasted later, it undoes this one.
		var we *WriteError
		if errors.As(err, &we) {
			we.Connector, we.EditID = p.Connector, run.id
		}
	}
	return res, err
}

// writeRef is one Write of a plan: p.Changes[ch].Writes[w].
type writeRef struct{ ch, w int }

// batch is every write of one topic-partition: one produce request.
type batch struct {
	tp   model.TopicPartition
	refs []writeRef
}

func writeOf(p *plan.Plan, r writeRef) plan.Write { return p.Changes[r.ch].Writes[r.w] }

// batches groups a plan's writes by topic-partition, in the fixed order
// the writes go in (topic, then partition number).
func batches(p *plan.Plan) []batch {
	idx := map[model.TopicPartition]int{}
	var out []batch
	for ci, ch := range p.Changes {
		for wi, w := range ch.Writes {
			i, ok := idx[w.TopicPartition]
			if !ok {
				i = len(out)
				idx[w.TopicPartition] = i
				out = append(out, batch{tp: w.TopicPartition})
			}
			out[i].refs = append(out[i].refs, writeRef{ci, wi})
		}
	}
	sortBatches(out)
	return out
}

func sortBatches(bs []batch) {
	for i := 1; i < len(bs); i++ {
		for j := i; j > 0 && plan.InWriteOrder(bs[j].tp, bs[j-1].tp); j-- {
			bs[j], bs[j-1] = bs[j-1], bs[j]
		}
	}
}

// applySource writes a source edit, through REST or straight to the
// offsets topic, watching for other writers of the same keys (race.go).
func (e *Editor) applySource(ctx context.Context, p *plan.Plan, run *editRun, res *Result) error {
	bs := batches(p)
	w := e.newWatch(p, bs)
	run.watch = w
	// Before the first write: no other writer's record for any key may
	// have landed since the record the plan read.
	if err := w.since(); err != nil {
		return err
	}
	if err := w.precheck(ctx); err != nil {
		return err
	}
	if err := run.begin(w.positionsByName()); err != nil {
		return err
	}
	if p.Path == plan.PathREST {
		msg, err := e.applyREST(ctx, p)
		res.Message = msg
		switch {
		case err != nil && provablyNotApplied(err):
			for _, b := range bs {
				res.NotWritten = append(res.NotWritten, b.tp)
			}
			return err
		case err != nil:
			// No answer, or a 5xx: the worker may apply the PATCH or
			// DELETE now or later. Read the topic for its records until
			// they show or the verify timeout passes.
			var unknown []model.TopicPartition
			if w.canRead() {
				res.Written, unknown = w.landedWithin(context.WithoutCancel(ctx), bs)
				run.markWritten(res.Written)
			} else {
				for _, b := range bs {
					unknown = append(unknown, b.tp)
				}
			}
			if len(unknown) > 0 {
				res.Unknown = unknown
				return &WriteError{Written: res.Written, Unknown: unknown, Err: err}
			}
			// Applied after all: verified below as any written edit.
		default:
			for _, b := range bs {
				res.Written = append(res.Written, b.tp)
			}
			run.markWritten(res.Written)
		}
	} else if err := e.writeBatches(ctx, p, bs, w, run, res); err != nil {
		return err
	}
	e.settle(ctx, p, w, res)
	e.keepWatching(ctx, p, w, res)
	return nil
}

// writeBatches produces one request per topic-partition, in order. Each
// is re-checked for other writers just before it goes, and recorded in
// the audit log as soon as Kafka acknowledged it. A signal stops it
// between requests, never inside one.
func (e *Editor) writeBatches(ctx context.Context, p *plan.Plan, bs []batch, w *watch, run *editRun, res *Result) error {
	now := e.now()
	for i, b := range bs {
		rest := func() []model.TopicPartition {
			var out []model.TopicPartition
			for _, b := range bs[i:] {
				out = append(out, b.tp)
			}
			return out
		}
		if e.interrupted() {
			res.Interrupted = true
			res.NotWritten = rest()
			return &WriteError{Written: res.Written, NotWritten: res.NotWritten, Err: ErrInterrupted}
		}
		if err := w.recheck(ctx, b); err != nil {
			res.NotWritten = rest()
			if len(res.Written) == 0 {
				return err
			}
			return &WriteError{Written: res.Written, NotWritten: res.NotWritten, Err: err}
		}
		recs := make([]store.Record, len(b.refs))
		for j, r := range b.refs {
			wr := writeOf(p, r)
			recs[j] = store.Record{Topic: b.tp.Topic, Partition: b.tp.Partition, Key: wr.Key, Value: wr.Value, Time: now}
		}
		off, err := e.produce(ctx, b.tp, recs)
		if err != nil {
			if provablyNotApplied(err) {
				res.NotWritten = rest()
				return &WriteError{Written: res.Written, NotWritten: res.NotWritten, Err: err}
			}
			// The answer is lost: the batch may be in the log or land
			// later (outcome.go). Read until it shows or the verify
			// timeout passes; the requests after it were never sent.
			unknown := []model.TopicPartition{b.tp}
			if w.canRead() {
				var got []model.TopicPartition
				got, unknown = w.landedWithin(context.WithoutCancel(ctx), bs[i:i+1])
				if len(got) == 1 {
					// Written: only its answer was lost.
					res.Written = append(res.Written, b.tp)
					run.markWritten(got)
					continue
				}
			}
			res.Unknown = unknown
			res.NotWritten = rest()[1:]
			return &WriteError{Written: res.Written, Unknown: res.Unknown, NotWritten: res.NotWritten, Err: err}
		}
		w.offsets[b.tp] = off
		res.Written = append(res.Written, b.tp)
		run.markWritten([]model.TopicPartition{b.tp})
	}
	return nil
}

// produce sends one topic-partition's records in one request.
func (e *Editor) produce(ctx context.Context, tp model.TopicPartition, recs []store.Record) (int64, error) {
	if bw, ok := e.Kafka.(BatchWriter); ok {
		return bw.ProduceBatch(ctx, tp, recs)
	}
	return -1, e.Kafka.WriteRecords(ctx, recs)
}

func (e *Editor) interrupted() bool {
	if e.Interrupt == nil {
		return false
	}
	select {
	case <-e.Interrupt:
		return true
	default:
		return false
	}
}

func (e *Editor) applyREST(ctx context.Context, p *plan.Plan) (string, error) {
	if p.Kind == plan.KindResetAll {
		return e.REST.ResetOffsets(ctx, p.Connector)
	}
	var b bytes.Buffer
	b.WriteString(`{"offsets":[`)
	for i, ch := range p.Changes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"partition":`)
		b.WriteString(ch.PartitionJSON)
		b.WriteString(`,"offset":`)
		if ch.After == nil {
			b.WriteString("null")
		} else {
			b.Write(ch.After)
		}
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	return e.REST.AlterOffsets(ctx, p.Connector, b.Bytes())
}

// applySinkREST sends Connect's sink offset shape; deleting every
// committed offset is DELETE, as Connect deletes the group.
func (e *Editor) applySinkREST(ctx context.Context, p *plan.Plan) (string, error) {
	if strings.HasPrefix(p.PathReason, "DELETE") {
		return e.REST.ResetOffsets(ctx, p.Connector)
	}
	return e.applyREST(ctx, p)
}

// applyGroup commits (or deletes) the group's offsets directly.
func (e *Editor) applyGroup(ctx context.Context, p *plan.Plan) error {
	commit := map[model.TopicPartition]int64{}
	var del []model.TopicPartition
	for _, c := range p.Sink {
		if c.After < 0 {
			del = append(del, c.TopicPartition)
		} else {
			commit[c.TopicPartition] = c.After
		}
	}
	if len(commit) == 0 && len(del) > 0 && p.Kind == plan.KindResetAll {
		return e.Kafka.DeleteGroup(ctx, p.Group)
	}
	if len(commit) > 0 {
		if err := e.Kafka.CommitGroupOffsets(ctx, p.Group, commit); err != nil {
			return err
		}
	}
	if len(del) > 0 {
		return e.Kafka.DeleteGroupOffsets(ctx, p.Group, del)
	}
	return nil
}

// verifySink re-reads the group until every committed offset is the new
// one. The group coordinator holds one committed offset per partition, so
// a different one seen twice, a poll apart, after koff's commit was
// acknowledged is another writer's commit that replaced it: said as such.
func (e *Editor) verifySink(ctx context.Context, p *plan.Plan) (bool, []Contest) {
	deadline := time.Now().Add(e.verifyTimeout())
	var other map[model.TopicPartition]int64
	for {
		if poll, err := e.groupPoll(ctx, p.Group); err == nil {
			now := map[model.TopicPartition]int64{}
			for _, gp := range poll.Partitions {
				now[gp.TopicPartition] = gp.Committed
			}
			diff := map[model.TopicPartition]int64{}
			for _, c := range p.Sink {
				cur, has := now[c.TopicPartition]
				if !has {
					cur = -1
				}
				if cur != c.After {
					diff[c.TopicPartition] = cur
				}
			}
			if len(diff) == 0 {
				return true, nil
			}
			if other != nil && sameCommits(other, diff) {
				var out []Contest
				for _, c := range p.Sink {
					if cur, ok := diff[c.TopicPartition]; ok {
						ct := Contest{Partition: plan.SinkPartitionJSON(c.TopicPartition)}
						if cur >= 0 {
							ct.Value = plan.SinkOffsetJSON(cur)
						}
						out = append(out, ct)
					}
				}
				return false, out
			}
			other = diff
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false, nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// groupShowsWithin polls the group until it holds every offset of the
// plan, for up to the verify timeout.
func (e *Editor) groupShowsWithin(ctx context.Context, p *plan.Plan) bool {
	deadline := time.Now().Add(e.verifyTimeout())
	for {
		if poll, err := e.groupPoll(ctx, p.Group); err == nil {
			now := map[model.TopicPartition]int64{}
			for _, gp := range poll.Partitions {
				now[gp.TopicPartition] = gp.Committed
			}
			holds := true
			for _, c := range p.Sink {
				cur, has := now[c.TopicPartition]
				if !has {
					cur = -1
				}
				holds = holds && cur == c.After
			}
			if holds {
				return true
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func sameCommits(a, b map[model.TopicPartition]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for tp, v := range a {
		if w, ok := b[tp]; !ok || w != v {
			return false
		}
	}
	return true
}

// current is the value stored now under a write's key (nil: none or deleted).
func (e *Editor) current(w plan.Write) []byte {
	d, ok := e.Store.Partition(model.PartitionID{TopicPartition: w.TopicPartition, Key: string(w.Key)})
	if !ok || d.Deleted {
		return nil
	}
	return d.Value
}

func (e *Editor) writesVisible(p *plan.Plan) bool {
	for _, ch := range p.Changes {
		for _, w := range ch.Writes {
			d, ok := e.Store.Partition(model.PartitionID{TopicPartition: w.TopicPartition, Key: string(w.Key)})
			if !ok {
				return false
			}
			if w.Value == nil {
				if !d.Deleted {
					return false
				}
				continue
			}
			if d.Deleted || !plan.SameValue(d.Value, w.Value, p.Path) {
				return false
			}
		}
	}
	return true
}

// StopConnector stops a connector through REST and waits until its tasks
// are gone, as PATCH and DELETE require. Stop and resume are audited like
// edits, naming the Editor's User.
func (e *Editor) StopConnector(ctx context.Context, name string) error {
	if err := e.auditReady(plan.KindStop); err != nil {
		return err
	}
	cluster := e.stateCluster(ctx)
	before := e.stateBefore(ctx, name)
	err := e.stopConnector(ctx, name)
	e.auditState(plan.KindStop, name, before, cluster, err)
	return err
}

func (e *Editor) stopConnector(ctx context.Context, name string) error {
	if e.ReadOnly {
		return e.readOnly()
	}
	if e.REST == nil {
		return errNoREST
	}
	if err := e.REST.Stop(ctx, name); err != nil {
		return e.notInConnect(ctx, name, err)
	}
	deadline := time.Now().Add(e.stopTimeout())
	for {
		st, err := e.REST.Status(ctx, name)
		if err != nil {
			return err
		}
		if st.Stopped() {
			return nil
		}
		// Connect answered the stop, so the target state is STOPPED: a
		// status of UNASSIGNED with no tasks is a stopped connector whose
		// worker left (the config topic, when read, must agree).
		if st.Connector.State == "UNASSIGNED" && len(st.Tasks) == 0 {
			if c, _, ok := e.configOf(name); !ok || c.TargetState == model.TargetStopped {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("connector %s did not stop within %s (state %s, %d tasks)", name, e.stopTimeout(), st.Connector.State, len(st.Tasks))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// ResumeConnector resumes a stopped or paused connector through REST.
func (e *Editor) ResumeConnector(ctx context.Context, name string) error {
	if err := e.auditReady(plan.KindResume); err != nil {
		return err
	}
	cluster := e.stateCluster(ctx)
	before := e.stateBefore(ctx, name)
	err := e.resumeConnector(ctx, name)
	e.auditState(plan.KindResume, name, before, cluster, err)
	return err
}

func (e *Editor) resumeConnector(ctx context.Context, name string) error {
	if e.ReadOnly {
		return e.readOnly()
	}
	if e.REST == nil {
		return errNoREST
	}
	return e.notInConnect(ctx, name, e.REST.Resume(ctx, name))
}

// stateBefore is the connector's state as REST reports it before a stop
// or resume, for the audit log ("" when unknown).
func (e *Editor) stateBefore(ctx context.Context, name string) string {
	if e.REST == nil || e.ReadOnly {
		return ""
	}
	st, err := e.REST.Status(ctx, name)
	if err != nil {
		return ""
	}
	return string(st.Connector.State)
}

var errNoREST = errors.New("stopping and resuming connectors needs Connect's REST API: pass --connect-url")
