package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"koff/edit"
	"koff/model"
)

type undoOptions struct{ writeFlags }

func init() {
	register(&command{
		name:    "undo",
		args:    "[CONNECTOR] [--dry-run] [--yes]",
		summary: "put back the before-values of the last edit in the audit log (of CONNECTOR), as a new planned edit",
		flags: func(fs *pflag.FlagSet) any {
			o := &undoOptions{}
			addWriteFlags(fs, &o.writeFlags)
			return o
		},
		run: runUndo,
	})
}

func runUndo(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*undoOptions)
	if len(args) > 1 {
		return usagef("undo takes at most one CONNECTOR")
	}
	name := ""
	if len(args) == 1 {
		name = args[0]
	}
	s, err := openEditSession(g, env)
	if err != nil {
		return err
	}
	defer s.close()
	req, entry, err := s.ed.UndoRequestContext(s.ctx, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Undoing the %s of %s by %s at %s\n", model.Sanitize(string(entry.Kind)), model.Sanitize(entry.Connector), model.Sanitize(entry.User), entry.Time.Local().Format(time.RFC3339))
	switch entry.Result {
	case edit.ResultPartial, edit.ResultInterrupted:
		fmt.Fprintf(env.Stdout, "  it was %s: %d of its %d partitions reached the log (%s); only those are put back\n",
			entry.Result, len(req.Items), len(entry.Changes), model.Sanitize(strings.Join(entry.Written, ", ")))
	}
	p, err := s.ed.Plan(s.ctx, req)
	if err != nil {
		return err
	}
	return s.runPlans([]*edit.Plan{p}, o.writeFlags)
}
