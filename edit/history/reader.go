package history

import (
	"context"
	"time"

	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/planner"
	"koff/model"
)

// Offsets is what a history read asks the live model (a *store.Store fed
// by a tailer): a connector's stored copies, to judge each key read.
type Offsets interface {
	Partitions(model.ConnectorID) []model.PartitionRow
}

// REST is the part of Connect's REST API a history read asks: a sink's
// config, for its consumer group.
type REST interface {
	ConnectorConfig(ctx context.Context, name string) (map[string]string, error)
}

// Reader reads an offsets topic's history, and plans a rewind from it.
// The Editor hands it its ports (edit.Editor.ReadHistory).
type Reader struct {
	Store Offsets
	Kafka interface {
		GroupPolls(ctx context.Context, named []string) ([]model.GroupPoll, error)
	}
	// REST is nil when koff has no --connect-url.
	REST REST
	// Audit names the commits koff's own edits wrote (nil: none).
	Audit *audit.Log
	// History reads an offsets topic's retained records; HistoryFrom what
	// it gained since a read before.
	History     ReadFunc
	HistoryFrom ReadFromFunc
	// Shared is the partition histories of this cluster that every
	// dashboard shares (nil: each read is its own).
	Shared *Share
	// Topics are the offsets topics koff tails, the workers' first.
	Topics func() []string
	// ClusterID names the Kafka cluster, to tell its edits in the audit log.
	ClusterID func(ctx context.Context) (string, error)
	// Planner plans the rewind a history read finds.
	Planner *planner.Planner
	// Cmd renders the equivalent koff command line of a plan.
	Cmd plan.CommandLine
	// VerifyTimeout is how long after its start an edit without an
	// outcome line may have written (10s), for the marks of its records.
	VerifyTimeout time.Duration
}

func (e *Reader) topics() []string {
	if e.Topics == nil {
		return nil
	}
	return e.Topics()
}

func (e *Reader) verifyTimeout() time.Duration {
	if e.VerifyTimeout > 0 {
		return e.VerifyTimeout
	}
	return 10 * time.Second
}

func (e *Reader) groupPoll(ctx context.Context, group string) (model.GroupPoll, error) {
	return plan.GroupPoll(ctx, e.Kafka, group)
}

func (e *Reader) clusterID(ctx context.Context) (string, error) {
	if e.ClusterID == nil {
		return "", nil
	}
	return e.ClusterID(ctx)
}
