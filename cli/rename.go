package cli

import (
	"github.com/spf13/pflag"
)

type renameOptions struct {
	writeFlags
}

func init() {
	register(&command{
		name:    "rename",
		args:    "OLD NEW [--dry-run] [--yes]",
		summary: "rename a connector with its config and offsets: NEW created STOPPED with OLD's offsets, OLD's tombstoned and OLD deleted, NEW put in the state OLD was in",
		flags: func(fs *pflag.FlagSet) any {
			o := &renameOptions{}
			addWriteFlags(fs, &o.writeFlags)
			return o
		},
		run: func(g *Globals, opts any, args []string, env Env) error {
			o := opts.(*renameOptions)
			if len(args) != 2 {
				return usagef("rename needs the OLD and the NEW connector name")
			}
			s, err := openEditSession(g, env)
			if err != nil {
				return err
			}
			defer s.close()
			op, err := s.ed.PlanRename(s.ctx, args[0], args[1])
			if err != nil {
				return err
			}
			return s.runOperation(op, o.writeFlags, args[1])
		},
	})
}
