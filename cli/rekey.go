package cli

import (
	"github.com/spf13/pflag"

	"koff/edit/planner"
)

type rekeyOptions struct {
	writeFlags
	set, where, config []string
	rename             string
}

func init() {
	register(&command{
		name:    "rekey",
		args:    "NAME --set FIELD=VALUE [--where FIELD=VALUE]... [--config KEY=VALUE]... [--rename NEW] [--dry-run] [--yes]",
		summary: "rewrite a field of a connector's source partitions: new keys with the old offsets byte for byte, the old keys tombstoned, its config changed with them; stopped first and put back as it was",
		flags: func(fs *pflag.FlagSet) any {
			o := &rekeyOptions{}
			addWriteFlags(fs, &o.writeFlags)
			fs.StringArrayVar(&o.set, "set", nil, "FIELD=VALUE: the partitions' new value of FIELD (repeatable)")
			fs.StringArrayVar(&o.where, "where", nil, "FIELD=VALUE: rekey only the partitions whose FIELD has this value (repeatable)")
			fs.StringArrayVar(&o.config, "config", nil, "KEY=VALUE: a config change made in the same operation, e.g. topic.prefix=dbz2 (repeatable)")
			fs.StringVar(&o.rename, "rename", "", "NEW: rename it in the same operation (koff rename's steps, its offsets copied under NEW with the new keys; the new name typed to confirm)")
			return o
		},
		run: func(g *Globals, opts any, args []string, env Env) error {
			o := opts.(*rekeyOptions)
			if len(args) != 1 {
				return usagef("rekey needs one connector NAME")
			}
			if len(o.set) == 0 {
				return usagef("rekey needs --set FIELD=VALUE")
			}
			req, err := planner.NewRekeyRequest(args[0], o.set, o.where, o.config, o.rename)
			if err != nil {
				return usagef("%s", err)
			}
			s, err := openEditSession(g, env)
			if err != nil {
				return err
			}
			defer s.close()
			op, err := s.ed.PlanRekey(s.ctx, req)
			if err != nil {
				return err
			}
			return s.runOperation(op, o.writeFlags, o.rename)
		},
	})
}
