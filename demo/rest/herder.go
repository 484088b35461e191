package rest

import (
	"context"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Herder is what the emulator asks of the cluster behind it, as Connect's
// REST resources ask their herder and worker: the connectors, their
// lifecycle, and the worker's Kafka client and log.
type Herder interface {
	Connectors() []string // sorted
	Connector(name string) (Connector, bool)
	StopConnector(name string) error
	PauseConnector(name string) error
	ResumeConnector(name string) error
	// CreateConnector creates a connector from its config (which names
	// it) in a target state, RUNNING, PAUSED or STOPPED (KIP-980); a
	// *ConfigError is a config Connect refuses, ErrExists a name taken.
	CreateConnector(config map[string]string, state string) error
	// UpdateConnector gives an existing connector a new config, as PUT
	// /connectors/NAME/config does: its tasks restart with it.
	UpdateConnector(config map[string]string) error
	// DeleteConnector deletes a connector; its offsets stay.
	DeleteConnector(name string) error
	// Plugins are the connector plugins its workers have (GET
	// /connector-plugins), sorted by class.
	Plugins() []Plugin
	// Client is the worker's Kafka client: the cluster id, offsets
	// topics and sink connectors' consumer groups.
	Client() *kgo.Client
	Logf(format string, args ...any)
}

// Connector is one connector of the Herder.
type Connector interface {
	// The lock is held from the STOPPED check of an offsets edit to its
	// write, so that a resume cannot slip between them.
	sync.Locker
	Name() string
	Class() string
	Type() string  // "source" or "sink"
	Group() string // a sink's consumer group
	// Config is GET /connectors/NAME/config.
	Config() map[string]string
	// PluginVersion is what the connector class's version() answers.
	PluginVersion(kafkaVersion string) string
	// State is the target state, RUNNING, PAUSED or STOPPED; Stopped
	// reads it with the lock held.
	State() string
	Stopped() bool
	// ReportedState is the state GET status shows (UNASSIGNED when the
	// worker left a stopped connector).
	ReportedState() string
	// Tasks is how many tasks the connector has when it is not stopped.
	Tasks() int
	TaskFailed(task int) bool
	// ActiveTopics are the topics its tasks produced to (a source) or
	// consumed from (a sink).
	ActiveTopics(ctx context.Context) ([]string, error)
	// Offsets is a source's offsets as a fresh offset store reads them.
	Offsets(ctx context.Context) (StoreView, error)
	OffsetsTopic() string
	// OffsetsPartitions is the worker's offset.storage.partitions.
	OffsetsPartitions() int
	// WriteOffsets writes an edit's records to the offsets topic (and a
	// connector's own topic); tombstonesFirst is Connect 3.8+'s order.
	WriteOffsets(ctx context.Context, recs []*kgo.Record, tombstonesFirst bool) error
}

// Plugin is one connector plugin as GET /connector-plugins lists it.
type Plugin struct {
	Class   string `json:"class"`
	Type    string `json:"type"`
	Version string `json:"version"`
}
