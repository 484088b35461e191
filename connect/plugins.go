package connect

import (
	"context"
)

// Plugin is one connector plugin the workers have.
type Plugin struct {
	Class   string `json:"class"`
	Type    string `json:"type"`
	Version string `json:"version"`
}

// ConnectorPlugins is GET /connector-plugins: the connector classes the
// workers of this Connect cluster can run.
func (c *Client) ConnectorPlugins(ctx context.Context) ([]Plugin, error) {
	var out []Plugin
	if err := c.getJSON(ctx, "/connector-plugins", &out); err != nil {
		return nil, err
	}
	return out, nil
}
