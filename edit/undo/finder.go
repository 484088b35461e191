package undo

import (
	"context"
	"time"

	"koff/connect"
	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/planner"
	"koff/model"
)

// Finder picks the edit to undo from the audit log and checks what the
// cluster holds now against it. The Editor hands it its ports
// (edit.Editor.FindUndo).
type Finder struct {
	Store interface {
		Partition(model.PartitionID) (model.PartitionDetail, bool)
	}
	// Kafka is kafka.Config: a sink's group, and (apply.BatchWriter) the
	// log an edit without an outcome line is reconciled with.
	Kafka interface {
		GroupPolls(ctx context.Context, named []string) ([]model.GroupPoll, error)
	}
	// REST is nil when koff has no --connect-url.
	REST interface {
		ServerInfo(ctx context.Context) (connect.ServerInfo, error)
	}
	Audit *audit.Log
	// ClusterID names the Kafka cluster whose edits are undone.
	ClusterID func(ctx context.Context) (string, error)
	// ConnectURL is the Connect REST URL, "" without one.
	ConnectURL string
	// Planner knows the connectors' names and stored copies.
	Planner *planner.Planner
	Now     func() time.Time
}

func (e *Finder) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Finder) connectURL() string { return e.ConnectURL }

func (e *Finder) groupPoll(ctx context.Context, group string) (model.GroupPoll, error) {
	return plan.GroupPoll(ctx, e.Kafka, group)
}

func (e *Finder) clusterID(ctx context.Context) (string, error) {
	if e.ClusterID == nil {
		return "", nil
	}
	return e.ClusterID(ctx)
}
