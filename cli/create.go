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

	"koff/edit/plan"
	"koff/edit/planner"
)

type createOptions struct {
	writeFlags
	file        string
	offsets     string
	offsetsFrom string
	start       string
}

func init() {
	register(&command{
		name:    "create",
		args:    "-f CONFIG.json [--offsets FILE | --offsets-from CONNECTOR] [--start running|stopped] [--dry-run] [--yes]",
		summary: "create a connector where it should start: STOPPED (KIP-980), its offsets written and read back, then started",
		flags: func(fs *pflag.FlagSet) any {
			o := &createOptions{}
			addWriteFlags(fs, &o.writeFlags)
			fs.StringVarP(&o.file, "file", "f", "", "the connector's config: Connect's {\"name\":…,\"config\":{…}} or a flat config with \"name\" (- for stdin)")
			fs.StringVar(&o.offsets, "offsets", "", "the offsets it starts from: a koff export (of one connector, or with one of its name) or Connect's GET offsets body")
			fs.StringVar(&o.offsetsFrom, "offsets-from", "", "start from this connector's offsets (copied)")
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
	if o.start != "running" && o.start != "stopped" {
		return usagef("--start is running or stopped, got %q", o.start)
	}
	data, err := readArgFile(o.file, env)
	if err != nil {
		return err
	}
	name, config, err := parseConnectorConfig(data)
	if err != nil {
		return fmt.Errorf("%s: %v", o.file, err)
	}
	req := planner.CreateRequest{Name: name, Config: config, OffsetsFrom: o.offsetsFrom, Start: o.start,
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

// parseConnectorConfig reads a connector's config as Connect's POST
// /connectors takes it, {"name":…,"config":{…}}, or as PUT …/config and
// GET …/config have it, a flat map with "name". Values are strings;
// numbers and booleans are taken as their text, as Jackson reads them
// into Connect's Map<String,String>.
func parseConnectorConfig(data []byte) (string, map[string]string, error) {
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		return "", nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if st, ok := top["initial_state"]; ok {
		return "", nil, fmt.Errorf("initial_state %s: koff create makes the connector STOPPED and starts it after its offsets are verified (--start running|stopped)", st)
	}
	name := ""
	body := top
	if raw, ok := top["config"]; ok {
		if err := json.Unmarshal(top["name"], &name); top["name"] != nil && err != nil {
			return "", nil, errors.New(`"name" is not a string`)
		}
		body = nil
		if err := json.Unmarshal(raw, &body); err != nil || body == nil {
			return "", nil, errors.New(`"config" is not an object of settings`)
		}
		for k := range top {
			if k != "name" && k != "config" {
				return "", nil, fmt.Errorf("%q: Connect's create request has name, config and initial_state only", k)
			}
		}
	}
	config := map[string]string{}
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var v any
		d := json.NewDecoder(bytes.NewReader(body[k]))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return "", nil, err
		}
		switch v := v.(type) {
		case string:
			config[k] = v
		case json.Number:
			config[k] = string(v)
		case bool:
			config[k] = fmt.Sprint(v)
		case nil:
		default:
			return "", nil, fmt.Errorf("config %q is not a string, number or boolean: Connect's configs are flat strings", k)
		}
	}
	if n, ok := config["name"]; ok {
		if name != "" && n != name {
			return "", nil, fmt.Errorf("the config's name %q is not the request's %q (Connect refuses that: 400)", n, name)
		}
		name = n
	}
	name = strings.TrimSpace(name) // as ConnectorsResource does
	if name == "" {
		return "", nil, errors.New(`no connector name: give "name"`)
	}
	if strings.TrimSpace(config["connector.class"]) == "" {
		return "", nil, errors.New(`no "connector.class"`)
	}
	config["name"] = name
	return name, config, nil
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
