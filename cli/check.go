package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"koff/model/resume"
	"koff/model/store"
	"koff/probe"
)

type checkOptions struct {
	output         string
	partitions     bool
	timeout        time.Duration
	probeTimeout   time.Duration
	sourceClusters []string
	group          string
}

func init() {
	register(&command{
		name:    "check",
		args:    "[CONNECTOR...] [-o table|json] [--partitions] [--source-cluster ALIAS=CONTEXT|FILE]... [--group G]",
		summary: "will each connector resume where its offsets say? Per partition resumes, gap, replay or unknown, and what the connector then does; exits 0 when every one resumes, 6 when one has a gap or a replay, 7 when one could not be checked (and none has a gap or replay)",
		flags: func(fs *pflag.FlagSet) any {
			o := &checkOptions{}
			fs.StringVarP(&o.output, "output", "o", "table", "table, or json: every connector and partition, with positions, amounts, actions and reasons")
			fs.BoolVar(&o.partitions, "partitions", false, "table: list every partition, also those that resume (default: only those that do not)")
			fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "give up reading the offsets topics after this long")
			fs.DurationVar(&o.probeTimeout, "probe-timeout", probe.DefaultTimeout, "how long each system a check looks at (a topic's cluster, a MirrorMaker source cluster, a database) may take to answer; past it, unknown")
			fs.StringArrayVar(&o.sourceClusters, "source-cluster", nil, "ALIAS=CONTEXT or ALIAS=FILE: reach MirrorMaker 2's source cluster ALIAS with a koff context's bootstrap-servers and command-config, or with Kafka client properties (as --command-config; bootstrap.servers else the connector's source.cluster.bootstrap.servers) (repeatable)")
			fs.StringVar(&o.group, "group", "", sinkGroupFlagHelp)
			return o
		},
		run: runCheck,
	})
}

// Exit codes of koff check: a script pages on 6, and on 7 knows that
// koff could not tell (codes 3 to 5 are other commands').
const (
	ExitResumeGap     = 6
	ExitResumeUnknown = 7
)

// resumeError is koff check's verdict when not every connector resumes.
type resumeError struct {
	code int
	msg  string
}

func (e resumeError) Error() string { return e.msg }

func runCheck(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*checkOptions)
	if o.output != "table" && o.output != "json" {
		return usagef("-o must be table or json, got %q", o.output)
	}
	if o.timeout <= 0 || o.probeTimeout <= 0 {
		return usagef("--timeout and --probe-timeout must be positive")
	}
	if err := g.needBootstrap(); err != nil {
		return err
	}
	if o.group != "" && len(args) != 1 {
		return usagef("--group names one sink's consumer group: name exactly one CONNECTOR")
	}
	clusters, err := g.sourceClusters(o.sourceClusters)
	if err != nil {
		return err
	}
	dbs, err := checkDatabases(g, o.probeTimeout)
	if err != nil {
		return err
	}
	st, err := loadStore(g, env, o.timeout, true)
	if err != nil {
		return err
	}
	if o.group != "" {
		ctx, cancel := context.WithTimeout(env.Context, o.timeout)
		err := nameSinkGroup(ctx, g, st, args[0], o.group)
		cancel()
		if err != nil {
			return err
		}
	}
	conns, err := selectConnectors(st, args, g, true)
	if err != nil {
		return withRESTDown(st, err)
	}
	warnLookAlike(env.Stderr, st.ConnectorList(), args)
	sources := checkSources(st, conns)
	ck := &probe.Checker{Kafka: g.kafkaConfig(), SourceCluster: clusters, Databases: dbs, Timeout: o.probeTimeout}
	ctx, cancel := context.WithCancel(env.Context)
	defer cancel()
	results := ck.Check(ctx, sources)
	if o.output == "json" {
		err = printCheckJSON(env, results)
	} else {
		err = printCheckTable(env, results, o.partitions)
	}
	if err != nil {
		return err
	}
	return checkVerdict(results)
}

// checkDatabases is the database checks of Debezium connectors, with the
// credentials of --db-pass-file; without it none (they are unknown, saying
// how to name credentials). A file koff must not read is a usage error.
func checkDatabases(g *Globals, timeout time.Duration) (probe.DatabaseCheck, error) {
	if g.DBPassFile == "" {
		return nil, nil
	}
	d, err := probe.NewDatabases(g.DBPassFile, timeout)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return d, nil
}

// checkSources are the selected connectors as the check sees them: class
// and config from REST, else from the config topic; a source's offsets
// as its tasks read them (the live copy in the topic its tasks read); a
// sink's group.
func checkSources(st *store.Store, conns map[string]*selected) []probe.Source {
	types := map[string]string{}
	absent := map[string]bool{}
	for _, c := range st.ConnectorList() {
		if types[c.ID.Name] != "sink" {
			types[c.ID.Name] = c.Type
		}
		if c.Orphaned || c.Unconfigured {
			absent[c.ID.Name] = true
		}
	}
	rest := st.REST().Connectors
	var out []probe.Source
	for _, name := range sortedNames(conns) {
		s := conns[name]
		src := probe.Source{Name: name, Type: types[name], Group: s.group}
		if c, ok := rest[name]; ok && c.Config != nil {
			src.Config = c.Config
		} else if cc, ok := st.ConnectorConfig(name); ok && cc.Config != nil {
			src.Config = cc.Config
		}
		src.Class = strings.TrimSpace(src.Config["connector.class"])
		if s.group != "" {
			src.Type = "sink"
		}
		seen := map[string]bool{}
		for _, id := range s.ids {
			if s.other[id.Topic] {
				continue
			}
			for _, r := range st.Partitions(id) {
				if r.Live && r.TaskReads != "" && !seen[r.Partition] {
					seen[r.Partition] = true
					src.Offsets = append(src.Offsets, probe.Offset{Partition: r.Partition, Offset: r.TaskReads})
				}
			}
		}
		if src.Type == "" {
			src.Type = "source"
		}
		if absent[name] && src.Config == nil {
			src.Absent = "not in Connect: a new connector named " + name + " would resume from these offsets"
		}
		out = append(out, src)
	}
	return out
}

// checkVerdict is the exit: 0 when every connector resumes, 6 when one
// has a gap or a replay, else 7 when one could not be checked.
func checkVerdict(results []resume.Connector) error {
	var bad, unknown []string
	for _, c := range results {
		switch s := c.State(); s {
		case resume.Gap, resume.Replay:
			bad = append(bad, fmt.Sprintf("%s (%s)", field(c.Name), s))
		case resume.Unknown:
			unknown = append(unknown, field(c.Name))
		}
	}
	switch {
	case len(bad) > 0:
		return resumeError{ExitResumeGap, fmt.Sprintf("%s not resume where %s offsets say: %s", countOf(len(bad), "connector does", "connectors do"), theirs(len(bad)), strings.Join(bad, ", "))}
	case len(unknown) > 0:
		return resumeError{ExitResumeUnknown, fmt.Sprintf("%s not be checked: %s", countOf(len(unknown), "connector could", "connectors could"), strings.Join(unknown, ", "))}
	}
	return nil
}

func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func theirs(n int) string {
	if n == 1 {
		return "its"
	}
	return "their"
}

// sortResults puts the connectors that need a look first: gap, replay,
// unknown, then those that resume; by name within each.
func sortResults(rs []resume.Connector) []resume.Connector {
	out := append([]resume.Connector(nil), rs...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].State(), out[j].State()
		if a != b {
			return a.Worse(b)
		}
		return out[i].Name < out[j].Name
	})
	return out
}
