package cli

import (
	"github.com/spf13/pflag"

	"koff/edit/plan"
)

type copyOptions struct {
	writeFlags
	nameFlags
}

func init() {
	register(&command{
		name:    "copy",
		args:    "FROM TO [--dry-run] [--yes]",
		summary: "give connector TO every source offset of FROM (e.g. an orphan's, for the connector that replaces it)",
		flags: func(fs *pflag.FlagSet) any {
			o := &copyOptions{}
			addWriteFlags(fs, &o.writeFlags)
			addNameFlags(fs, &o.nameFlags, false)
			return o
		},
		run: func(g *Globals, opts any, args []string, env Env) error {
			o := opts.(*copyOptions)
			if len(args) != 2 {
				return usagef("copy needs FROM and TO connector names")
			}
			s, err := openEditSession(g, env)
			if err != nil {
				return err
			}
			defer s.close()
			req, err := s.ed.CopyRequest(args[0], args[1])
			if err != nil {
				return err
			}
			req.Create = o.create
			p, err := s.ed.Plan(s.ctx, req)
			if err != nil {
				return err
			}
			return s.runPlans([]*plan.Plan{p}, o.writeFlags)
		},
	})
}
