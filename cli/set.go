package cli

import (
	"github.com/spf13/pflag"

	"koff/edit"
)

type setOptions struct {
	writeFlags
	partition, offset string
}

func init() {
	register(&command{
		name:    "set",
		args:    "CONNECTOR --partition JSON --offset JSON [--dry-run] [--yes]",
		summary: "set the offset of one source partition (Connect REST when possible, else the offsets topic), then verify it",
		flags: func(fs *pflag.FlagSet) any {
			o := &setOptions{}
			fs.StringVar(&o.partition, "partition", "", `source partition map, e.g. '{"server":"inventory"}' (any field order matches the stored key)`)
			fs.StringVar(&o.offset, "offset", "", `new offset map, e.g. '{"lsn":123}'`)
			addWriteFlags(fs, &o.writeFlags)
			return o
		},
		run: runSet,
	})
}

func runSet(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*setOptions)
	if len(args) != 1 {
		return usagef("set needs exactly one CONNECTOR")
	}
	if o.partition == "" || o.offset == "" {
		return usagef("set needs --partition and --offset")
	}
	part, err := edit.ParsePartition(o.partition)
	if err != nil {
		return usagef("--partition: %v", err)
	}
	off, isNull, err := edit.ParseOffset(o.offset)
	if err != nil {
		return usagef("--offset: %v", err)
	}
	if isNull {
		return usagef("--offset null deletes the offset: use koff reset %s --partition ...", args[0])
	}
	s, err := openEditSession(g, env)
	if err != nil {
		return err
	}
	defer s.close()
	p, err := s.ed.Plan(s.ctx, edit.Request{Connector: args[0], Kind: edit.KindSet, Items: []edit.Item{{Partition: part, Offset: off}}})
	if err != nil {
		return err
	}
	return s.runPlans([]*edit.Plan{p}, o.writeFlags)
}
