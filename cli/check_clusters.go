package cli

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"koff/kafka"
	"koff/kafka/security"
	"koff/probe"
)

// sourceClusters reads --source-cluster ALIAS=CONTEXT|FILE: how koff
// reaches a MirrorMaker 2 source cluster, by the alias its offsets name.
// A cluster named by neither is the main cluster when the connector's
// source.cluster.bootstrap.servers are koff's -b (MirrorMaker run beside
// the cluster it copies from), else PLAINTEXT to those servers.
func (g *Globals) sourceClusters(specs []string) (func(string, map[string]string) (kafka.Config, error), error) {
	named := map[string]kafka.Config{}
	// The context's source-clusters first: a flag names one again.
	for _, alias := range slices.Sorted(maps.Keys(g.contextSourceClusters)) {
		cfg, err := g.clusterOf(strings.TrimSpace(g.contextSourceClusters[alias]))
		if err != nil {
			return nil, usagef("context %s: source-clusters: %s: %v", g.Context, alias, err)
		}
		named[alias] = cfg
	}
	for _, spec := range specs {
		alias, what, ok := strings.Cut(spec, "=")
		alias, what = strings.TrimSpace(alias), strings.TrimSpace(what)
		if !ok || alias == "" || what == "" {
			return nil, usagef("--source-cluster wants ALIAS=CONTEXT or ALIAS=FILE, got %q", spec)
		}
		cfg, err := g.clusterOf(what)
		if err != nil {
			return nil, usagef("--source-cluster %s: %v", alias, err)
		}
		named[alias] = cfg
	}
	return func(alias string, config map[string]string) (kafka.Config, error) {
		bs := probe.MirrorBootstrap(alias, config)
		if cfg, ok := named[alias]; ok {
			if len(cfg.Brokers) == 0 {
				cfg.Brokers = bs
			}
			if len(cfg.Brokers) == 0 {
				return kafka.Config{}, fmt.Errorf("source cluster %s: neither --source-cluster nor the connector's config names its bootstrap servers", alias)
			}
			return cfg, nil
		}
		if len(bs) > 0 && sameServers(bs, g.Bootstrap) {
			return g.kafkaConfig(), nil
		}
		return probe.PlainSourceCluster(alias, config)
	}, nil
}

// clusterOf is the Kafka client of a koff context, or of a file of Kafka
// client properties.
func (g *Globals) clusterOf(what string) (kafka.Config, error) {
	var s security.Settings
	var err error
	var c *contextSpec
	if g.contexts != nil {
		c = g.contexts.Contexts[what]
	}
	if c != nil {
		if c.CommandConfig != "" {
			if s, err = security.LoadCommandConfig(c.CommandConfig); err != nil {
				return kafka.Config{}, err
			}
		}
		if len(c.BootstrapServers) > 0 {
			s.Bootstrap = c.BootstrapServers
		}
	} else {
		if _, err := os.Stat(what); err != nil {
			return kafka.Config{}, fmt.Errorf("%s is neither a context in %s nor a readable file", what, g.contextFile)
		}
		if s, err = security.LoadCommandConfig(what); err != nil {
			return kafka.Config{}, err
		}
	}
	sec, err := s.Build()
	if err != nil {
		return kafka.Config{}, err
	}
	id := s.ClientID
	if id == "" {
		id = "koff"
	}
	return kafka.Config{Brokers: s.Bootstrap, ClientID: id, Security: sec, DialTimeout: 3 * time.Second}, nil
}

func sameServers(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
