package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"koff/edit"
	"koff/model"
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
	var plans []*edit.Plan
	var unknown []*edit.UnknownPartitionError
	unchanged := 0
	for _, r := range reqs {
		r.Create = o.create
		p, err := s.ed.Plan(s.ctx, r)
		var u *edit.UnknownPartitionError
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
func withoutUnchanged(r edit.Request, p *edit.Plan) (edit.Request, int) {
	var same []model.Object
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
			if model.JavaIdentity(it.Partition) == model.JavaIdentity(sp) {
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
func unchangedBy(ch edit.Change) bool {
	if (ch.Before == nil) != (ch.After == nil) {
		return false
	}
	if ch.Before != nil {
		a, err1 := model.ParseOffset(ch.Before)
		b, err2 := model.ParseOffset(ch.After)
		if err1 != nil || err2 != nil || !model.SameValue(a, b) {
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

// parseExport reads koff export output: {"name":{"offsets":[{"partition":…,"offset":…}]}}.
// Numbers stay json.Number, so no offset loses digits.
func parseExport(data []byte) ([]edit.Request, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var file map[string]struct {
		Offsets []struct {
			Partition json.RawMessage `json:"partition"`
			Offset    json.RawMessage `json:"offset"`
		} `json:"offsets"`
	}
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("not a koff export (an object keyed by connector): %v", err)
	}
	names := make([]string, 0, len(file))
	for n := range file {
		names = append(names, n)
	}
	sort.Strings(names)
	var reqs []edit.Request
	for _, n := range names {
		req := edit.Request{Connector: n, Kind: edit.KindImport}
		for i, e := range file[n].Offsets {
			p, err := edit.ParsePartition(string(e.Partition))
			if err != nil {
				return nil, fmt.Errorf("%s offsets[%d]: %v", n, i, err)
			}
			var off model.Object
			if len(e.Offset) > 0 {
				var isNull bool
				off, isNull, err = edit.ParseOffset(string(e.Offset))
				if err != nil {
					return nil, fmt.Errorf("%s offsets[%d]: %v", n, i, err)
				}
				_ = isNull
			}
			req.Items = append(req.Items, edit.Item{Partition: p, Offset: off})
		}
		if len(req.Items) > 0 {
			reqs = append(reqs, req)
		}
	}
	if len(reqs) == 0 {
		return nil, fmt.Errorf("no offsets in the file")
	}
	return reqs, nil
}

// unknownImportError refuses the whole file: every partition it names
// that its connector never had, each with its did-you-mean, and nothing
// written.
func unknownImportError(us []*edit.UnknownPartitionError) error {
	var lines []string
	for _, u := range us {
		for _, p := range u.Unknown {
			lines = append(lines, "  "+u.Connector+" "+p.Partition+edit.DidYouMean(p.Closest))
		}
	}
	them := "them"
	if len(lines) == 1 {
		them = "it"
	}
	return fmt.Errorf("import refused, nothing written: %s of the file %s no offset in %s connector (pass --create to add %s):\n%s",
		partitionCount(len(lines)), plural(len(lines), "has", "have"), plural(len(lines), "its", "their"), them, strings.Join(lines, "\n"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
