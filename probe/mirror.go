package probe

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"koff/kafka"
	"koff/model"
	"koff/model/resume"
)

// mirror checks a MirrorSourceConnector: each stored offset against its
// topic-partition's log on the source cluster the partition names.
func (c *Checker) mirror(ctx context.Context, s Source, at time.Time) resume.Connector {
	parts := make([]resume.MirrorPartition, 0, len(s.Offsets))
	byAlias := map[string][]int{}
	for _, o := range s.Offsets {
		m, err := resume.ParseMirrorOffset(o.Partition, o.Offset)
		mp := resume.MirrorPartition{Offset: m}
		if err != nil {
			mp.Err = err.Error()
		} else {
			byAlias[m.Cluster] = append(byAlias[m.Cluster], len(parts))
		}
		parts = append(parts, mp)
	}
	aliases := make([]string, 0, len(byAlias))
	for a := range byAlias {
		aliases = append(aliases, a)
	}
	sort.Strings(aliases)
	for _, alias := range aliases {
		idx := byAlias[alias]
		fail := func(why string) {
			for _, i := range idx {
				parts[i].Err = why
			}
		}
		cfg, err := c.sourceCluster(alias, s.Config)
		if err != nil {
			fail(err.Error())
			continue
		}
		var tps []model.TopicPartition
		for _, i := range idx {
			o := parts[i].Offset
			tps = append(tps, model.TopicPartition{Topic: o.Topic, Partition: o.Num})
		}
		pctx, cancel := context.WithTimeout(ctx, c.timeout())
		bounds, bad, err := cfg.TopicBounds(pctx, tps)
		cancel()
		if err != nil {
			fail(fmt.Sprintf("source cluster %s at %s: %s", alias, strings.Join(cfg.Brokers, ","), cfg.Describe(err)))
			continue
		}
		for k, i := range idx {
			if why := bad.Of(tps[k]); why != "" {
				parts[i].Err = "source cluster " + alias + ": " + why
				continue
			}
			b := bounds[tps[k]]
			parts[i].Log = resume.Log{Start: b[0], End: b[1]}
		}
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].Offset.Partition < parts[j].Offset.Partition })
	return resume.Mirror(s.Name, s.Class, s.Config, parts, at)
}

func (c *Checker) sourceCluster(alias string, config map[string]string) (kafka.Config, error) {
	if c.SourceCluster != nil {
		return c.SourceCluster(alias, config)
	}
	return PlainSourceCluster(alias, config)
}

// MirrorBootstrap is the bootstrap servers of a MirrorMaker 2 source
// cluster as the connector's config names them:
// source.cluster.bootstrap.servers (MirrorConnectorConfig's
// source.cluster. prefix), else ALIAS.bootstrap.servers (a MirrorMaker
// driver's mm2.properties).
func MirrorBootstrap(alias string, config map[string]string) []string {
	for _, k := range []string{"source.cluster.bootstrap.servers", alias + ".bootstrap.servers"} {
		var out []string
		for _, b := range strings.Split(config[k], ",") {
			if b = strings.TrimSpace(b); b != "" {
				out = append(out, b)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// PlainSourceCluster reaches a MirrorMaker 2 source cluster at the
// bootstrap servers its connector's config names, in PLAINTEXT: a cluster
// the config says needs TLS or SASL is refused, naming what koff needs.
func PlainSourceCluster(alias string, config map[string]string) (kafka.Config, error) {
	bs := MirrorBootstrap(alias, config)
	if len(bs) == 0 {
		return kafka.Config{}, fmt.Errorf("source cluster %s: the connector's config names no source.cluster.bootstrap.servers: name the cluster with --source-cluster %s=CONTEXT", alias, alias)
	}
	for _, k := range []string{"source.cluster.security.protocol", alias + ".security.protocol"} {
		if p := strings.ToUpper(strings.TrimSpace(config[k])); p != "" && p != "PLAINTEXT" {
			return kafka.Config{}, fmt.Errorf("source cluster %s speaks %s (%s): give koff its client settings with --source-cluster %s=CONTEXT or %s=FILE", alias, p, k, alias, alias)
		}
	}
	return kafka.Config{Brokers: bs, ClientID: "koff", DialTimeout: 3 * time.Second}, nil
}
