package demo

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"koff/model/java"
)

// TestOrphan: offsets of a connector deleted from Connect stay behind,
// written once before the demo; the REST API does not know it.
func TestOrphan(t *testing.T) {
	t.Parallel()
	opts := testOptions(t)
	c, api := startRESTCluster(t, opts)
	cl := kafkaClient(t, c.Bootstrap())
	if _, ok := c.Connector(OrphanConnector); ok || slices.Contains(c.Connectors(), OrphanConnector) {
		t.Errorf("Connectors() = %v lists the orphan", c.Connectors())
	}
	var names []string
	api.json("GET", "/connectors", "", 200, &names)
	if slices.Contains(names, OrphanConnector) {
		t.Errorf("GET /connectors = %v", names)
	}
	api.wantError("GET", "/connectors/jdbc-old-orders/config", "", 404, "Connector jdbc-old-orders not found")
	api.wantError("GET", "/connectors/jdbc-old-orders", "", 404, "Connector jdbc-old-orders not found")
	api.wantError("GET", "/connectors/jdbc-old-orders/status", "", 404, "No status found for connector jdbc-old-orders")
	api.wantError("GET", "/connectors/jdbc-old-orders/offsets", "", 404, "Connector jdbc-old-orders not found")
	api.wantError("PUT", "/connectors/jdbc-old-orders/stop", "", 404, "Unknown connector jdbc-old-orders")

	time.Sleep(4 * opts.FlushInterval)
	var orphan []rec
	for _, r := range readTopic(t, cl, OffsetsTopic, OffsetsPartitions) {
		if bytes.HasPrefix(r.key, []byte(`["jdbc-old-orders",`)) {
			orphan = append(orphan, r)
		}
	}
	if len(orphan) != 2 {
		t.Fatalf("%d records of the orphan, want its 2 last offsets", len(orphan))
	}
	for _, r := range orphan {
		checkRecordShape(t, r)
		if age := time.Since(r.time); age < 9*24*time.Hour {
			t.Errorf("orphan record %s is %s old, want days", r.key, age)
		}
		if r.partition != java.PartitionFor(r.key, OffsetsPartitions) {
			t.Errorf("orphan record %s in partition %d", r.key, r.partition)
		}
	}
}
