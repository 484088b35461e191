package connect

import (
	"context"
	"strconv"
	"strings"
)

// ServerInfo is the body of GET / (Connect's ServerInfo entity).
type ServerInfo struct {
	Version        string `json:"version"`
	Commit         string `json:"commit"`
	KafkaClusterID string `json:"kafka_cluster_id"`
}

// ServerInfo asks the worker for its version and Kafka cluster id.
func (c *Client) ServerInfo(ctx context.Context) (ServerInfo, error) {
	var info ServerInfo
	data, err := c.do(ctx, "GET", "/", nil)
	if err != nil {
		return info, err
	}
	if err := decode("GET", "/", data, &info); err != nil {
		return info, err
	}
	if info.Version == "" {
		return info, shapeError("GET", "/", "server info (no version)", data)
	}
	return info, nil
}

// AtLeast reports whether the worker runs Apache Kafka major.minor or newer.
// A version that cannot be parsed gives false: koff then falls back to the
// paths that need no REST support rather than guess.
func (s ServerInfo) AtLeast(major, minor int) bool {
	ma, mi, ok := apacheVersion(s.Version)
	if !ok {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// SupportsGetOffsets: GET /connectors/{name}/offsets and PUT .../stop (KIP-875, 3.5).
func (s ServerInfo) SupportsGetOffsets() bool { return s.AtLeast(3, 5) }

// SupportsStop is SupportsGetOffsets under the name of the other 3.5 feature.
func (s ServerInfo) SupportsStop() bool { return s.AtLeast(3, 5) }

// SupportsAlterOffsets: PATCH and DELETE /connectors/{name}/offsets (KIP-875, 3.6).
func (s ServerInfo) SupportsAlterOffsets() bool { return s.AtLeast(3, 6) }

// apacheVersion parses "3.6.1", "4.0.0-SNAPSHOT", "3.7.0-ce" and Confluent
// Platform versions, which Connect reports as CP's own number with a -ccs
// (community) or -ce (enterprise) suffix. CP numbers map onto the Apache
// Kafka release they ship:
//
//	CP 5.0–5.5 → AK 2.0–2.5
//	CP 6.0, 6.1, 6.2 → AK 2.6, 2.7, 2.8
//	CP 7.x → AK 3.x (7.5→3.5, 7.6→3.6, 7.7→3.7, 7.8→3.8, 7.9→3.9)
//	CP 8.x → AK 4.x (8.0→4.0); later CP majors are assumed to keep the
//	offset of 4 (every one of them is past 3.6 either way)
//
// A -ce or -ccs version below CP 5 is taken as the Apache number itself.
func apacheVersion(v string) (major, minor int, ok bool) {
	v = strings.TrimSpace(v)
	num, suffix, _ := strings.Cut(v, "-")
	num, _, _ = strings.Cut(num, "+")
	parts := strings.Split(num, ".")
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || major < 0 || minor < 0 {
		return 0, 0, false
	}
	if suffix = strings.ToLower(suffix); suffix == "ccs" || suffix == "ce" ||
		strings.HasPrefix(suffix, "ccs.") || strings.HasPrefix(suffix, "ce.") {
		switch {
		case major == 5:
			return 2, minor, true
		case major == 6:
			return 2, 6 + minor, true
		case major >= 7:
			return major - 4, minor, true
		}
	}
	return major, minor, true
}
