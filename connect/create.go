package connect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// CreateConnector is POST /connectors (201): a connector of this config
// (which Connect names after name) in an initial state, RUNNING, PAUSED or
// STOPPED (KIP-980, Connect 3.7+; "" leaves it out: RUNNING). A name taken
// is a 409 (IsConflict).
func (c *Client) CreateConnector(ctx context.Context, name string, config map[string]string, initial State) (ConnectorInfo, error) {
	req := struct {
		Name    string            `json:"name"`
		Config  map[string]string `json:"config"`
		Initial State             `json:"initial_state,omitempty"`
	}{name, config, initial}
	body, err := json.Marshal(req)
	if err != nil {
		return ConnectorInfo{}, err
	}
	data, err := c.do(ctx, http.MethodPost, "/connectors", body)
	if err != nil {
		return ConnectorInfo{}, err
	}
	var info ConnectorInfo
	if err := decode(http.MethodPost, "/connectors", data, &info); err != nil {
		return ConnectorInfo{}, err
	}
	if info.Name != name {
		return info, fmt.Errorf("POST /connectors: created %q, not %q", info.Name, name)
	}
	return info, nil
}

// DeleteConnector is DELETE /connectors/{name} (204): the connector and its
// config go; its offsets stay in the offsets topic.
func (c *Client) DeleteConnector(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodDelete, connectorPath(name, ""), nil)
	return err
}

// SupportsInitialState: POST /connectors takes initial_state (KIP-980,
// Apache Kafka 3.7).
func (s ServerInfo) SupportsInitialState() bool { return s.AtLeast(3, 7) }

// PutConnectorConfig is PUT /connectors/{name}/config (200) on a connector
// that exists: its config replaced whole; a STOPPED connector stays
// stopped (its target state is its own record in the config topic).
func (c *Client) PutConnectorConfig(ctx context.Context, name string, config map[string]string) error {
	body, err := json.Marshal(config)
	if err != nil {
		return err
	}
	_, err = c.do(ctx, http.MethodPut, connectorPath(name, "config"), body)
	return err
}
