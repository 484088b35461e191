package demo

import (
	"context"
	"sort"

	"koff/demo/rest"

	"github.com/twmb/franz-go/pkg/kgo"
)

// herder is the cluster as its Connect REST emulator sees it (Herder).
type herder struct{ c *Cluster }

func (h herder) Connectors() []string { return h.c.Connectors() }

func (h herder) Connector(name string) (rest.Connector, bool) {
	conn, ok := h.c.lookup(name)
	if !ok {
		return nil, false
	}
	return restConnector{h.c, conn}, true
}

func (h herder) StopConnector(name string) error   { return h.c.StopConnector(name) }
func (h herder) PauseConnector(name string) error  { return h.c.PauseConnector(name) }
func (h herder) ResumeConnector(name string) error { return h.c.ResumeConnector(name) }
func (h herder) CreateConnector(config map[string]string, state string) error {
	return h.c.CreateConnector(config, state)
}
func (h herder) UpdateConnector(config map[string]string) error { return h.c.UpdateConnector(config) }
func (h herder) DeleteConnector(name string) error              { return h.c.DeleteConnector(name) }
func (h herder) Plugins() []rest.Plugin                         { return plugins(h.c.version, h.c.without) }
func (h herder) Client() *kgo.Client                            { return h.c.w.client }
func (h herder) Logf(format string, args ...any)                { h.c.w.logf(format, args...) }

// restConnector is one simulated connector as the emulator sees it
// (Connector).
type restConnector struct {
	c    *Cluster
	conn *connector
}

func (r restConnector) Lock()                     { r.conn.mu.Lock() }
func (r restConnector) Unlock()                   { r.conn.mu.Unlock() }
func (r restConnector) Name() string              { return r.conn.spec.name }
func (r restConnector) Class() string             { return r.conn.spec.class }
func (r restConnector) Type() string              { return r.conn.spec.kind() }
func (r restConnector) Group() string             { return r.conn.spec.group() }
func (r restConnector) Config() map[string]string { return r.conn.config(r.c.Bootstrap()) }
func (r restConnector) PluginVersion(kafka string) string {
	return pluginVersion(r.conn.spec.class, kafka)
}
func (r restConnector) State() string         { return r.c.ConnectorState(r.conn.spec.name) }
func (r restConnector) Stopped() bool         { return r.conn.state == stateStopped }
func (r restConnector) ReportedState() string { return r.c.reportedState(r.conn.spec.name) }
func (r restConnector) Tasks() int {
	// A connector created PAUSED or STOPPED has no task configs until
	// it first runs.
	r.conn.mu.Lock()
	defer r.conn.mu.Unlock()
	if r.conn.restarts == 0 {
		return 0
	}
	return r.conn.spec.taskCount()
}
func (r restConnector) TaskFailed(task int) bool { return r.c.taskFailed(r.conn.spec.name, task) }
func (r restConnector) OffsetsTopic() string     { return r.conn.offsetsTopic() }
func (r restConnector) OffsetsPartitions() int   { return r.c.w.offsetsPartitions }

func (r restConnector) ActiveTopics(ctx context.Context) ([]string, error) {
	if r.conn.spec.sink != nil {
		return r.conn.consumedTopics(), nil
	}
	produced, err := r.c.w.producedTo(ctx, r.conn.spec.topics)
	if err != nil {
		return nil, err
	}
	sort.Strings(produced)
	return produced, nil
}

func (r restConnector) Offsets(ctx context.Context) (rest.StoreView, error) { return r.conn.view(ctx) }

func (r restConnector) WriteOffsets(ctx context.Context, recs []*kgo.Record, tombstonesFirst bool) error {
	return r.conn.writeEdit(ctx, recs, tombstonesFirst)
}
