package apply

import (
	"context"
	"fmt"
	"os"

	"koff/edit/audit"
	"koff/edit/plan"
	"koff/model"
)

// editRun writes one edit's lines to the audit log: the write-ahead line,
// one per topic-partition written, and the outcome.
type editRun struct {
	e       *Applier
	p       *plan.Plan
	id      string
	cluster string
	begun   bool
	written []string
	unknown []string // topic-partitions or "group G" that may have been written
	view    *logView // what it restored after losing a race
}

func (e *Applier) newRun(ctx context.Context, p *plan.Plan) *editRun {
	// Asked per edit, not once: the dashboard runs for days, and another
	// cluster may answer at the same address by then.
	cluster, _ := e.clusterID(ctx)
	return &editRun{e: e, p: p, id: audit.NewEditID(e.now()), cluster: cluster}
}

func (r *editRun) entry(result string) audit.Entry {
	host, _ := os.Hostname()
	p := r.p
	return audit.Entry{
		ID: r.id, Time: r.e.now().UTC(), User: r.e.User, Host: host, PID: os.Getpid(),
		Connector: p.Connector, Kind: p.Kind, Path: p.Path, State: p.State, Result: result,
		Cluster: r.cluster, OffsetsTopics: r.e.topics(), ConnectURL: r.e.connectURL(), Undoes: p.Undoes, PartOf: p.PartOf,
	}
}

func (r *editRun) changes() []audit.Change { return audit.ChangesOf(r.p) }

// auditCommand is the plan's command line for its audit line, unless it
// is long: an import's command carries its whole export, which the line
// has already.
func (r *editRun) auditCommand() string {
	if len(r.p.Command) > 4096 {
		return ""
	}
	return r.p.Command
}

func (r *editRun) append(en audit.Entry) error {
	if r.e.Audit == nil {
		return nil
	}
	return r.e.Audit.Append(en)
}

// refused logs an attempt that wrote nothing, in one line.
func (r *editRun) refused(err error) {
	res := audit.ResultFailed
	if IsRefusal(err) {
		res = audit.ResultRefused
	}
	en := r.entry(res)
	en.Changes, en.Rewind, en.Command = r.changes(), r.p.Request.Rewind, r.auditCommand()
	en.Error = err.Error()
	_ = r.append(en)
}

// markWritten logs topic-partitions as soon as Kafka acknowledged them.
func (r *editRun) markWritten(tps []model.TopicPartition) {
	if len(tps) == 0 {
		return
	}
	en := r.entry(audit.ResultWritten)
	for _, tp := range tps {
		en.Written = append(en.Written, tp.String())
		r.written = append(r.written, tp.String())
	}
	if err := r.append(en); err != nil {
		fmt.Fprintf(os.Stderr, "koff: audit log: %v\n", err)
	}
}

// finish logs the outcome.
func (r *editRun) finish(res *Result, err error) {
	if !r.begun {
		if err != nil {
			r.refused(err)
		}
		return
	}
	en := r.entry("")
	en.Message = res.Message
	switch {
	case err == nil && len(res.Lost) > 0:
		en.Result = audit.ResultLost
		en.Message = joinContests(res.Lost)
	case err == nil && len(res.Overwritten) > 0:
		en.Result = audit.ResultOverwritten
		en.Message = joinContests(res.Overwritten)
	case err == nil && res.Verified:
		en.Result = audit.ResultVerified
	case err == nil && res.Unwatched > 0:
		en.Result = audit.ResultUnverified
		en.Message = fmt.Sprintf("read back, then the watch for a task's commit over it was stopped after %s of %s: whether it stays is unknown", plan.ShortDuration(res.Unwatched), plan.ShortDuration(res.Plan.Watch))
	case err == nil:
		en.Result = audit.ResultUnverified
	case len(r.unknownOf(res)) > 0:
		en.Result, en.Error = audit.ResultUnknown, err.Error()
	case res.Interrupted:
		en.Result, en.Error = audit.ResultInterrupted, err.Error()
	case len(r.written) > 0:
		en.Result, en.Error = audit.ResultPartial, err.Error()
	default:
		en.Result, en.Error = audit.ResultFailed, err.Error()
	}
	en.Written = r.written
	for _, tp := range res.NotWritten {
		en.NotWritten = append(en.NotWritten, tp.String())
	}
	en.Unknown = r.unknownOf(res)
	if r.view != nil {
		en.Restored = r.view.restored
	}
	if werr := r.append(en); werr != nil {
		// The edit happened; losing its audit line must not hide that.
		fmt.Fprintf(os.Stderr, "koff: audit log: %v\n", werr)
	}
}

// unknownOf is what may have been written, as the audit log names it.
func (r *editRun) unknownOf(res *Result) []string {
	if len(r.unknown) > 0 {
		return r.unknown
	}
	var out []string
	for _, tp := range res.Unknown {
		out = append(out, tp.String())
	}
	return out
}
