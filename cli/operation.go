package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"

	"koff/edit/apply"
	"koff/edit/plan"
	"koff/model/text"
)

// runOperation prints an operation's plan, checks it, asks for
// confirmation (typing confirmName when it is set), runs its steps and
// reports what happened.
func (s *editSession) runOperation(op *plan.Operation, w writeFlags, confirmName string) error {
	printOperation(s.env.Stdout, op)
	if err := s.ed.CheckOperation(s.ctx, op); err != nil {
		if !w.dryRun {
			return err
		}
		fmt.Fprintf(s.env.Stdout, "  note: a real run is refused: %s\n", text.Sanitize(err.Error()))
	}
	if w.dryRun {
		if s.ed.ReadOnly {
			fmt.Fprintln(s.env.Stdout, "dry run: nothing done (read-only: a real run would be refused)")
		} else {
			fmt.Fprintln(s.env.Stdout, "dry run: nothing done")
		}
		return nil
	}
	if !w.yes {
		if err := confirmOperation(s.env, op, confirmName); err != nil {
			return err
		}
	}
	s.ed.Progress = s.watchProgress()
	s.writing.Store(true)
	defer s.writing.Store(false)
	res, err := s.ed.ApplyOperation(s.ctx, op)
	s.endProgress()
	for _, r := range res.Offsets {
		fmt.Fprintln(s.env.Stdout, text.Sanitize(r.Summary()))
	}
	if err != nil {
		var oe *apply.OperationError
		if errors.As(err, &oe) && oe.Undo != "" {
			fmt.Fprintf(s.env.Stdout, "%s: stopped at step %d of %d\n", text.Sanitize(op.What()), oe.Failed+1, len(op.Steps))
			for _, i := range oe.Done {
				fmt.Fprintf(s.env.Stdout, "  done:     %d. %s\n", i+1, text.Sanitize(op.Steps[i].Text()))
			}
			fmt.Fprintf(s.env.Stdout, "  failed:   %d. %s\n", oe.Failed+1, text.Sanitize(op.Steps[oe.Failed].Text()))
			for i := oe.Failed + 1; i < len(op.Steps); i++ {
				fmt.Fprintf(s.env.Stdout, "  not done: %d. %s\n", i+1, text.Sanitize(op.Steps[i].Text()))
			}
			if op.OnBoth(oe.Done) {
				fmt.Fprintln(s.env.Stdout, "  "+text.Sanitize(op.OnBothText()))
			}
			fmt.Fprintf(s.env.Stdout, "  undo: %s (brings back the start)\n", text.Sanitize(oe.Undo))
		}
		return err
	}
	fmt.Fprintf(s.env.Stdout, "%s: %s (edit %s)\n", text.Sanitize(op.What()), op.DoneText(), res.ID)
	if u := res.UndoCommand(); u != "" {
		fmt.Fprintf(s.env.Stdout, "  undo: %s\n", text.Sanitize(u))
	}
	return nil
}

// printOperation shows every step in order, an offsets step with every
// offset before → after and each record it writes.
func printOperation(w io.Writer, op *plan.Operation) {
	fmt.Fprintf(w, "Plan: %s (%s)\n", field(op.What()), fmt.Sprintf("%d %s", len(op.Steps), plural(len(op.Steps), "step", "steps")))
	for i, s := range op.Steps {
		fmt.Fprintf(w, "  %d. %s\n", i+1, text.Sanitize(s.Text()))
		switch {
		case s.Kind == plan.StepCreate:
			fmt.Fprintf(w, "       config: %s\n", text.Sanitize(plan.ConfigText(s.Config)))
		case s.Plan != nil:
			p := s.Plan
			fmt.Fprintf(w, "       path: %s\n", text.Sanitize(p.PathReason))
			printChanges(w, p, "       ")
			for _, warn := range p.Warnings {
				fmt.Fprintf(w, "       warning: %s\n", text.Sanitize(warn))
			}
		}
	}
	if op.Kind == plan.KindMove {
		fmt.Fprintf(w, "  offsets are read again after the stop (its tasks' last flush) and must read back on %s before %s is deleted here\n", field(op.To), field(op.Connector))
	}
	if op.Kind == plan.KindRename {
		fmt.Fprintf(w, "  offsets are read again after the stop (its tasks' last flush) and must read back before %s is deleted\n", field(op.From))
	}
	for _, warn := range op.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", text.Sanitize(warn))
	}
	if op.Command != "" {
		fmt.Fprintf(w, "  command: %s\n", jsonField(op.Command))
	}
}

// confirmOperation asks on the terminal; a rename asks for the new name.
func confirmOperation(env Env, op *plan.Operation, name string) error {
	in, ok := env.Stdin.(*os.File)
	if !ok || !term.IsTerminal(in.Fd()) {
		return usagef("refusing to act without confirmation: stdin is not a terminal (pass --yes, or --dry-run to preview)")
	}
	r := bufio.NewReader(env.Stdin)
	if name != "" {
		if op.Kind == plan.KindMove {
			fmt.Fprintf(env.Stdout, "Type the name of the connector to move to confirm: ")
		} else {
			fmt.Fprintf(env.Stdout, "Type the new name to confirm: ")
		}
		line, _ := r.ReadString('\n')
		if strings.TrimSpace(line) != name {
			return errors.New("not confirmed: nothing done")
		}
		return nil
	}
	fmt.Fprint(env.Stdout, "Apply? [y/N] ")
	line, _ := r.ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		return errors.New("not confirmed: nothing done")
	}
	return nil
}
