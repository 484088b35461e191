package plan

import (
	"context"

	"koff/model"
)

// ConnectConfigs is what the pipeline reads of Connect's config topic
// (*store.Store fed by a store.ConfigFeed): each connector's config and
// target state, which Connect knows without its REST API being asked.
type ConnectConfigs interface {
	ConnectorConfig(name string) (model.ConnectorConfig, bool)
	ConnectConfigs() model.ConnectConfigs
}

// ConfigOf is the config topic's word on a connector; ok is false when
// koff reads no config topic (configs is nil).
func ConfigOf(configs ConnectConfigs, name string) (model.ConnectorConfig, string, bool) {
	if configs == nil {
		return model.ConnectorConfig{}, "", false
	}
	c, ok := configs.ConnectorConfig(name)
	if !ok {
		return model.ConnectorConfig{}, "", false
	}
	return c, configs.ConnectConfigs().Topic, true
}

// GroupPoll asks Kafka for one consumer group: its committed offsets and
// members (an empty poll when Kafka does not know the group).
func GroupPoll(ctx context.Context, k interface {
	GroupPolls(ctx context.Context, named []string) ([]model.GroupPoll, error)
}, group string) (model.GroupPoll, error) {
	polls, err := k.GroupPolls(ctx, []string{group})
	if err != nil {
		return model.GroupPoll{}, err
	}
	for _, p := range polls {
		if p.Group == group {
			return p, nil
		}
	}
	return model.GroupPoll{Group: group}, nil
}
