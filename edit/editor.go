package edit

import (
	"context"
	"time"

	"koff/connect"
	"koff/edit/apply"
	"koff/edit/audit"
	"koff/edit/history"
	"koff/edit/plan"
	"koff/edit/planner"
	"koff/model"
	"koff/model/store"
)

// Offsets is what the pipeline reads of the live model (a *store.Store fed
// by a tailer): the current offsets for planning, the optimistic check and
// verification.
type Offsets interface {
	Partitions(model.ConnectorID) []model.PartitionRow
	Partition(model.PartitionID) (model.PartitionDetail, bool)
}

// Writer is what the pipeline does with Kafka (kafka.Config): records to
// exact topic-partitions for sources, consumer-group offsets for sinks.
type Writer interface {
	WriteRecords(ctx context.Context, recs []store.Record) error
	PartitionCount(ctx context.Context, topic string) (int, error)

	GroupPolls(ctx context.Context, named []string) ([]model.GroupPoll, error)
	LogBounds(ctx context.Context, tps []model.TopicPartition) (map[model.TopicPartition][2]int64, error)
	OffsetsAt(ctx context.Context, tps []model.TopicPartition, t time.Time) (map[model.TopicPartition]int64, error)
	CommitGroupOffsets(ctx context.Context, group string, offsets map[model.TopicPartition]int64) error
	DeleteGroupOffsets(ctx context.Context, group string, tps []model.TopicPartition) error
	DeleteGroup(ctx context.Context, group string) error
}

// REST is the part of Connect's REST API the pipeline uses (*connect.Client).
type REST interface {
	ServerInfo(ctx context.Context) (connect.ServerInfo, error)
	Status(ctx context.Context, name string) (connect.ConnectorStatus, error)
	ConnectorConfig(ctx context.Context, name string) (map[string]string, error)
	Stop(ctx context.Context, name string) error
	Resume(ctx context.Context, name string) error
	AlterOffsets(ctx context.Context, name string, body []byte) (string, error)
	ResetOffsets(ctx context.Context, name string) (string, error)
}

// Editor plans and applies offset edits.
type Editor struct {
	// Elsewhere is the Editor of another Connect cluster, named by its
	// koff context (a move's target, and its undo); the command line opens
	// it when first asked. nil: koff reaches no other.
	Elsewhere func(where string) (*Editor, error)
	Store     Offsets
	Kafka     Writer
	// Bootstrap is the -b list Kafka is reached at: a sink whose
	// consumer.override.bootstrap.servers names another is not edited
	// there (sinkCluster).
	Bootstrap []string
	// REST is nil when koff has no --connect-url: edits then go straight to
	// the offsets topic and the connector's state is unknown.
	REST REST
	// Configs is Connect's config topic as koff reads it (nil: none): the
	// connectors' target states, own offsets topics and sink groups when
	// REST is not there to say.
	Configs plan.ConnectConfigs
	// Resume checks whether an edit's new source offsets still exist where
	// the connector reads them (a MirrorMaker 2 source log, a replication
	// slot, binary logs, a file), for the plan's warnings; nil: not checked.
	Resume planner.Resume
	// Topics are the offsets topics koff tails; the first is the workers'
	// offset.storage.topic.
	Topics []string
	// TopicSource, when set, is asked instead of Topics: the dashboard adds
	// connectors' own offsets topics as REST reveals them.
	TopicSource func() []string
	// ReadOnly refuses every write, whatever the caller shows.
	ReadOnly bool
	// ReadOnlyCause says why, for the refusal: "started with --read-only",
	// "context prod is read-only in FILE", "you are a viewer …".
	ReadOnlyCause string
	// User is who the audit log names (OS user, or the SSH user).
	User string
	// Cluster, when set, is the Kafka cluster id the audit log names;
	// otherwise Kafka is asked (ClusterID).
	Cluster string
	Audit   *audit.Log
	// History reads an offsets topic's retained records (history, rewind).
	History history.ReadFunc
	// HistoryFrom reads what an offsets topic gained since a read before
	// (kafka.Config.ReadHistoryFrom): a shared history follows with it.
	HistoryFrom history.ReadFromFunc
	// Shared, when set, is the partition histories of this cluster that
	// every dashboard shares (PartitionHistory): copies of an Editor (koff
	// serve's sessions) share it.
	Shared *history.Share
	// Cmd renders the equivalent koff command line of a plan.
	Cmd plan.CommandLine
	// VerifyTimeout bounds the wait for the tailer to read a write back (10s).
	VerifyTimeout time.Duration
	// FlushInterval is the workers' offset.flush.interval.ms when the
	// operator gave it (--flush-interval; 0: estimate it from the
	// connector's flushes): how long an edit is watched for a task's
	// commit over it (edit/apply/watch.go).
	FlushInterval time.Duration
	// WatchLimit caps that watch (WatchCap when zero).
	WatchLimit time.Duration
	// Progress, when set, is told while an edit is watched after its
	// read-back, how long is left (about four times a second).
	Progress func(p *plan.Plan, left time.Duration)
	// StopTimeout bounds the wait for a stopped connector's tasks to go (30s).
	StopTimeout time.Duration
	Now         func() time.Time
	// Interrupt, when closed, asks a write in progress to stop: the produce
	// request in flight finishes, the rest is not sent, and the audit log
	// says which topic-partitions were written.
	Interrupt <-chan struct{}
}

func (e *Editor) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Editor) stopTimeout() time.Duration {
	if e.StopTimeout > 0 {
		return e.StopTimeout
	}
	return 30 * time.Second
}

func (e *Editor) topics() []string {
	if e.TopicSource != nil {
		return e.TopicSource()
	}
	return e.Topics
}

// applier hands the write path what it needs beside the plan: the ports
// and this koff's settings, as they are now.
func (e *Editor) applier() *apply.Applier {
	a := e.applierOf()
	if l, ok := e.REST.(apply.Lifecycle); ok && e.REST != nil {
		a.Lifecycle = l
	}
	a.Replan, a.StopTimeout = e.planner().ReplanStep, e.StopTimeout
	a.MoveItems, a.MoveSink = e.planner().MoveRequest, e.planner().MoveSinkRequest
	if e.Elsewhere != nil {
		a.Elsewhere = func(where string) (*apply.Applier, error) {
			other, err := e.Elsewhere(where)
			if err != nil {
				return nil, err
			}
			return other.applier(), nil
		}
	}
	return a
}

func (e *Editor) applierOf() *apply.Applier {
	return &apply.Applier{
		Store: e.Store, Kafka: e.Kafka, REST: e.REST, Configs: e.Configs, Topics: e.topics, ClusterID: e.ClusterID,
		ConnectURL: e.connectURL(), ReadOnly: e.ReadOnly, ReadOnlyCause: e.ReadOnlyCause, User: e.User, Audit: e.Audit,
		VerifyTimeout: e.VerifyTimeout, FlushInterval: e.FlushInterval, WatchLimit: e.WatchLimit, Progress: e.Progress,
		Now: e.Now, Interrupt: e.Interrupt,
	}
}

// Apply checks the preconditions again, writes the plan, waits until the
// tailer has read every write back, and audits it (edit/apply: check →
// others → write-ahead → write → settle → verify → watch → record).
func (e *Editor) Apply(ctx context.Context, p *plan.Plan) (apply.Result, error) {
	return e.applier().Apply(ctx, p)
}

// Check runs the preconditions of an edit: read-only, the connector's state
// (when REST can tell), and the optimistic check that every stored offset
// the plan read is unchanged.
func (e *Editor) Check(ctx context.Context, p *plan.Plan) error { return e.applier().Check(ctx, p) }

// CheckPreview runs every precondition Check does but read-only: a dry
// run writes nothing, so a read-only koff may preview an edit.
func (e *Editor) CheckPreview(ctx context.Context, p *plan.Plan) error {
	return e.applier().CheckPreview(ctx, p)
}

// planWatch asks the write path how long it will watch the plan's writes
// after the read-back, and why (Plan.Watch, apply.PlanWatch).
func (e *Editor) planWatch(p *plan.Plan) { e.applier().PlanWatch(p) }

// readOnly is apply.ErrReadOnly with its cause, when the caller gave one.
func (e *Editor) readOnly() error { return apply.ReadOnlyError(e.ReadOnlyCause) }

// planner hands planning what it reads: the ports and this koff's
// settings, as they are now.
func (e *Editor) planner() *planner.Planner {
	return &planner.Planner{
		Store: e.Store, Kafka: e.Kafka, Bootstrap: e.Bootstrap, REST: e.REST, Configs: e.Configs, Topics: e.topics,
		Resume: e.Resume, Cmd: e.Cmd, Watch: e.planWatch, Now: e.Now, ClusterID: e.ClusterID,
		Elsewhere: e.plannerElsewhere(),
	}
}

// plannerElsewhere is the Planner of another Connect cluster by its
// context, or nil.
func (e *Editor) plannerElsewhere() func(string) (*planner.Planner, error) {
	if e.Elsewhere == nil {
		return nil
	}
	return func(where string) (*planner.Planner, error) {
		other, err := e.Elsewhere(where)
		if err != nil {
			return nil, err
		}
		return other.planner(), nil
	}
}

// Plan works out an edit without writing anything (edit/planner).
func (e *Editor) Plan(ctx context.Context, req plan.Request) (*plan.Plan, error) {
	return e.planner().Plan(ctx, req)
}

// PlanSink works out a sink edit without writing anything.
func (e *Editor) PlanSink(ctx context.Context, req plan.SinkRequest) (*plan.Plan, error) {
	return e.planner().PlanSink(ctx, req)
}

// Replan plans the same request again on the offsets as they are now. The
// stop → apply → resume flow needs it: stopping a connector makes its tasks
// commit one last time, which moves the offsets the first plan read.
func (e *Editor) Replan(ctx context.Context, p *plan.Plan) (*plan.Plan, error) {
	return e.planner().Replan(ctx, p)
}

// CopyRequest is the request that gives connector `to` every live source
// offset `from` has, as a new planned edit of `to`.
func (e *Editor) CopyRequest(from, to string) (plan.Request, error) {
	return e.planner().CopyRequest(from, to)
}

// configOf is the config topic's word on a connector; ok is false when
// koff reads no config topic.
func (e *Editor) configOf(name string) (model.ConnectorConfig, string, bool) {
	return plan.ConfigOf(e.Configs, name)
}

// groupPoll is one consumer group's committed offsets and members.
func (e *Editor) groupPoll(ctx context.Context, group string) (model.GroupPoll, error) {
	return plan.GroupPoll(ctx, e.Kafka, group)
}
