package kafka

import (
	"context"
	"fmt"

	metadataAPI "github.com/segmentio/kafka-go/protocol/metadata"
)

// ClusterID asks the brokers which cluster they are ("" from a broker too
// old to say). The audit log names it on every edit, so that undo never
// puts an edit of one cluster back on another that happens to hold a
// connector of the same name.
func (c Config) ClusterID(ctx context.Context) (string, error) {
	tr := c.transport()
	defer tr.CloseIdleConnections()
	m, err := tr.RoundTrip(ctx, c.addr(), &metadataAPI.Request{TopicNames: []string{}})
	if err != nil {
		return "", fmt.Errorf("read the cluster id: %s", c.Describe(err))
	}
	return m.(*metadataAPI.Response).ClusterID, nil
}
