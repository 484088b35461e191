package apply

import (
	"context"
	"fmt"
	"time"

	"koff/connect"
	"koff/edit/plan"
)

// lifecycleStep carries out a step that changes a connector's life through
// REST, and waits until Connect shows it done: a stopped connector's tasks
// gone, a created one's status there, a deleted one's gone.
func (e *Applier) lifecycleStep(ctx context.Context, s plan.Step) error {
	rest := e.Lifecycle
	switch s.Kind {
	case plan.StepStop:
		if err := rest.Stop(ctx, s.Connector); err != nil {
			return err
		}
		return e.waitStatus(ctx, s.Connector, "its tasks gone (STOPPED)", func(st connect.ConnectorStatus, err error) bool {
			return err == nil && (st.Stopped() || st.Connector.State == connect.StateUnassigned && len(st.Tasks) == 0)
		})
	case plan.StepCreate:
		state := connect.State(s.State)
		if state == "" {
			state = connect.StateStopped
		}
		if state != connect.StateRunning {
			// Never a connector that runs before its offsets are in place.
			info, err := rest.ServerInfo(ctx)
			if err != nil {
				return err
			}
			if !info.SupportsInitialState() {
				return fmt.Errorf("refused: Connect %s cannot create a connector %s (initial_state, KIP-980, came in Apache Kafka 3.7)", info.Version, state)
			}
		}
		if _, err := rest.CreateConnector(ctx, s.Connector, s.Config, state); err != nil {
			return err
		}
		return e.waitStatus(ctx, s.Connector, "its status "+string(state), func(st connect.ConnectorStatus, err error) bool {
			return err == nil && st.Connector.State == state
		})
	case plan.StepConfig:
		// A STOPPED connector stays stopped: its target state is a record
		// of its own in the config topic, which a new config leaves alone.
		return rest.PutConnectorConfig(ctx, s.Connector, s.Config)
	case plan.StepResume:
		return rest.Resume(ctx, s.Connector)
	case plan.StepPause:
		return rest.Pause(ctx, s.Connector)
	case plan.StepDelete:
		if err := rest.DeleteConnector(ctx, s.Connector); err != nil {
			return err
		}
		// Connect's status outlives the delete a moment ("type":"unknown").
		return e.waitStatus(ctx, s.Connector, "no status", func(_ connect.ConnectorStatus, err error) bool {
			return connect.IsNotFound(err)
		})
	}
	return fmt.Errorf("unknown step %q", s.Kind)
}

// waitStatus polls a connector's status until done says so, for at most
// StopTimeout.
func (e *Applier) waitStatus(ctx context.Context, name, what string, done func(connect.ConnectorStatus, error) bool) error {
	timeout := e.StopTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	deadline := time.Now().Add(timeout)
	for {
		st, err := e.Lifecycle.Status(ctx, name)
		if done(st, err) {
			return nil
		}
		if time.Now().After(deadline) {
			now := string(st.Connector.State)
			if err != nil {
				now = err.Error()
			}
			return fmt.Errorf("connector %s: not %s within %s (now %s)", name, what, timeout, now)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
