package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"koff/model/resume"
)

type checkOptions struct {
	output     string
	partitions bool
	timeout    time.Duration
	group      string
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
	if o.timeout <= 0 {
		return usagef("--timeout must be positive")
	}
	if err := g.needBootstrap(); err != nil {
		return err
	}
	if o.group != "" && len(args) != 1 {
		return usagef("--group names one sink's consumer group: name exactly one CONNECTOR")
	}
	ck, err := g.resumeChecker()
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
