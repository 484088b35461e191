package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"koff/edit/plan"
	"koff/edit/planner"
)

type resetOptions struct {
	writeFlags
	nameFlags
	partitions []string
}

func init() {
	register(&command{
		name:    "reset",
		args:    "CONNECTOR [--partition JSON]... [--dry-run] [--yes]",
		summary: "delete the offsets of some source partitions, or of the whole connector, then verify",
		flags: func(fs *pflag.FlagSet) any {
			o := &resetOptions{}
			fs.StringArrayVar(&o.partitions, "partition", nil, "source partition map to reset (repeatable); none resets every partition")
			addWriteFlags(fs, &o.writeFlags)
			addNameFlags(fs, &o.nameFlags, true)
			return o
		},
		run: runReset,
	})
}

func runReset(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*resetOptions)
	if len(args) != 1 {
		return usagef("reset needs exactly one CONNECTOR")
	}
	req := plan.Request{Connector: args[0], Kind: plan.KindResetAll, Create: o.create, Group: o.group}
	for _, ps := range o.partitions {
		part, err := plan.ParsePartition(ps)
		if err != nil {
			return usagef("--partition: %v", err)
		}
		req.Kind = plan.KindReset
		req.Items = append(req.Items, plan.Item{Partition: part})
	}
	s, err := openEditSession(g, env)
	if err != nil {
		return err
	}
	defer s.close()
	p, err := s.ed.Plan(s.ctx, req)
	var none *planner.NothingToResetError
	if errors.As(err, &none) {
		// Connect answers a second DELETE with 200: a reset that finds
		// nothing left has nothing to do, and that is no failure.
		fmt.Fprintln(env.Stdout, none.Error())
		return nil
	}
	if err != nil {
		return err
	}
	return s.runPlans([]*plan.Plan{p}, o.writeFlags)
}
