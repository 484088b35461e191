package undo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/planner"
	"koff/model"
)

// UndoQuery says which edit undo puts back.
type Query struct {
	// Connector limits a bare undo to one connector ("" any).
	Connector string
	// EditID names the edit (its id, or a prefix only it has); "" is the
	// last edit of this cluster that wrote anything.
	EditID string
}

// Undo is the edit an undo would put back, and what stands in its way.
// FindUndo fills it; Refusal says whether the CLI may go on.
type Undo struct {
	Request plan.Request
	// Edit is the edit's first line, with its Result and Written.
	Edit audit.Entry
	// Cluster is the id of the cluster koff is connected to.
	Cluster string
	// Skipped are newer edits (of the connector, on this cluster) that
	// wrote nothing: refused, failed, or stopped before their first
	// write. A bare undo goes past them to Edit only when told to.
	Skipped []audit.Entry
	// Newer are the partitions that no longer hold what Edit wrote: a
	// task flushed since, or another tool or edit wrote.
	Newer []NewerValue
	// UndoneBy is a later undo that already put Edit back.
	UndoneBy *audit.Entry
	// Operation, when Edit is a multi-step operation (create, rename),
	// is what brings back its start, step by step (operation.go); then
	// Request is empty.
	Operation *plan.Operation
	// Notes are facts worth printing: an edit of the same name on another
	// cluster, an edit that names no cluster.
	Notes []string
	// Unreadable are the audit log's lines koff skipped: an edit there
	// is one undo cannot see.
	Unreadable []audit.UnreadableLine
}

// AuditReadError is an undo's refusal (nothing to undo, no such edit…)
// read from an audit log with lines koff could not read: the edit meant
// may be in one of them.
type AuditReadError struct {
	Err        error
	Unreadable []audit.UnreadableLine
}

func (e *AuditReadError) Error() string {
	return fmt.Sprintf("%v (and %s)", e.Err, audit.UnreadableText(e.Unreadable))
}

func (e *AuditReadError) Unwrap() error { return e.Err }

// NewerValue is one partition whose value is not what the edit wrote.
type NewerValue struct {
	// Partition is the source partition (or sink topic-partition) as JSON.
	Partition string
	// Where is the topic-partition or the group holding it.
	Where string
	// Wrote is what the edit wrote, Now the value there now (nil: none).
	Wrote, Now []byte
	// By says who wrote Now and when, as far as koff knows.
	By string
}

func (n NewerValue) String() string {
	return fmt.Sprintf("%s in %s now holds %s, not %s as the edit wrote (%s)",
		n.Partition, n.Where, shownValue(n.Now), shownValue(n.Wrote), n.By)
}

func shownValue(b []byte) string {
	if b == nil {
		return "nothing (deleted)"
	}
	return string(b)
}

// NewerValueError refuses an undo that would overwrite values written
// after the edit.
type NewerValueError struct{ Undo *Undo }

func (e *NewerValueError) Error() string {
	u := e.Undo
	var parts []string
	for i, n := range u.Newer {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(u.Newer)-3))
			break
		}
		parts = append(parts, n.String())
	}
	return fmt.Sprintf("not undone: the %s is no longer in force: %s; undo would overwrite that: pass --force to put back its before-values anyway",
		audit.EditName(u.Edit), strings.Join(parts, "; "))
}

// OlderEditError refuses a bare undo that would go past newer edits that
// wrote nothing to an older one: the operator most likely meant the newer.
type OlderEditError struct{ Undo *Undo }

func (e *OlderEditError) Error() string {
	u := e.Undo
	last := u.Skipped[0]
	why := last.Result
	if last.Error != "" {
		why += ": " + last.Error
	}
	return fmt.Sprintf("not undone: the last edit, the %s, wrote nothing (%s); undo would put back the older %s instead: pass --edit %s to undo that one",
		audit.EditName(last), why, audit.EditName(u.Edit), audit.Edit{Start: u.Edit}.ID())
}

// UndoneError refuses to undo an edit a later undo already put back.
type UndoneError struct{ Undo *Undo }

func (e *UndoneError) Error() string {
	by := e.Undo.UndoneBy
	return fmt.Sprintf("not undone: the %s was undone already by the undo by %s at %s (edit %s): %s puts its values back; pass --force to undo it again",
		audit.EditName(e.Undo.Edit), audit.OrUnknownUser(by.User), model.TimeText(by.Time), by.ID, plan.UndoCommand(by.Connector, by.ID))
}

// Refusal is why a CLI undo must not go on: a later undo already put the
// edit back, newer values it would overwrite (unless force), or newer
// edits that wrote nothing between (unless older: the operator named the
// edit or confirmed going past them). nil: go on.
func (u *Undo) Refusal(force, older bool) error {
	switch {
	case u.UndoneBy != nil && !force:
		return &UndoneError{u}
	case len(u.Newer) > 0 && !force:
		return &NewerValueError{u}
	case len(u.Skipped) > 0 && !older:
		return &OlderEditError{u}
	}
	return nil
}

// isOffsetEdit: the edit changed offsets (stop and resume did not).
func isOffsetEdit(en audit.Entry) bool { return en.Kind != plan.KindStop && en.Kind != plan.KindResume }

// FindUndo finds the edit to undo on the cluster koff is connected to, and
// checks it against what the offsets hold now. An edit of another cluster
// is never chosen; one whose cluster is unknown (logged by an older koff)
// only by its id.
func (e *Finder) FindUndo(ctx context.Context, q Query) (*Undo, error) {
	if e.Audit == nil {
		return nil, errors.New("no audit log: nothing to undo")
	}
	cluster, err := e.clusterID(ctx)
	if err != nil {
		return nil, err
	}
	if err := e.sameClusterAsConnect(ctx, cluster); err != nil {
		return nil, err
	}
	edits, bad, err := e.Audit.EditsRead()
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	u := &Undo{Cluster: cluster, Unreadable: bad}
	u2, err := e.findUndo(ctx, edits, q, u)
	if err != nil && len(u.Unreadable) > 0 {
		return nil, &AuditReadError{Err: err, Unreadable: u.Unreadable}
	}
	return u2, err
}

func (e *Finder) findUndo(ctx context.Context, edits []audit.Edit, q Query, u *Undo) (*Undo, error) {
	var err error
	var i int
	if q.EditID != "" {
		i, err = e.namedEdit(ctx, edits, q, u)
	} else {
		i, err = e.lastEdit(ctx, edits, q.Connector, u)
	}
	if err != nil {
		return nil, err
	}
	ed := edits[i]
	if isOperation(ed) {
		if u.Operation, err = e.operationOf(ctx, ed, edits); err != nil {
			return nil, err
		}
		u.Edit = ed.Start
		u.Edit.Result = ed.Result()
		u.UndoneBy = UndoneBy(edits[i+1:], ed.ID())
		return u, nil
	}
	if u.Request, err = audit.UndoRequestOf(ed); err != nil {
		return nil, err
	}
	u.Request.Undoes, u.Request.UndoesWhat = ed.ID(), ed.Start.What()
	u.Edit = ed.Start
	u.Edit.Result = ed.Result()
	u.Edit.Written = sortedKeys(ed.WrittenSet())
	u.Edit.Unknown = sortedKeys(ed.UnknownSet())
	u.UndoneBy = UndoneBy(edits[i+1:], ed.ID())
	if u.Newer, err = e.newerValues(ctx, ed, edits[i+1:]); err != nil {
		return nil, err
	}
	return u, nil
}

// sameCluster: an edit of a known cluster is undone only on that cluster.
func sameCluster(en audit.Entry, cluster string) bool {
	return en.Cluster != "" && en.Cluster == cluster
}

// settle reconciles an edit whose process died without an outcome, or
// says it is still writing.
func (e *Finder) settleEdit(ctx context.Context, edits []audit.Edit, i int) error {
	ed := edits[i]
	if isOperation(ed) {
		// Its step lines say what happened; an offsets step's own edit
		// is settled when it is put back.
		if ed.Outcome == nil && ed.Alive() {
			return fmt.Errorf("the %s by %s (pid %d) is still running: let it finish", ed.Start.What(), ed.Start.User, ed.Start.PID)
		}
		return nil
	}
	if ed.Outcome != nil || !audit.Undoable(ed) {
		return nil
	}
	if ed.Alive() {
		return fmt.Errorf("the %s by %s (pid %d) is still writing: let it finish", ed.Start.What(), ed.Start.User, ed.Start.PID)
	}
	ed, err := e.Reconcile(ctx, ed)
	if err != nil {
		return err
	}
	edits[i] = ed
	return nil
}

// wroteSome: the edit put something of its own in the log that stands.
func wroteSome(ed audit.Edit) bool {
	if isOperation(ed) {
		return len(ed.Done) > 0 || ed.Result() == audit.ResultInProgress || ed.Result() == audit.ResultPartial || ed.Result() == audit.ResultInterrupted
	}
	return audit.Undoable(ed) && len(audit.UndoChanges(ed)) > 0
}

// lastEdit walks back from the newest edit to the last one of this
// cluster that wrote anything, noting the newer ones that wrote nothing.
func (e *Finder) lastEdit(ctx context.Context, edits []audit.Edit, connector string, u *Undo) (int, error) {
	if u.Cluster == "" {
		return 0, errors.New("not undone: the brokers did not say which cluster this is, so koff cannot tell which edits were made here: name one with --edit ID (koff audit --all-clusters lists them)")
	}
	var elsewhere *audit.Entry
	for i := len(edits) - 1; i >= 0; i-- {
		ed := edits[i]
		s := ed.Start
		if connector != "" && !s.Concerns(connector) || !isOffsetEdit(s) || s.PartOf != "" {
			continue // a step of an operation is undone with the operation
		}
		if s.Cluster != "" && s.Cluster != u.Cluster {
			if elsewhere == nil && len(u.Skipped) == 0 {
				elsewhere = &edits[i].Start
			}
			continue
		}
		if s.Cluster == "" {
			if !audit.Undoable(ed) {
				continue
			}
			return 0, fmt.Errorf("not undone: the last edit that wrote anything, the %s, does not name its cluster (an older koff logged it): if it was made on this cluster (%s), %s puts it back",
				audit.EditName(s), u.Cluster, plan.UndoCommand(s.Connector, ed.ID()))
		}
		if err := e.settleEdit(ctx, edits, i); err != nil {
			return 0, err
		}
		ed = edits[i]
		if !wroteSome(ed) {
			en := ed.Start
			en.Result = ed.Result()
			if ed.Outcome != nil && en.Error == "" {
				en.Error = ed.Outcome.Error
			}
			u.Skipped = append(u.Skipped, en)
			continue
		}
		// An earlier attempt at this same undo that wrote nothing (refused
		// while the connector ran) is no other edit to ask about.
		kept := u.Skipped[:0]
		for _, sk := range u.Skipped {
			if sk.Kind != plan.KindUndo || sk.Undoes != ed.ID() {
				kept = append(kept, sk)
			}
		}
		u.Skipped = kept
		if elsewhere != nil {
			u.Notes = append(u.Notes, fmt.Sprintf("the last edit of %s was on another cluster: the %s on cluster %s; connected to %s, koff undoes the last edit made here",
				elsewhere.Connector, audit.EditName(*elsewhere), elsewhere.Cluster, u.Cluster))
		}
		return i, nil
	}
	of := ""
	if connector != "" {
		of = " of " + connector
	}
	if elsewhere != nil {
		return 0, fmt.Errorf("no edit%s on this cluster to undo: the last edit of %s was on cluster %s, the %s; connected to %s",
			of, elsewhere.Connector, elsewhere.Cluster, audit.EditName(*elsewhere), u.Cluster)
	}
	// A typo: the names close to it that were edited, or that koff sees.
	var names []string
	if connector != "" {
		for _, ed := range edits {
			if isOffsetEdit(ed.Start) && !slices.Contains(names, ed.Start.Connector) {
				names = append(names, ed.Start.Connector)
			}
		}
		if len(planner.ClosestNames(connector, names)) == 0 && e.Store != nil {
			names = e.Planner.KnownNames(ctx)
		}
	}
	return 0, fmt.Errorf("no edit%s in %s to undo%s", of, e.Audit.Path, planner.DidYouMean(planner.ClosestNames(connector, names)))
}

// namedEdit finds the edit --edit names and checks it may be undone here.
func (e *Finder) namedEdit(ctx context.Context, edits []audit.Edit, q Query, u *Undo) (int, error) {
	// A part of an id is looked for first among the edits this undo could
	// put back (offset edits, of the connector named): a stop or an edit
	// of another connector sharing the part is no choice to make.
	var could []audit.Edit
	var at []int
	for j, ed := range edits {
		if isOffsetEdit(ed.Start) && (q.Connector == "" || ed.Start.Concerns(q.Connector)) {
			could, at = append(could, ed), append(at, j)
		}
	}
	i, err := audit.FindEdit(could, q.EditID)
	if err == nil && i >= 0 {
		i = at[i]
	} else if err == nil {
		i, err = audit.FindEdit(edits, q.EditID) // to say what it names instead
	}
	if err != nil {
		return 0, err
	}
	if i < 0 {
		return 0, fmt.Errorf("no edit %s in %s (koff audit lists the edits and their ids)", q.EditID, e.Audit.Path)
	}
	s := edits[i].Start
	switch {
	case q.Connector != "" && !s.Concerns(q.Connector):
		return 0, fmt.Errorf("edit %s is the %s: not an edit of %s", edits[i].ID(), audit.EditName(s), q.Connector)
	case !isOffsetEdit(s):
		return 0, fmt.Errorf("edit %s is a %s of %s: it changed no offsets, nothing to undo (koff %s undoes a %s)", edits[i].ID(), s.Kind, s.Connector, oppositeOf(s.Kind), s.Kind)
	case s.Cluster != "" && u.Cluster == "":
		return 0, fmt.Errorf("not undone: edit %s was made on cluster %s, and the brokers did not say which cluster this is", edits[i].ID(), s.Cluster)
	case s.Cluster != "" && !sameCluster(s, u.Cluster):
		return 0, fmt.Errorf("not undone: edit %s, the %s, was made on cluster %s; connected to %s", edits[i].ID(), audit.EditName(s), s.Cluster, u.Cluster)
	case s.Cluster == "":
		u.Notes = append(u.Notes, fmt.Sprintf("edit %s does not name its cluster (an older koff logged it): undone on this cluster (%s) as asked", edits[i].ID(), orUnknownCluster(u.Cluster)))
	}
	if err := e.settleEdit(ctx, edits, i); err != nil {
		return 0, err
	}
	if !wroteSome(edits[i]) {
		return 0, fmt.Errorf("edit %s, the %s, wrote nothing (%s): nothing to undo", edits[i].ID(), audit.EditName(s), edits[i].Result())
	}
	return i, nil
}

func oppositeOf(k plan.Kind) plan.Kind {
	if k == plan.KindStop {
		return plan.KindResume
	}
	return plan.KindStop
}

func orUnknownCluster(c string) string {
	if c == "" {
		return "cluster unknown"
	}
	return c
}

// UndoneBy is the later undo that put edit id back and is itself still in
// force (not undone in turn), nil when there is none. later are the edits
// after it, oldest first.
func UndoneBy(later []audit.Edit, id string) *audit.Entry {
	for i, ed := range later {
		undo := ed.Start.Kind == plan.KindUndo || ed.Start.Kind == plan.KindUndoOperation
		if undo && ed.Start.Undoes == id && wroteSome(ed) && UndoneBy(later[i+1:], ed.ID()) == nil {
			en := ed.Start
			en.ID = ed.ID()
			return &en
		}
	}
	return nil
}

// UndoRequest is the request that puts back the before-values of the last
// edit that wrote anything (verified or not, whole or partial), optionally
// of one connector. Of a partial or interrupted edit, only the partitions
// it wrote are put back; an interrupted edit is first reconciled with the
// log (see UndoRequestContext).
func (e *Finder) UndoRequest(connector string) (plan.Request, audit.Entry, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return e.UndoRequestContext(ctx, connector)
}

// sameClusterAsConnect refuses a Connect REST API whose workers keep their
// offsets in another Kafka cluster than the brokers koff reads (GET /
// names it): an undo planned from one cluster's offsets must not be sent
// to the other's workers.
func (e *Finder) sameClusterAsConnect(ctx context.Context, cluster string) error {
	if e.REST == nil || cluster == "" {
		return nil
	}
	info, err := e.REST.ServerInfo(ctx)
	if err != nil || info.KafkaClusterID == "" || info.KafkaClusterID == cluster {
		return nil // what REST cannot say, the plan's own REST calls will
	}
	return fmt.Errorf("not undone: the Connect workers at %s use Kafka cluster %s, but the brokers koff reads are cluster %s: point --connect-url and -b at the same cluster",
		e.connectURL(), info.KafkaClusterID, cluster)
}
