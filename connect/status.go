package connect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// State is a connector or task state (Connect's AbstractStatus.State).
type State string

const (
	StateUnassigned State = "UNASSIGNED"
	StateRunning    State = "RUNNING"
	StatePaused     State = "PAUSED"
	StateFailed     State = "FAILED"
	StateRestarting State = "RESTARTING"
	StateStopped    State = "STOPPED" // connectors only, since 3.5
)

// ConnectorStatus is GET /connectors/{name}/status (ConnectorStateInfo).
type ConnectorStatus struct {
	Name      string         `json:"name"`
	Connector ConnectorState `json:"connector"`
	Tasks     []TaskState    `json:"tasks"`
	Type      string         `json:"type"` // source, sink or unknown
}

// ConnectorState is the connector half of a status.
type ConnectorState struct {
	State    State  `json:"state"`
	WorkerID string `json:"worker_id"`
	Trace    string `json:"trace,omitempty"` // only when FAILED
}

// TaskState is one task of a status.
type TaskState struct {
	ID       int    `json:"id"`
	State    State  `json:"state"`
	WorkerID string `json:"worker_id"`
	Trace    string `json:"trace,omitempty"`
}

// Stopped reports what PATCH and DELETE offsets require: the connector is
// STOPPED and its tasks are gone (PAUSED keeps tasks and is rejected).
func (s ConnectorStatus) Stopped() bool {
	return s.Connector.State == StateStopped && len(s.Tasks) == 0
}

// ConnectorInfo is GET /connectors/{name} (ConnectorInfo).
type ConnectorInfo struct {
	Name   string            `json:"name"`
	Config map[string]string `json:"config"`
	Tasks  []TaskID          `json:"tasks"`
	Type   string            `json:"type"`
}

// TaskID names one task (ConnectorTaskId).
type TaskID struct {
	Connector string `json:"connector"`
	Task      int    `json:"task"`
}

// Connector is one entry of GET /connectors?expand=status&expand=info.
type Connector struct {
	Status ConnectorStatus `json:"status"`
	Info   ConnectorInfo   `json:"info"`
}

// Connectors lists every connector with its status and info in one call.
func (c *Client) Connectors(ctx context.Context) (map[string]Connector, error) {
	// Each expansion is its own query parameter; Connect ignores "status,info".
	const path = "/connectors?expand=status&expand=info"
	data, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return nil, err
	}
	if first := firstByte(data); first == '[' {
		// Workers before 2.3 ignore expand and list bare names.
		var names []string
		if json.Unmarshal(data, &names) != nil {
			return nil, shapeError(http.MethodGet, path, "connector list", data)
		}
		return nil, fmt.Errorf("GET %s: Kafka Connect at %s ignored ?expand (it is older than 2.3)", path, c.shown)
	}
	out := map[string]Connector{}
	if err := decode(http.MethodGet, path, data, &out); err != nil {
		return nil, err
	}
	for name, cn := range out {
		if cn.Status.Connector.State == "" || cn.Info.Name == "" && cn.Status.Name == "" {
			return nil, shapeError(http.MethodGet, path, fmt.Sprintf("connector list (entry %q has no status.connector.state or name)", name), data)
		}
	}
	return out, nil
}

// Status is the connector's and its tasks' states.
func (c *Client) Status(ctx context.Context, name string) (ConnectorStatus, error) {
	var st ConnectorStatus
	path := connectorPath(name, "status")
	data, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return st, err
	}
	if err := decode(http.MethodGet, path, data, &st); err != nil {
		return st, err
	}
	if st.Name == "" || st.Connector.State == "" {
		return st, shapeError(http.MethodGet, path, "connector status (no name or connector.state)", data)
	}
	return st, nil
}

// ConnectorConfig is the connector's configuration (a flat string map that
// includes "name").
func (c *Client) ConnectorConfig(ctx context.Context, name string) (map[string]string, error) {
	cfg := map[string]string{}
	if err := c.getJSON(ctx, connectorPath(name, "config"), &cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// Topics is the connector's active topics (KIP-558). With
// topic.tracking.enable=false the error is Connect's 403
// "Topic tracking is disabled." (see IsTopicTrackingDisabled).
func (c *Client) Topics(ctx context.Context, name string) ([]string, error) {
	path := connectorPath(name, "topics")
	var body map[string]struct {
		Topics []string `json:"topics"`
	}
	if err := c.getJSON(ctx, path, &body); err != nil {
		return nil, err
	}
	entry, ok := body[name]
	if !ok {
		return nil, fmt.Errorf("GET %s: answer has no entry for connector %q", path, name)
	}
	if entry.Topics == nil {
		return []string{}, nil
	}
	return entry.Topics, nil
}

// Stop stops the connector and shuts its tasks down (3.5+, 204), the state
// offsets can be altered in. Idempotent.
func (c *Client) Stop(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodPut, connectorPath(name, "stop"), nil)
	return err
}

// Pause pauses the connector (202). Its tasks stay assigned, so a paused
// connector's offsets cannot be altered: use Stop for that.
func (c *Client) Pause(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodPut, connectorPath(name, "pause"), nil)
	return err
}

// Resume resumes a paused or stopped connector (202); a stopped one
// re-reads its offsets as it starts.
func (c *Client) Resume(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodPut, connectorPath(name, "resume"), nil)
	return err
}

// firstByte is the first non-space byte of a JSON body.
func firstByte(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}
