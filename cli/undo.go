package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/pflag"

	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/undo"
	"koff/model"
	"koff/model/text"
)

type undoOptions struct {
	writeFlags
	edit  string
	force bool
}

func init() {
	register(&command{
		name:    "undo",
		args:    "[CONNECTOR] [--edit ID] [--force] [--dry-run] [--yes]",
		summary: "put back the before-values of the last edit of this cluster in the audit log (of CONNECTOR, or the edit ID), as a new planned edit",
		flags: func(fs *pflag.FlagSet) any {
			o := &undoOptions{}
			addWriteFlags(fs, &o.writeFlags)
			fs.StringVar(&o.edit, "edit", "", "undo this edit (its id as koff audit lists it, or any part of it only that id has: its start, its random end) instead of the last one")
			fs.BoolVar(&o.force, "force", false, "undo even though a partition no longer holds what the edit wrote (a task flushed since, or another tool wrote): overwrites that newer value")
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
	u, err := s.ed.FindUndo(s.ctx, undo.Query{Connector: name, EditID: o.edit})
	var skipped *undo.AuditReadError
	switch {
	case errors.As(err, &skipped):
		warnUnreadable(env, skipped.Unreadable)
		err = skipped.Err // said on stderr just above
	case err == nil:
		warnUnreadable(env, u.Unreadable)
	}
	var amb *audit.AmbiguousEditError
	if errors.As(err, &amb) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	printUndo(env, u)
	// Going past newer edits that wrote nothing needs the edit named, or a
	// yes: --yes, or the prompt on a terminal (which names it above).
	older := o.edit != "" || o.yes || o.dryRun || stdinIsTerminal(env)
	if err := u.Refusal(o.force, older); err != nil {
		if !o.dryRun {
			return err
		}
		fmt.Fprintf(env.Stdout, "  note: a real run is refused: %s\n", text.Sanitize(err.Error()))
	}
	if u.Operation != nil {
		return s.runOperation(u.Operation, o.writeFlags, "")
	}
	p, err := s.ed.Plan(s.ctx, u.Request)
	if err != nil {
		return err
	}
	return s.runPlans([]*plan.Plan{p}, o.writeFlags)
}

// printUndo says which edit is undone, and everything in its way.
func printUndo(env Env, u *undo.Undo) {
	w := env.Stdout
	fmt.Fprintf(w, "Undoing the %s\n", text.Sanitize(audit.EditName(u.Edit)))
	switch {
	case u.Operation != nil:
		if u.Edit.Result != audit.ResultVerified {
			fmt.Fprintf(w, "  it was %s: only the steps it carried out are undone, in reverse\n", u.Edit.Result)
		}
	case u.Edit.Result == audit.ResultPartial || u.Edit.Result == audit.ResultInterrupted || u.Edit.Result == audit.ResultUnknown:
		where := "reached the log (" + strings.Join(u.Edit.Written, ", ") + ")"
		if len(u.Edit.Written) == 0 {
			where = "reached the log (none)"
		}
		if len(u.Edit.Unknown) > 0 {
			where += " or may have (" + strings.Join(u.Edit.Unknown, ", ") + ": their answers were lost)"
		}
		fmt.Fprintf(w, "  it was %s: %d of its %d partitions %s; only those are put back\n",
			u.Edit.Result, len(u.Request.Items), len(u.Edit.Changes), text.Sanitize(where))
	}
	for _, n := range u.Notes {
		fmt.Fprintf(w, "  note: %s\n", text.Sanitize(n))
	}
	for _, sk := range u.Skipped {
		fmt.Fprintf(w, "  newer edit that wrote nothing: the %s (%s)\n", text.Sanitize(audit.EditName(sk)), text.Sanitize(sk.Result))
	}
	if len(u.Skipped) > 0 {
		fmt.Fprintf(w, "  so this undoes the older edit %s, not the last one\n", text.Sanitize(audit.Edit{Start: u.Edit}.ID()))
	}
	if u.UndoneBy != nil {
		fmt.Fprintf(w, "  already undone by the undo by %s at %s (edit %s)\n", text.Sanitize(u.UndoneBy.User), model.TimeText(u.UndoneBy.Time), text.Sanitize(u.UndoneBy.ID))
	}
	for _, n := range u.Newer {
		fmt.Fprintf(w, "  newer value: %s\n", text.Sanitize(n.String()))
	}
}

func stdinIsTerminal(env Env) bool {
	in, ok := env.Stdin.(*os.File)
	return ok && term.IsTerminal(in.Fd())
}

// warnUnreadable says on stderr which lines of the audit log koff could
// not read and skipped: an edit it cannot see must not pass in silence.
func warnUnreadable(env Env, bad []audit.UnreadableLine) {
	const most = 10 // a log full of garbage is said, not recited
	for i, u := range bad {
		if i == most {
			fmt.Fprintf(env.Stderr, "koff: warning: and %d more lines of audit log %s unreadable: skipped\n", len(bad)-most, text.Sanitize(u.Path))
			break
		}
		fmt.Fprintf(env.Stderr, "koff: warning: %s\n", text.Sanitize(u.String()))
	}
}
