package connect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// Offsets is the body of GET /connectors/{name}/offsets (ConnectorOffsets),
// and the body PATCH accepts.
type Offsets struct {
	Offsets []Offset `json:"offsets"`
}

// Offset is one partition's offset with both halves as the raw bytes Connect
// sent: numbers beyond 2^53 and field order survive untouched, and a reset
// partition's "offset": null stays the literal null.
type Offset struct {
	Partition json.RawMessage `json:"partition"`
	Offset    json.RawMessage `json:"offset"`
}

// RawOffsets is the body of GET /connectors/{name}/offsets byte for byte,
// what `koff get NAME -o json` prints. Needs Connect 3.5+.
func (c *Client) RawOffsets(ctx context.Context, name string) ([]byte, error) {
	return c.do(ctx, http.MethodGet, connectorPath(name, "offsets"), nil)
}

// Offsets is GET /connectors/{name}/offsets split into partitions, without
// decoding any value (json.RawMessage keeps the bytes as they came).
func (c *Client) Offsets(ctx context.Context, name string) (Offsets, error) {
	path := connectorPath(name, "offsets")
	data, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return Offsets{}, err
	}
	var o struct {
		Offsets *[]Offset `json:"offsets"`
	}
	if err := decode(http.MethodGet, path, data, &o); err != nil {
		return Offsets{}, err
	}
	if o.Offsets == nil {
		return Offsets{}, shapeError(http.MethodGet, path, `offsets body (no "offsets" list)`, data)
	}
	return Offsets{Offsets: *o.Offsets}, nil
}

// AlterOffsets PATCHes the connector's offsets with body sent verbatim
// ({"offsets":[{"partition":…,"offset":…|null}]}); partitions not listed are
// untouched. The connector must be STOPPED (Connect 3.6+). It returns
// Connect's success message, which says whether offsets the connector keeps
// outside Connect still need changing.
func (c *Client) AlterOffsets(ctx context.Context, name string, body []byte) (string, error) {
	path := connectorPath(name, "offsets")
	// Connect answers malformed JSON with a 500 and a Jackson stack message;
	// catching it here gives the operator a line they can act on.
	if !json.Valid(body) {
		return "", fmt.Errorf("PATCH %s: the offsets body is not valid JSON", path)
	}
	return c.modify(ctx, http.MethodPatch, path, body)
}

// ResetOffsets DELETEs all of the connector's offsets (Connect 3.6+, STOPPED
// only) and returns Connect's success message.
func (c *Client) ResetOffsets(ctx context.Context, name string) (string, error) {
	return c.modify(ctx, http.MethodDelete, connectorPath(name, "offsets"), nil)
}

func (c *Client) modify(ctx context.Context, method, path string, body []byte) (string, error) {
	data, err := c.doWithin(ctx, max(c.timeout, ModifyTimeout), method, path, body)
	if err != nil {
		return "", err
	}
	var msg struct {
		Message string `json:"message"`
	}
	if err := decode(method, path, data, &msg); err != nil {
		return "", err
	}
	return msg.Message, nil
}
