package demo

import (
	"context"
	"encoding/json"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// ConfigTopic is the simulated workers' config.storage.topic: one
// compacted partition, as Connect creates it.
const ConfigTopic = "connect-configs"

// configRecords are what a worker's KafkaConfigBackingStore writes when a
// connector is created: its config, keyed connector-NAME, and its target
// state, keyed target-state-NAME (JSON of the internal converter, without
// schemas).
func (c *Cluster) configRecords(conn *connector, state string) []*kgo.Record {
	name := conn.spec.name
	props, _ := json.Marshal(map[string]any{"properties": conn.config(c.Bootstrap())})
	return []*kgo.Record{
		{Topic: c.configTopic, Key: []byte("target-state-" + name), Value: targetStateValue(state)},
		{Topic: c.configTopic, Key: []byte("connector-" + name), Value: props},
	}
}

// stateStarted is Connect's STARTED target state (a RUNNING connector).
const stateStarted = "STARTED"

// targetStateValue is a target-state record's value as Apache Kafka 4.1.1
// writes it: "state" for older workers, where STOPPED reads PAUSED, and
// "state.v2".
func targetStateValue(state string) []byte {
	old := state
	if state == stateStopped {
		old = statePaused
	}
	b, _ := json.Marshal(map[string]string{"state": old, "state.v2": state})
	return b
}

// writeConfigs creates the config topic and writes every connector's
// config and target state.
func (c *Cluster) writeConfigs(ctx context.Context) error {
	if err := c.broker.createTopic(ctx, c.configTopic, 1, map[string]string{"cleanup.policy": "compact"}); err != nil {
		return err
	}
	var recs []*kgo.Record
	for _, name := range c.names {
		recs = append(recs, c.configRecords(c.connectors[name], stateStarted)...)
	}
	return c.w.client.ProduceSync(ctx, recs...).FirstErr()
}

// writeTargetState records a stop, pause or resume in the config topic, as
// the worker does before it answers the REST request.
func (c *Cluster) writeTargetState(name, state string) error {
	if state == stateRunning {
		state = stateStarted
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.w.client.ProduceSync(ctx, &kgo.Record{Topic: c.configTopic, Key: []byte("target-state-" + name), Value: targetStateValue(state)}).FirstErr()
}

// LeaveWorker makes a stopped connector's status read UNASSIGNED, as it
// does after the worker holding it left the group and before a rebalance
// gives it to another: its target state stays STOPPED, and Connect's
// offsets PATCH and DELETE, which decide by the target state, accept it.
// A resume assigns it again.
func (c *Cluster) LeaveWorker(name string) error {
	conn, ok := c.lookup(name)
	if !ok {
		return ErrUnknownConnector
	}
	conn.mu.Lock()
	defer conn.mu.Unlock()
	if conn.state == stateStopped {
		c.unassigned.Store(name, true)
	}
	return nil
}

// reportedState is the state GET /connectors/NAME/status reports.
func (c *Cluster) reportedState(name string) string {
	st := c.ConnectorState(name)
	if _, ok := c.unassigned.Load(name); ok && st == stateStopped {
		return "UNASSIGNED"
	}
	return st
}
