package planner

import (
	"context"
	"time"

	"koff/connect"
	"koff/edit/plan"
	"koff/model"
)

// Offsets is what planning reads of the live model (a *store.Store fed by
// a tailer): a connector's stored copies and the value under a key.
type Offsets interface {
	Partitions(model.ConnectorID) []model.PartitionRow
	Partition(model.PartitionID) (model.PartitionDetail, bool)
}

// Kafka is what planning asks Kafka (kafka.Config): how many partitions a
// topic has, a sink's consumer group, and where a partition's log starts,
// ends or stands at a time.
type Kafka interface {
	PartitionCount(ctx context.Context, topic string) (int, error)
	GroupPolls(ctx context.Context, named []string) ([]model.GroupPoll, error)
	LogBounds(ctx context.Context, tps []model.TopicPartition) (map[model.TopicPartition][2]int64, error)
	OffsetsAt(ctx context.Context, tps []model.TopicPartition, t time.Time) (map[model.TopicPartition]int64, error)
}

// REST is the part of Connect's REST API planning asks (*connect.Client).
type REST interface {
	ServerInfo(ctx context.Context) (connect.ServerInfo, error)
	Status(ctx context.Context, name string) (connect.ConnectorStatus, error)
	ConnectorConfig(ctx context.Context, name string) (map[string]string, error)
}

// Planner turns a request into a Plan: it reads the offsets, Connect and
// Kafka, and writes nothing. The Editor hands it its ports (edit.Editor.Plan).
type Planner struct {
	Store Offsets
	Kafka Kafka
	// Bootstrap is the -b list Kafka is reached at (sinkCluster).
	Bootstrap []string
	// REST is nil when koff has no --connect-url.
	REST REST
	// Resume checks whether a plan's new source offsets still exist where
	// the connector reads (nil: not checked).
	Resume Resume
	// Configs is Connect's config topic as koff reads it (nil: none).
	Configs plan.ConnectConfigs
	// Topics are the offsets topics koff tails, the workers' first.
	Topics func() []string
	// Cmd renders the equivalent koff command line of a plan.
	Cmd plan.CommandLine
	// Watch says how long the write path will watch the plan's writes
	// after the read-back (Plan.Watch): the write path's rule.
	Watch func(*plan.Plan)
	Now   func() time.Time
	// Elsewhere is the Planner of another Connect cluster, named by its
	// koff context (a move's target); nil when koff reaches none.
	Elsewhere func(where string) (*Planner, error)
	// ClusterID is the id of the Kafka cluster its offsets are in.
	ClusterID func(ctx context.Context) (string, error)
}

func (e *Planner) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Planner) topics() []string {
	if e.Topics == nil {
		return nil
	}
	return e.Topics()
}

func (e *Planner) planWatch(p *plan.Plan) {
	if e.Watch != nil {
		e.Watch(p)
	}
}

func (e *Planner) groupPoll(ctx context.Context, group string) (model.GroupPoll, error) {
	return plan.GroupPoll(ctx, e.Kafka, group)
}
