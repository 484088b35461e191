package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"koff/edit/plan"
	"koff/edit/planner"
	"koff/model"
	"koff/model/java"
)

type importOptions struct {
	writeFlags
	nameFlags
}

func init() {
	register(&command{
		name:    "import",
		args:    "FILE [--dry-run] [--yes]",
		summary: "apply offsets from an export file (- for stdin): each partition listed is set, or reset when its offset is null",
		flags: func(fs *pflag.FlagSet) any {
			o := &importOptions{}
			addWriteFlags(fs, &o.writeFlags)
			addNameFlags(fs, &o.nameFlags, false)
			return o
		},
		run: runImport,
	})
}

func runImport(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*importOptions)
	if len(args) != 1 {
		return usagef("import needs exactly one FILE (- for stdin)")
	}
	var data []byte
	var err error
	if args[0] == "-" {
		data, err = io.ReadAll(env.Stdin)
	} else {
		data, err = os.ReadFile(args[0])
	}
	if err != nil {
		return err
	}
	reqs, err := parseExport(data)
	if err != nil {
		return fmt.Errorf("%s: %v", args[0], err)
	}
	s, err := openEditSession(g, env)
	if err != nil {
		return err
	}
	defer s.close()
	var plans []*plan.Plan
	var unknown []*planner.UnknownPartitionError
	unchanged := 0
	for _, r := range reqs {
		r.Create = o.create
		p, err := s.ed.Plan(s.ctx, r)
		var u *planner.UnknownPartitionError
		if errors.As(err, &u) {
			unknown = append(unknown, u)
			continue
		}
		if err != nil {
			return err
		}
		// Only what changes is listed and written; the rest is counted.
		if r, same := withoutUnchanged(r, p); same > 0 {
			unchanged += same
			if len(r.Items) == 0 {
				continue
			}
			if p, err = s.ed.Plan(s.ctx, r); err != nil {
				return err
			}
		}
		plans = append(plans, p)
	}
	if len(unknown) > 0 {
		return unknownImportError(unknown)
	}
	if unchanged > 0 {
		fmt.Fprintf(env.Stdout, "%s unchanged (not listed)\n", partitionCount(unchanged))
	}
	if len(plans) == 0 {
		fmt.Fprintln(env.Stdout, "nothing to change: every offset in the file is already in force")
		return nil
	}
	return s.runPlans(plans, o.writeFlags)
}

// withoutUnchanged drops from r the partitions whose plan writes what is
// already stored, returning how many it dropped.
func withoutUnchanged(r plan.Request, p *plan.Plan) (plan.Request, int) {
	var same []java.Object
	for _, ch := range p.Changes {
		if unchangedBy(ch) {
			same = append(same, ch.Partition)
		}
	}
	if len(same) == 0 {
		return r, 0
	}
	out := r
	out.Items = nil
	for _, it := range r.Items {
		drop := false
		for _, sp := range same {
			if java.JavaIdentity(it.Partition) == java.JavaIdentity(sp) {
				drop = true
			}
		}
		if !drop {
			out.Items = append(out.Items, it)
		}
	}
	return out, len(r.Items) - len(out.Items)
}

// unchangedBy reports whether a change leaves the partition as it is: the
// same offset, and every record it would write already stored byte for
// byte (a key stored elsewhere or differently still needs its write).
func unchangedBy(ch plan.Change) bool {
	if (ch.Before == nil) != (ch.After == nil) {
		return false
	}
	if ch.Before != nil {
		a, err1 := model.ParseOffset(ch.Before)
		b, err2 := model.ParseOffset(ch.After)
		if err1 != nil || err2 != nil || !java.SameValue(a, b) {
			return false
		}
	}
	for _, w := range ch.Writes {
		if !model.SameOffset(w.Before, w.Value) {
			return false
		}
	}
	return true
}

func partitionCount(n int) string {
	if n == 1 {
		return "1 partition"
	}
	return fmt.Sprintf("%d partitions", n)
}

// unknownImportError refuses the whole file: every partition it names
// that its connector never had, each with its did-you-mean, and nothing
// written.
func unknownImportError(us []*planner.UnknownPartitionError) error {
	var lines []string
	for _, u := range us {
		for _, p := range u.Unknown {
			lines = append(lines, u.Connector+" "+p.Partition+planner.PartitionDidYouMean(p.Closest))
		}
	}
	them := "them"
	if len(lines) == 1 {
		them = "it"
	}
	// One line, as every error: the partitions follow each other.
	return fmt.Errorf("import refused, nothing written: %s of the file %s no offset in %s connector (pass --create to add %s): %s",
		partitionCount(len(lines)), plural(len(lines), "has", "have"), plural(len(lines), "its", "their"), them, strings.Join(lines, "; "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
