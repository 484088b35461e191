package edit

import (
	"context"
)

// ClusterIdentifier is a Writer that can say which Kafka cluster it
// writes to (kafka.Config asks the brokers' metadata).
type ClusterIdentifier interface {
	ClusterID(ctx context.Context) (string, error)
}

// ClusterID is the id of the Kafka cluster this Editor writes to: the
// cluster holding the offsets topics and the sinks' consumer groups. ""
// when it cannot say (a Writer that does not know, or a broker that does
// not answer): edits are then logged with the cluster unknown, and undo
// needs an explicit --edit ID.
func (e *Editor) ClusterID(ctx context.Context) (string, error) {
	if e.Cluster != "" {
		return e.Cluster, nil
	}
	ci, ok := e.Kafka.(ClusterIdentifier)
	if !ok {
		return "", nil
	}
	return ci.ClusterID(ctx)
}

// connectURL is the Connect REST URL edits go through, "" without one.
func (e *Editor) connectURL() string {
	if u, ok := e.REST.(interface{ URL() string }); ok {
		return u.URL()
	}
	return ""
}
