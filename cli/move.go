package cli

import (
	"github.com/spf13/pflag"

	"koff/edit/planner"
)

type moveOptions struct {
	writeFlags
	to         string
	sameTopics bool
}

func init() {
	register(&command{
		name:    "move",
		args:    "NAME --to-context CTX [--same-topics] [--dry-run] [--yes]",
		summary: "move a connector to another Connect cluster (a koff context): stopped here, created there STOPPED with its config and offsets, read back there, then its offsets tombstoned and it deleted here, started there",
		flags: func(fs *pflag.FlagSet) any {
			o := &moveOptions{}
			addWriteFlags(fs, &o.writeFlags)
			fs.StringVar(&o.to, "to-context", "", "the koff context of the target Connect cluster (its bootstrap-servers, offsets-topics, config-topic, connect-url)")
			fs.BoolVar(&o.sameTopics, "same-topics", false, "a sink moved to another Kafka cluster: its topics there hold the same records at the same offsets, so its group's offsets are set there too")
			return o
		},
		run: func(g *Globals, opts any, args []string, env Env) error {
			o := opts.(*moveOptions)
			if len(args) != 1 {
				return usagef("move needs one connector NAME")
			}
			if o.to == "" {
				return usagef("move needs --to-context CTX (koff's contexts name the clusters)")
			}
			if g.contexts == nil || g.contexts.Contexts[o.to] == nil {
				have := []string{}
				if g.contexts != nil {
					have = g.contexts.names()
				}
				return usagef("--to-context %s: no such context in %s (have: %v)", o.to, g.contextFile, have)
			}
			if o.to == g.Context {
				return usagef("--to-context %s is the context koff is connected to: a move goes to another Connect cluster", o.to)
			}
			s, err := openEditSession(g, env)
			if err != nil {
				return err
			}
			defer s.close()
			op, err := s.ed.PlanMove(s.ctx, planner.MoveRequestOf{Name: args[0], To: o.to, SameTopics: o.sameTopics})
			if err != nil {
				return err
			}
			return s.runOperation(op, o.writeFlags, args[0])
		},
	})
}
