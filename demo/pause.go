package demo

import (
	"context"
	"errors"
	"fmt"
)

// statePaused is Connect's PAUSED target state: tasks stay assigned (and
// listed) but neither poll nor produce.
const statePaused = "PAUSED"

// PauseConnector pauses a connector, as PUT /connectors/NAME/pause does.
//
// A paused Connect task keeps its in-memory offsets and its offset
// committer flushes what it had acknowledged; resuming it continues from
// memory without reading the offsets topic. The simulation stops the tasks
// (their final flush is that last commit) and keeps the offsets they held,
// so ResumeConnector continues from those and not from anything written to
// the topic meanwhile. Pausing a stopped connector makes it PAUSED without
// starting its tasks; resuming it then reads the topic, as tasks created in
// the PAUSED state do. Pausing a paused connector does nothing.
//
// A paused sink's tasks stay in the consumer group (still Stable, still
// committing, though nothing changes) but take no records, as a
// WorkerSinkTask does with its consumer's partitions paused; resuming it
// continues where its tasks were.
//
// Not modelled: the stalling connector's unflushed offsets. Its tasks hold
// offsets it could not commit; after a pause it continues from the ones
// last written to the topic instead.
func (c *Cluster) PauseConnector(name string) error {
	conn, ok := c.lookup(name)
	if !ok {
		return fmt.Errorf("%w %s", ErrUnknownConnector, name)
	}
	conn.mu.Lock()
	defer conn.mu.Unlock()
	if c.closed.Load() {
		return errors.New("demo cluster is closed")
	}
	switch conn.state {
	case statePaused:
		return nil
	case stateStopped:
		c.held.Delete(name)
		c.unassigned.Delete(name)
		conn.state = statePaused
		return c.writeTargetState(name, statePaused)
	}
	if err := c.writeTargetState(name, statePaused); err != nil {
		return err
	}
	if conn.spec.sink != nil {
		conn.sink.paused.Store(true)
		conn.state = statePaused
		c.w.logf("connector %s paused", name)
		return nil
	}
	conn.stop()
	held, err := c.w.readOffsets(context.Background(), conn.offsetsTopic(), conn.keys())
	if err != nil {
		// Resume will read the topic instead: the final flush put the
		// tasks' offsets there.
		c.w.logf("connector %s: keeping offsets for resume: %v", name, err)
	} else {
		c.held.Store(name, held)
	}
	conn.state = statePaused
	c.w.logf("connector %s paused", name)
	return nil
}

// unpause restarts a paused connector's tasks from the offsets they held
// when it was paused (or from the topic when it was paused while stopped).
// Callers hold conn.mu.
func (c *Cluster) unpause(conn *connector) error {
	if conn.spec.sink != nil && conn.cancel != nil {
		conn.sink.paused.Store(false)
		conn.state = stateRunning
		return nil
	}
	v, ok := c.held.LoadAndDelete(conn.spec.name)
	if !ok {
		return conn.start(context.Background())
	}
	// connector.start without reading the topic.
	conn.startTasks(v.(map[string][]byte))
	return nil
}
