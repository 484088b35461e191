package kit

import (
	"context"
	"time"

	"koff/edit/apply"
	"koff/edit/history"
	"koff/edit/plan"
	"koff/edit/planner"
	"koff/edit/undo"
	"koff/model"
	"koff/model/java"
)

// Source is what the UI reads: *store.Store satisfies it. Every method
// returns a snapshot that the UI may keep and sort.
type Source interface {
	// Version changes whenever anything a reader can see changes.
	Version() uint64
	// TailState is the tailer's state now (Stats' Status.State), cheap to
	// read at every tick; TailMoved is closed once it is other than from.
	TailState() model.TailState
	TailMoved(from model.TailState) <-chan struct{}
	Stats() model.Stats
	Connectors() []model.ConnectorRow
	Partitions(model.ConnectorID) []model.PartitionRow
	Partition(model.PartitionID) (model.PartitionDetail, bool)
	// Histories are the recent updates of source partitions, cheaper to
	// read than their details.
	Histories([]model.PartitionID) [][]model.Update
	UnparseableRecords() []model.Unparseable
	// REST is the latest poll of Connect's REST API (zero without one).
	REST() model.RESTStatus
	// SinkPartitions are a sink consumer group's topic-partitions with
	// their committed and end offsets.
	SinkPartitions(group string) []model.SinkPartitionRow
}

// Editor is the edit pipeline as the dashboard uses it; *edit.Editor
// satisfies it. Every call does I/O, so the UI makes them only inside
// tea.Cmds.
type Editor interface {
	Plan(ctx context.Context, req plan.Request) (*plan.Plan, error)
	Check(ctx context.Context, p *plan.Plan) error
	Apply(ctx context.Context, p *plan.Plan) (apply.Result, error)
	StopConnector(ctx context.Context, name string) error
	ResumeConnector(ctx context.Context, name string) error
	// FindUndo finds the edit undo puts back (of this cluster only) and
	// what stands in its way, which the confirmation shows.
	FindUndo(ctx context.Context, q undo.Query) (*undo.Undo, error)
	// PlanSink plans an edit of a sink's committed offsets by strategy.
	PlanSink(ctx context.Context, req plan.SinkRequest) (*plan.Plan, error)
	// CopyRequest is the edit giving connector to the offsets of from.
	CopyRequest(from, to string) (plan.Request, error)
	// PlanRename plans a rename of a connector with its config and
	// offsets; ApplyOperation runs an operation's steps.
	PlanRename(ctx context.Context, old, new string) (*plan.Operation, error)
	// PlanRekey plans a rekey of a connector's source partitions (and the
	// config they come from); PlanMove a move to another Connect cluster.
	PlanRekey(ctx context.Context, req planner.RekeyRequest) (*plan.Operation, error)
	PlanMove(ctx context.Context, req planner.MoveRequestOf) (*plan.Operation, error)
	// PlanCreate plans a connector created STOPPED, its offsets written
	// and read back, then started (koff create).
	PlanCreate(ctx context.Context, req planner.CreateRequest) (*plan.Operation, error)
	ApplyOperation(ctx context.Context, op *plan.Operation) (apply.OperationResult, error)
	// Replan plans the same edit on the offsets as they are now.
	Replan(ctx context.Context, p *plan.Plan) (*plan.Plan, error)
	// ReadHistory reads a connector's commits still in the offsets topics
	// (the partition detail's history), handing each on as it is read.
	ReadHistory(ctx context.Context, req history.Request, each func(*history.Commit) error) (*history.History, error)
	// PlanRewind plans a source connector's rewind to a time, as koff set
	// NAME --to-datetime T does.
	PlanRewind(ctx context.Context, req plan.RewindRequest) (*history.Rewind, error)
}

// PartitionHistories is an Editor that shares each partition's history
// among the dashboards of a cluster (*edit.Editor): the detail reads it
// through PartitionHistory when its Editor has it, the newest keep
// commits read once and followed however many viewers look.
type PartitionHistories interface {
	PartitionHistory(ctx context.Context, connector string, partition java.Object, keep int) (*history.PartitionHistory, error)
}

// How long each call may take. Apply includes the wait for the tailer to
// read the write back; Stop the wait for the connector's tasks to go.
const (
	PlanTimeout   = 30 * time.Second
	ApplyTimeout  = 2 * time.Minute
	StopTimeout   = 90 * time.Second
	ResumeTimeout = 30 * time.Second
	// HistoryTimeout bounds reading an offsets topic from its start.
	HistoryTimeout = 2 * time.Minute
)
