package model

import (
	"strings"
	"time"
)

// Target states as Connect writes them to its config topic (TargetState).
const (
	TargetStarted = "STARTED"
	TargetPaused  = "PAUSED"
	TargetStopped = "STOPPED"
)

// ConnectorConfig is what Connect's config topic (config.storage.topic)
// says of one connector: its config and its target state, the state its
// workers are told to bring it to. Connect decides whether offsets may be
// changed by the target state, not by the status a worker reports.
type ConnectorConfig struct {
	Name string
	// Config is the connector's config (nil: none, deleted or not created).
	Config map[string]string
	// TargetState is STARTED, PAUSED or STOPPED; "" when the topic holds
	// neither a config nor a target state of the connector. A connector
	// is in Connect only while it has a Config.
	TargetState string
	// TargetSince is the timestamp of the record that set TargetState
	// (zero when unknown, or STARTED by default with no record of its own):
	// the tasks of a connector told to stop commit once more as they stop,
	// soon after it.
	TargetSince time.Time
}

// Class is the connector's connector.class.
func (c ConnectorConfig) Class() string { return strings.TrimSpace(c.Config["connector.class"]) }

// OwnOffsetsTopic is the connector's own offsets.storage.topic ("" when it
// uses the workers').
func (c ConnectorConfig) OwnOffsetsTopic() string {
	return strings.TrimSpace(c.Config["offsets.storage.topic"])
}

// GroupOverride is a sink's consumer.override.group.id ("" when none).
func (c ConnectorConfig) GroupOverride() string {
	return strings.TrimSpace(c.Config["consumer.override.group.id"])
}

// ConnectConfigs is a snapshot of a config topic read to its end.
type ConnectConfigs struct {
	// Topic is the config topic; "" when koff reads none (it does not
	// exist, or none is named): then koff cannot know what it would say.
	Topic      string
	Connectors map[string]ConnectorConfig
}

// Connector is the config topic's word on one connector; ok is false when
// no config topic was read, so that nothing can be said.
func (c ConnectConfigs) Connector(name string) (cc ConnectorConfig, ok bool) {
	if c.Topic == "" {
		return ConnectorConfig{}, false
	}
	cc, found := c.Connectors[name]
	if !found {
		cc = ConnectorConfig{Name: name}
	}
	return cc, true
}
