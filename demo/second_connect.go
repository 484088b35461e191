package demo

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"koff/demo/rest"
)

// A second Connect cluster's group and internal topics, on the same
// broker: what a distributed worker of group.id connect-cluster-2 would be
// configured with.
const (
	SecondGroup        = "connect-cluster-2"
	SecondOffsetsTopic = "connect-cluster-2-offsets"
	SecondConfigTopic  = "connect-cluster-2-configs"
	SecondStatusTopic  = "connect-cluster-2-status"
)

// StartSecondConnect starts a second Connect cluster on the demo's broker:
// its own workers, its own offsets, config and status topics, its own
// REST emulator on listen, and no connectors until some are created there
// (POST /connectors), so that moving a connector from one Connect cluster
// to another can be tried without setup. It closes with the first. Its
// workers lack the plugins without names (connector classes): GET
// /connector-plugins does not list them and a create of one is refused,
// as on workers whose plugin.path misses a connector.
func (c *Cluster) StartSecondConnect(listen string, without ...string) (*Cluster, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	compact := map[string]string{"cleanup.policy": "compact"}
	// Connect's defaults: 25 offsets partitions, 1 config, 5 status.
	for _, t := range []struct {
		name string
		n    int
	}{{SecondOffsetsTopic, OffsetsPartitions}, {SecondConfigTopic, 1}, {SecondStatusTopic, 5}} {
		if err := c.broker.createTopic(ctx, t.name, t.n, compact); err != nil {
			return nil, err
		}
	}
	w := &worker{
		bootstrap:         c.w.bootstrap,
		offsetsTopic:      SecondOffsetsTopic,
		offsetsPartitions: OffsetsPartitions,
		topicPartitions:   map[string]int{},
		flushInterval:     c.w.flushInterval,
		pollInterval:      c.w.pollInterval,
		stallAfter:        c.w.stallAfter,
		epoch:             time.Now(),
		logf:              func(format string, args ...any) { c.w.logf(SecondGroup+": "+format, args...) },
		security:          c.w.security,
	}
	var err error
	w.client, err = kgo.NewClient(w.clientOpts(
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.WithLogger(kgoLogger{w.logf}),
	)...)
	if err != nil {
		return nil, fmt.Errorf("producer: %w", err)
	}
	s := &Cluster{broker: c.broker, w: w, connectors: map[string]*connector{}, configTopic: SecondConfigTopic,
		sec: c.sec, version: c.version, restAuth: c.restAuth, shared: true}
	for _, class := range without {
		if s.without == nil {
			s.without = map[string]bool{}
		}
		s.without[class] = true
	}
	if s.rest, err = rest.Start(herder{s}, listen, c.version, rest.Security{TLS: c.sec.server, Auth: c.restAuth}); err != nil {
		w.client.Close()
		return nil, err
	}
	c.mu.Lock()
	c.seconds = append(c.seconds, s)
	c.mu.Unlock()
	w.logf("connect REST on %s (version %s), offsets %s, configs %s, status %s",
		s.rest.URL(), s.rest.Version(), SecondOffsetsTopic, SecondConfigTopic, SecondStatusTopic)
	return s, nil
}

// Without are the connector classes this cluster's workers lack, sorted.
func (c *Cluster) Without() []string {
	out := make([]string, 0, len(c.without))
	for k := range c.without {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
