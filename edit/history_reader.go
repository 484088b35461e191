package edit

import (
	"context"

	"koff/edit/history"
	"koff/edit/plan"
	"koff/model"
	"koff/model/java"
)

// history hands a history read what it reads through: the ports, the
// audit log, the shared histories, and planning for a rewind.
func (e *Editor) history() *history.Reader {
	return &history.Reader{
		Store: e.Store, Kafka: e.Kafka, REST: e.REST, Audit: e.Audit, History: e.History, HistoryFrom: e.HistoryFrom,
		Shared: e.Shared, Topics: e.topics, ClusterID: e.ClusterID, Planner: e.planner(), Cmd: e.Cmd,
		VerifyTimeout: e.VerifyTimeout,
	}
}

// ReadTap reads every offsets topic into tap (edit/history).
func (e *Editor) ReadTap(ctx context.Context, tap history.Tap) error {
	return e.history().ReadTap(ctx, tap)
}

// ReadHistory reads req's history from the offsets topics, handing on
// each commit, and returns a summary per stored key (history.Reader).
func (e *Editor) ReadHistory(ctx context.Context, req history.Request, each func(*history.Commit) error) (*history.History, error) {
	return e.history().ReadHistory(ctx, req, each)
}

// RequireSource refuses a name koff has never seen and partitions the
// connector never had, as a set does, with the closest names.
func (e *Editor) RequireSource(ctx context.Context, name string, parts []java.Object) error {
	return e.history().RequireSource(ctx, name, parts)
}

// SinkCommits is what Kafka keeps of a sink's commits: its group's latest
// committed offset per partition. isSink is false for a source.
func (e *Editor) SinkCommits(ctx context.Context, name, group string) (poll model.GroupPoll, g string, isSink bool, err error) {
	return e.history().SinkCommits(ctx, name, group)
}

// StartHistory prepares a read of req's history (history.Reader).
func (e *Editor) StartHistory(ctx context.Context, req history.Request) *history.Reading {
	return e.history().StartHistory(ctx, req)
}

// FinishHistory hands on the commits of a read done.
func (e *Editor) FinishHistory(r *history.Reading, each func(*history.Commit) error) (*history.History, error) {
	return e.history().FinishHistory(r, each)
}

// JudgeHistory says, once a read is done, which copy each stored key is.
func (e *Editor) JudgeHistory(r *history.Reading) *history.History {
	return e.history().JudgeHistory(r)
}

// FinishHistoryRuns is FinishHistory in runs of commits in order.
func (e *Editor) FinishHistoryRuns(r *history.Reading, run func(i int, commits func(each func(*history.Commit) error) error) error) (*history.History, error) {
	return e.history().FinishHistoryRuns(r, run)
}

// PartitionHistory reads the history of one source partition of
// connector: its newest keep commits and a summary of each copy, shared by
// the cluster's dashboards when Shared is set.
func (e *Editor) PartitionHistory(ctx context.Context, connector string, partition java.Object, keep int) (*history.PartitionHistory, error) {
	return e.history().PartitionHistory(ctx, connector, partition, keep)
}

// MarkEdits has a rewind's read tell which commits koff's own edits wrote.
func (e *Editor) MarkEdits(ctx context.Context, rr *history.RewindRead) {
	e.history().MarkEdits(ctx, rr)
}

// PlanRewind works out a rewind without writing anything; its Plan goes
// through Check and Apply as every edit.
func (e *Editor) PlanRewind(ctx context.Context, req plan.RewindRequest) (*history.Rewind, error) {
	return e.history().PlanRewind(ctx, req)
}

// PlanRewindRead is PlanRewind from a read done.
func (e *Editor) PlanRewindRead(ctx context.Context, rr *history.RewindRead) (*history.Rewind, error) {
	return e.history().PlanRewindRead(ctx, rr)
}
