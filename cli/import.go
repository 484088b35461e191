package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/spf13/pflag"

	"koff/edit"
	"koff/model"
)

type importOptions struct{ writeFlags }

func init() {
	register(&command{
		name:    "import",
		args:    "FILE [--dry-run] [--yes]",
		summary: "apply offsets from an export file (- for stdin): each partition listed is set, or reset when its offset is null",
		flags: func(fs *pflag.FlagSet) any {
			o := &importOptions{}
			addWriteFlags(fs, &o.writeFlags)
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
	for _, r := range reqs {
		p, err := s.ed.Plan(s.ctx, r)
		if err != nil {
			return err
		}
		plans = append(plans, p)
	}
	return s.runPlans(plans, o.writeFlags)
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
