package apply

import (
	"context"
	"time"

	"koff/connect"
	"koff/edit/audit"
	"koff/edit/plan"
	"koff/model"
	"koff/model/store"
)

// Offsets is what the write path reads of the live model (a *store.Store
// fed by a tailer): the value under a key, for the optimistic check and
// the read-back.
type Offsets interface {
	Partition(model.PartitionID) (model.PartitionDetail, bool)
}

// Writer is what the write path does with Kafka (kafka.Config): records
// to exact topic-partitions for sources, consumer-group offsets for sinks.
type Writer interface {
	WriteRecords(ctx context.Context, recs []store.Record) error
	GroupPolls(ctx context.Context, named []string) ([]model.GroupPoll, error)
	CommitGroupOffsets(ctx context.Context, group string, offsets map[model.TopicPartition]int64) error
	DeleteGroupOffsets(ctx context.Context, group string, tps []model.TopicPartition) error
	DeleteGroup(ctx context.Context, group string) error
}

// REST is the part of Connect's REST API the write path uses
// (*connect.Client).
type REST interface {
	Status(ctx context.Context, name string) (connect.ConnectorStatus, error)
	AlterOffsets(ctx context.Context, name string, body []byte) (string, error)
	ResetOffsets(ctx context.Context, name string) (string, error)
}

// Lifecycle is the part of Connect's REST API an operation's steps use
// (*connect.Client): a connector created, stopped, paused, resumed,
// deleted.
type Lifecycle interface {
	ServerInfo(ctx context.Context) (connect.ServerInfo, error)
	Status(ctx context.Context, name string) (connect.ConnectorStatus, error)
	CreateConnector(ctx context.Context, name string, config map[string]string, initial connect.State) (connect.ConnectorInfo, error)
	DeleteConnector(ctx context.Context, name string) error
	Stop(ctx context.Context, name string) error
	Pause(ctx context.Context, name string) error
	Resume(ctx context.Context, name string) error
	PutConnectorConfig(ctx context.Context, name string, config map[string]string) error
}

// Applier applies plans: everything it needs beside the Plan is here, the
// ports it writes and reads through and the settings of one koff (the
// Editor hands them down, edit.Editor.Apply).
type Applier struct {
	// Elsewhere is the Applier of another Connect cluster, named by its
	// koff context: a move's steps there run through it.
	Elsewhere func(where string) (*Applier, error)
	// MoveItems are a connector's offsets as this cluster's Store holds
	// them now, as a copy of the same name (a move's offsets step, planned
	// again there after the stop).
	MoveItems func(name string) (plan.Request, error)
	// MoveSink is a sink's group's committed offsets here now, as an edit
	// of that group elsewhere (a move's sink step across Kafka clusters).
	MoveSink func(ctx context.Context, name, group string) (plan.SinkRequest, error)
	Store    Offsets
	Kafka    Writer
	// REST is nil when koff has no --connect-url.
	REST REST
	// Lifecycle is the same REST API for an operation's steps (nil
	// without --connect-url: operations are refused).
	Lifecycle Lifecycle
	// Replan plans an operation's offsets step again just before it runs
	// (a copy from a connector stopped by an earlier step reads its
	// offsets after that stop's last flush); nil: as planned.
	Replan func(ctx context.Context, p *plan.Plan) (*plan.Plan, error)
	// StopTimeout bounds the wait for a stopped connector's tasks to go,
	// and for a created or deleted one to show (30s).
	StopTimeout time.Duration
	// Configs is Connect's config topic as koff reads it (nil: none).
	Configs plan.ConnectConfigs
	// Topics are the offsets topics koff tails, asked when needed (the
	// dashboard adds connectors' own topics as REST reveals them).
	Topics func() []string
	// ClusterID names the Kafka cluster each audit line names.
	ClusterID func(ctx context.Context) (string, error)
	// ConnectURL is the Connect REST URL edits go through, "" without one.
	ConnectURL string
	// ReadOnly refuses every write; ReadOnlyCause says why.
	ReadOnly      bool
	ReadOnlyCause string
	// User is who the audit log names.
	User  string
	Audit *audit.Log
	// VerifyTimeout bounds the wait for the tailer to read a write back (10s).
	VerifyTimeout time.Duration
	// FlushInterval is --flush-interval (0: estimate it), WatchLimit caps
	// the watch (WatchCap when zero), Progress is told how long is left of
	// it (watch.go).
	FlushInterval time.Duration
	WatchLimit    time.Duration
	Progress      func(p *plan.Plan, left time.Duration)
	Now           func() time.Time
	// Interrupt, when closed, asks a write in progress to stop between
	// produce requests.
	Interrupt <-chan struct{}
}

func (e *Applier) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Applier) verifyTimeout() time.Duration {
	if e.VerifyTimeout > 0 {
		return e.VerifyTimeout
	}
	return 10 * time.Second
}

func (e *Applier) topics() []string {
	if e.Topics == nil {
		return nil
	}
	return e.Topics()
}

func (e *Applier) clusterID(ctx context.Context) (string, error) {
	if e.ClusterID == nil {
		return "", nil
	}
	return e.ClusterID(ctx)
}

func (e *Applier) connectURL() string { return e.ConnectURL }

func (e *Applier) configOf(name string) (model.ConnectorConfig, string, bool) {
	return plan.ConfigOf(e.Configs, name)
}

// groupPoll is one consumer group's committed offsets and members.
func (e *Applier) groupPoll(ctx context.Context, group string) (model.GroupPoll, error) {
	return plan.GroupPoll(ctx, e.Kafka, group)
}

// produce sends one topic-partition's records in one request.
func (e *Applier) produce(ctx context.Context, tp model.TopicPartition, recs []store.Record) (int64, error) {
	if bw, ok := e.Kafka.(BatchWriter); ok {
		return bw.ProduceBatch(ctx, tp, recs)
	}
	return -1, e.Kafka.WriteRecords(ctx, recs)
}

func (e *Applier) interrupted() bool {
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

// current is the value stored now under a write's key (nil: none or deleted).
func (e *Applier) current(w plan.Write) []byte { return Current(e.Store, w) }

// Current is the value s holds now under a write's key (nil: none or
// deleted): what the check and the watch compare with the plan.
func Current(s Offsets, w plan.Write) []byte {
	d, ok := s.Partition(model.PartitionID{TopicPartition: w.TopicPartition, Key: string(w.Key)})
	if !ok || d.Deleted {
		return nil
	}
	return d.Value
}
