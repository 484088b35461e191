package probe

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"koff/kafka"
	"koff/model"
	"koff/model/resume"
)

// mirror checks a MirrorSourceConnector: each stored offset against its
// topic-partition's log on the source cluster the partition names. With
// c.Keep, the offsets parsed at the last check are parsed again only when
// they changed, and a check whose every log says what it said then is
// that check again (its Partitions the same slice), checked now.
func (c *Checker) mirror(ctx context.Context, s Source, at time.Time) resume.Connector {
	start := time.Now()
	k := c.Keep.mirror(s.Name)
	if k == nil || !maps.Equal(k.config, s.Config) || !sameOffsets(k.offsets, s.Offsets) && !slices.Equal(k.offsets, s.Offsets) {
		k = parseMirror(s)
	}
	parts := k.parts // written only through write, which copies it first
	copied := false
	write := func(i int, log resume.Log, err string) {
		if parts[i].Log == log && parts[i].Err == err {
			return
		}
		if !copied {
			parts, copied = slices.Clone(parts), true
		}
		parts[i].Log, parts[i].Err = log, err
	}
	for _, alias := range k.aliases {
		idx, tps := k.byAlias[alias], k.tps[alias]
		fail := func(why string) {
			for _, i := range idx {
				write(i, resume.Log{}, why)
			}
		}
		cfg, err := c.sourceCluster(alias, s.Config)
		if err != nil {
			fail(err.Error())
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, c.timeout())
		bounds, bad, err := cfg.TopicBounds(pctx, tps)
		cancel()
		if err != nil {
			fail(fmt.Sprintf("source cluster %s at %s: %s", alias, strings.Join(cfg.Brokers, ","), cfg.Describe(err)))
			continue
		}
		for j, i := range idx {
			if why := bad.Of(tps[j]); why != "" {
				write(i, resume.Log{}, "source cluster "+alias+": "+why)
				continue
			}
			b := bounds[tps[j]]
			write(i, resume.Log{Start: b[0], End: b[1]}, "")
		}
	}
	if !copied && k.judged {
		again := *k
		again.result.Checked = at
		again.took = time.Since(start)
		c.Keep.keep(s.Name, &again)
		return again.result
	}
	out := &mirrorKept{offsets: k.offsets, config: k.config, parts: parts, aliases: k.aliases, byAlias: k.byAlias, tps: k.tps, judged: true}
	out.result = resume.Mirror(s.Name, s.Class, s.Config, parts, at)
	out.took = time.Since(start)
	c.Keep.keep(s.Name, out)
	return out.result
}

// mirrorKept is a MirrorMaker 2 connector's offsets parsed, sorted by
// partition, each with the log (or why none) it was judged by, and the
// partitions of each source cluster alias by place in parts.
type mirrorKept struct {
	offsets []Offset
	config  map[string]string
	parts   []resume.MirrorPartition
	aliases []string
	byAlias map[string][]int
	tps     map[string][]model.TopicPartition
	judged  bool // result is the judgement of parts
	result  resume.Connector
	took    time.Duration // what the check took, parsing and asking included
}

func parseMirror(s Source) *mirrorKept {
	k := &mirrorKept{offsets: s.Offsets, config: s.Config, parts: make([]resume.MirrorPartition, 0, len(s.Offsets)),
		byAlias: map[string][]int{}, tps: map[string][]model.TopicPartition{}}
	for _, o := range s.Offsets {
		m, err := resume.ParseMirrorOffset(o.Partition, o.Offset)
		mp := resume.MirrorPartition{Offset: m}
		if err != nil {
			mp.Err = err.Error()
		}
		k.parts = append(k.parts, mp)
	}
	sort.SliceStable(k.parts, func(i, j int) bool { return k.parts[i].Offset.Partition < k.parts[j].Offset.Partition })
	for i, mp := range k.parts {
		if mp.Err != "" {
			continue
		}
		a := mp.Offset.Cluster
		k.byAlias[a] = append(k.byAlias[a], i)
		k.tps[a] = append(k.tps[a], model.TopicPartition{Topic: mp.Offset.Topic, Partition: mp.Offset.Num})
	}
	for a := range k.byAlias {
		k.aliases = append(k.aliases, a)
	}
	sort.Strings(k.aliases)
	return k
}

// sameOffsets reports whether a and b are the same slice: a poller hands
// the same offsets again only when none changed (offsets read again may
// still be the same: compared then).
func sameOffsets(a, b []Offset) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// Kept is what a Checker that checks again and again (the live views'
// resume poller) keeps from check to check: each MirrorMaker 2
// connector's offsets parsed and the check they made. A Checker without
// one (koff check) keeps nothing.
type Kept struct {
	mu      sync.Mutex
	mirrors map[string]*mirrorKept
}

func (k *Kept) mirror(name string) *mirrorKept {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.mirrors[name]
}

func (k *Kept) keep(name string, m *mirrorKept) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.mirrors == nil {
		k.mirrors = map[string]*mirrorKept{}
	}
	k.mirrors[name] = m
}

// Took is what the last check of the MirrorMaker 2 connector name took
// (0: none kept): a poller waits in proportion to it before the next.
func (k *Kept) Took(name string) time.Duration {
	if m := k.mirror(name); m != nil {
		return m.took
	}
	return 0
}

// Forget drops what is kept of connectors not checked (deleted, or no
// longer checked).
func (k *Kept) Forget(checked func(name string) bool) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for name := range k.mirrors {
		if !checked(name) {
			delete(k.mirrors, name)
		}
	}
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
