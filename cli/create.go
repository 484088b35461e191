package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"koff/edit/plan"
	"koff/edit/planner"
)

type createOptions struct {
	writeFlags
	file        string
	offsets     string
	offsetsFrom string
	noOffsets   bool
	start       string
}

func init() {
	register(&command{
		name:    "create",
		args:    "-f CONFIG.json [--offsets FILE | --offsets-from CONNECTOR | --no-offsets] [--start running|stopped] [--dry-run] [--yes]",
		summary: "create a connector where it should start: STOPPED (KIP-980), its offsets written and read back, then started",
		flags: func(fs *pflag.FlagSet) any {
			o := &createOptions{}
			addWriteFlags(fs, &o.writeFlags)
			fs.StringVarP(&o.file, "file", "f", "", "the connector's config: Connect's {\"name\":…,\"config\":{…}} or a flat config with \"name\" (- for stdin)")
			fs.StringVar(&o.offsets, "offsets", "", "the offsets it starts from: a koff export (of one connector, or with one of its name) or Connect's GET offsets body")
			fs.StringVar(&o.offsetsFrom, "offsets-from", "", "start from this connector's offsets (copied)")
			fs.BoolVar(&o.noOffsets, "no-offsets", false, "start from none: offsets stored under its name (of a connector of that name before) are tombstoned before it starts")
			fs.StringVar(&o.start, "start", "running", "running: resume it once its offsets are verified; stopped: leave it STOPPED")
			return o
		},
		run: runCreate,
	})
}

func runCreate(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*createOptions)
	if len(args) > 0 {
		return usagef("create takes no arguments (the config names the connector), got %q", args[0])
	}
	if o.file == "" {
		return usagef("create needs -f CONFIG.json")
	}
	if o.offsets != "" && o.offsetsFrom != "" {
		return usagef("--offsets and --offsets-from are two sources of its offsets: give one")
	}
	if o.noOffsets && (o.offsets != "" || o.offsetsFrom != "") {
		return usagef("--no-offsets starts it from none: leave out --offsets and --offsets-from")
	}
	if o.start != "running" && o.start != "stopped" {
		return usagef("--start is running or stopped, got %q", o.start)
	}
	data, err := readArgFile(o.file, env)
	if err != nil {
		return err
	}
	name, config, err := plan.ParseConnectorConfig(data)
	if err != nil {
		return fmt.Errorf("%s: %v", o.file, err)
	}
	req := planner.CreateRequest{Name: name, Config: config, OffsetsFrom: o.offsetsFrom, NoOffsets: o.noOffsets, Start: o.start,
		Args: []string{"create", "-f", o.file}}
	if o.offsets != "" {
		data, err := readArgFile(o.offsets, env)
		if err != nil {
			return err
		}
		r, err := parseCreateOffsets(data, name)
		if err != nil {
			return fmt.Errorf("%s: %v", o.offsets, err)
		}
		req.Offsets = &r
		req.Args = append(req.Args, "--offsets", o.offsets)
	}
	if o.offsetsFrom != "" {
		req.Args = append(req.Args, "--offsets-from", o.offsetsFrom)
	}
	if o.noOffsets {
		req.Args = append(req.Args, "--no-offsets")
	}
	req.Args = append(req.Args, "--start", o.start)
	s, err := openEditSession(g, env)
	if err != nil {
		return err
	}
	defer s.close()
	op, err := s.ed.PlanCreate(s.ctx, req)
	if err != nil {
		return err
	}
	return s.runOperation(op, o.writeFlags, "")
}

func readArgFile(path string, env Env) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(env.Stdin)
	}
	return os.ReadFile(path)
}

// parseCreateOffsets reads the offsets a created connector starts from: a
// koff export (of one connector, or naming this one), or Connect's GET
// offsets body {"offsets":[…]}.
func parseCreateOffsets(data []byte, name string) (plan.Request, error) {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) == nil {
		if raw, ok := probe["offsets"]; ok && jsonKind(raw) == "an array" {
			wrapped, _ := json.Marshal(map[string]json.RawMessage{name: json.RawMessage(data)})
			data = wrapped
		}
	}
	reqs, err := parseExport(data)
	if err != nil {
		return plan.Request{}, err
	}
	if len(reqs) == 1 {
		return reqs[0], nil
	}
	var names []string
	for _, r := range reqs {
		if r.Connector == name {
			return r, nil
		}
		names = append(names, r.Connector)
	}
	return plan.Request{}, fmt.Errorf("the export has offsets of %d connectors (%s) and none named %s: export the one to start from",
		len(reqs), strings.Join(names, ", "), name)
}
