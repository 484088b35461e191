package planner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"koff/edit/plan"
	"koff/model"
	"koff/model/java"
)

// RekeyRequest asks for a connector's source partitions rekeyed: a field
// of their maps given a new value, with config changes in the same
// operation (Debezium's topic.prefix is its partitions' server field).
type RekeyRequest struct {
	Name  string
	Rekey plan.RekeyAsked
	// Config are the settings changed (PUT /connectors/NAME/config with
	// the rest of its config as it is).
	Config map[string]string
	// Rename, when set, gives the connector this new name in the same
	// operation: created under it with the changed config, its offsets
	// copied there under the new keys, the old name deleted with its
	// offsets (a rename whose copy is the rekey; one undo).
	Rename string
	Args   []string
}

// NewRekeyRequest is the rekey koff rekey NAME and the dashboard's K ask
// for, from the FIELD=VALUE pairs of --set, --where and --config (KEY=VALUE)
// and a new name ("" for none), with the command line that asks the same.
// A pair without =, a config key given twice or the connector's own name
// as the new one is an error naming the flag.
func NewRekeyRequest(name string, set, where, config []string, rename string) (RekeyRequest, error) {
	req := RekeyRequest{Name: name, Config: map[string]string{}, Args: []string{"rekey", name}}
	pairs := func(flag, form string, in []string, add func(plan.FieldValue) error) error {
		for _, s := range in {
			fv, ok := plan.ParseFieldValue(s)
			if !ok {
				return fmt.Errorf("%s %q: give %s", flag, s, form)
			}
			if err := add(fv); err != nil {
				return err
			}
			req.Args = append(req.Args, flag, s)
		}
		return nil
	}
	err := pairs("--set", "FIELD=VALUE", set, func(fv plan.FieldValue) error { req.Rekey.Set = append(req.Rekey.Set, fv); return nil })
	if err == nil {
		err = pairs("--where", "FIELD=VALUE", where, func(fv plan.FieldValue) error { req.Rekey.Where = append(req.Rekey.Where, fv); return nil })
	}
	if err == nil {
		err = pairs("--config", "KEY=VALUE", config, func(fv plan.FieldValue) error {
			if _, dup := req.Config[fv.Field]; dup {
				return fmt.Errorf("--config %s is given twice", fv.Field)
			}
			req.Config[fv.Field] = fv.Value
			return nil
		})
	}
	if err != nil {
		return req, err
	}
	if rename != "" {
		if rename == name {
			return req, fmt.Errorf("--rename %s: that is its name now", rename)
		}
		req.Rename = rename
		req.Args = append(req.Args, "--rename", rename)
	}
	return req, nil
}

// configField is a partition field a connector class takes from its
// config: a rekey of it without the config changed too would have the
// tasks write the old value again, and start from no offsets.
type configField struct {
	class string // a part of connector.class
	field string
	keys  []string // the config keys it comes from, the first one set wins
}

var configFields = []configField{
	{"io.debezium.connector.", "server", []string{"topic.prefix", "database.server.name"}},
	{"FileStreamSourceConnector", "filename", []string{"file"}},
	{"MirrorSourceConnector", "cluster", []string{"source.cluster.alias"}},
}

// fieldFromConfig is the config key the class takes a partition field
// from, or "".
func fieldFromConfig(cfg map[string]string, field string) string {
	class := cfg["connector.class"]
	for _, f := range configFields {
		if f.field != field || !strings.Contains(class, f.class) {
			continue
		}
		for _, k := range f.keys {
			if _, ok := cfg[k]; ok {
				return k
			}
		}
		return f.keys[0]
	}
	return ""
}

// PlanRekey plans a rekey: the connector stopped (unless it is), its
// config changed, every matching partition's offset written under the new
// key (Jackson's bytes, its murmur2 partition) with the old value byte
// for byte and the old key tombstoned, read back; then the connector put
// back in the state it was in.
func (e *Planner) PlanRekey(ctx context.Context, req RekeyRequest) (*plan.Operation, error) {
	if len(req.Rekey.Set) == 0 {
		return nil, errors.New("rekey needs --set FIELD=VALUE")
	}
	if e.REST == nil {
		return nil, errors.New("rekey needs Connect's REST API (to stop the connector and change its config): pass --connect-url")
	}
	st, err := e.REST.Status(ctx, req.Name)
	if err != nil {
		return nil, e.NotInConnect(ctx, req.Name, err)
	}
	if st.Type == "sink" {
		return nil, fmt.Errorf("%s is a sink: its offsets are its consumer group's, keyed by topic-partition, not source partitions a rekey rewrites", req.Name)
	}
	cfg, err := e.REST.ConnectorConfig(ctx, req.Name)
	if err != nil {
		return nil, err
	}
	state := string(st.Connector.State)
	newCfg := maps.Clone(cfg)
	for k, v := range req.Config {
		if k == "name" || k == "connector.class" {
			return nil, fmt.Errorf("--config %s: a rekey keeps the connector's %s (rename or move it instead)", k, k)
		}
		newCfg[k] = v
	}
	p, err := e.PlanStep(ctx, plan.Request{Connector: req.Name, Kind: plan.KindRekey, Rekey: &req.Rekey, ByteExact: true}, false)
	if err != nil {
		return nil, err
	}
	if err := rekeyConfigCheck(req, p, cfg, newCfg); err != nil {
		return nil, err
	}
	if req.Rename != "" {
		return e.planRekeyRename(ctx, req, state, cfg, newCfg)
	}
	op := &plan.Operation{Kind: plan.KindRekey, Connector: req.Name, Made: e.now()}
	if state != "STOPPED" {
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepStop, Connector: req.Name, State: state})
	}
	if !maps.Equal(cfg, newCfg) {
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepConfig, Connector: req.Name, Config: newCfg, Previous: cfg})
	}
	op.Steps = append(op.Steps, plan.Step{Kind: plan.StepOffsets, Connector: req.Name, Plan: p})
	switch state {
	case "RUNNING":
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepResume, Connector: req.Name})
	case "PAUSED":
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepPause, Connector: req.Name})
	case "STOPPED":
	default:
		op.Warnings = append(op.Warnings, fmt.Sprintf("%s was %s: it is left STOPPED (koff resume %s starts it)", req.Name, state, req.Name))
	}
	op.Command = e.Cmd.Args(req.Args)
	return op, nil
}

// rekeyConfigCheck refuses a rekey of a field the connector takes from its
// config unless the config says the new value too: its tasks would write
// the old value again and find no offsets under it (Debezium: a new
// snapshot).
func rekeyConfigCheck(req RekeyRequest, p *plan.Plan, cfg, newCfg map[string]string) error {
	for _, s := range req.Rekey.Set {
		key := fieldFromConfig(cfg, s.Field)
		if key == "" || !configSays(cfg[key], oldValues(p, s.Field)) {
			continue // not the value the config gives it
		}
		if !configSays(newCfg[key], []string{s.Value}) {
			return fmt.Errorf("refused: %s's partition field %s is its config's %s (%s, now %q): its tasks would go on reading %s=%s, which would have no offsets left, and start from none; add --config %s=%s",
				req.Name, s.Field, key, plan.ClassOf(cfg), newCfg[key], s.Field, newCfg[key], key, s.Value)
		}
	}
	for k, v := range req.Config {
		for _, f := range configFields {
			if !strings.Contains(cfg["connector.class"], f.class) || !slices.Contains(f.keys, k) || cfg[k] == v {
				continue
			}
			set := slices.ContainsFunc(req.Rekey.Set, func(s plan.FieldValue) bool { return s.Field == f.field })
			if !set {
				return fmt.Errorf("refused: %s is %s's partition field %s: add --set %s=%s so that its offsets move with it", k, req.Name, f.field, f.field, v)
			}
		}
	}
	return nil
}

// configSays: a config value gives one of the values. The fields a class
// takes from its config each take one value, whole (FileStream's file is
// one file, which may have a comma in its name).
func configSays(cfgValue string, values []string) bool {
	return slices.Contains(values, strings.TrimSpace(cfgValue))
}

// oldValues are the values a field has in the partitions a rekey moves.
func oldValues(p *plan.Plan, field string) []string {
	var out []string
	for _, ch := range p.Changes {
		if ch.After != nil {
			continue
		}
		if v, ok := ch.Partition.Get(field); ok {
			out = append(out, valueText(v))
		}
	}
	return out
}

// planRekeyRename plans a rekey with a new name: a rename whose copy
// writes each partition once, under the new name and its new key, with
// the old value byte for byte, and whose new connector is created with
// the changed config. The rekey planned on the old name before it has
// refused what a rekey refuses.
func (e *Planner) planRekeyRename(ctx context.Context, req RekeyRequest, state string, cfg, newCfg map[string]string) (*plan.Operation, error) {
	old, name := req.Name, req.Rename
	if old == name {
		return nil, errors.New("--rename to the same name changes nothing: leave it out")
	}
	info, err := e.needInitialState(ctx, "rekey --rename")
	if err != nil {
		return nil, err
	}
	if err := e.notInConnect(ctx, name); err != nil {
		return nil, err
	}
	newCfg = maps.Clone(newCfg)
	newCfg["name"] = name
	op := &plan.Operation{Kind: plan.KindRename, Connector: name, From: old, Made: e.now()}
	if state != "STOPPED" {
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepStop, Connector: old, State: state})
	}
	op.Steps = append(op.Steps, plan.Step{Kind: plan.StepCreate, Connector: name, Config: newCfg, State: "STOPPED"})
	copyReq, err := e.CopyRequest(old, name)
	if err != nil {
		return nil, err
	}
	copyReq.Create, copyReq.ByteExact = true, true
	if err := rekeyCopy(&copyReq, &req.Rekey); err != nil {
		return nil, err
	}
	cp, err := e.planStepOffsets(ctx, copyReq, false)
	if err != nil {
		return nil, err
	}
	cp.Warnings = append(cp.Warnings, e.createdWarnings(ctx, cp, newCfg, true)...)
	op.Steps = append(op.Steps, plan.Step{Kind: plan.StepOffsets, Connector: name, Plan: cp})
	reset, err := e.planDeletedReset(ctx, old, info.SupportsAlterOffsets())
	if err != nil {
		return nil, err
	}
	op.Steps = append(op.Steps, plan.Step{Kind: plan.StepOffsets, Connector: old, Plan: reset})
	op.Steps = append(op.Steps, plan.Step{Kind: plan.StepDelete, Connector: old, Config: cfg, State: state})
	switch state {
	case "RUNNING":
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepResume, Connector: name})
	case "PAUSED":
		op.Steps = append(op.Steps, plan.Step{Kind: plan.StepPause, Connector: name})
	case "STOPPED":
	default:
		op.Warnings = append(op.Warnings, fmt.Sprintf("%s was %s: %s is left STOPPED (koff resume %s starts it)", old, state, name, name))
	}
	op.Warnings = append(op.Warnings, e.leftoverWarnings(name, nil)...)
	op.Command = e.Cmd.Args(req.Args)
	return op, nil
}

// rekeyCopy gives a copy's partitions (every partition of its source) the
// Set fields' values where Where matches, so that each is written once,
// under its new key; two that would become one are refused.
func rekeyCopy(req *plan.Request, r *plan.RekeyAsked) error {
	seen := map[string]string{}
	for i := range req.Items {
		it := &req.Items[i]
		np := it.Partition
		if matchesWhere(np, r.Where) {
			var err error
			if np, _, err = rekeyed(np, r.Set); err != nil {
				return fmt.Errorf("partition %s: %v", compactJSON(it.Partition), err)
			}
		}
		canon := CanonOf(np)
		if other, ok := seen[canon]; ok {
			return fmt.Errorf("refused: partitions %s and %s would both become %s: one's offset would overwrite the other's", other, compactJSON(it.Partition), compactJSON(np))
		}
		seen[canon] = compactJSON(it.Partition)
		it.Partition = np
	}
	req.Rekey = r
	return nil
}

// rekeyItems expands a rekey into exact records from the offsets stored
// now: for each live partition of the connector that Where matches, a new
// key (the partition with the Set fields' values, in its own field order,
// as Jackson writes it, in its murmur2 partition) with the old value byte
// for byte, and a tombstone for every stored copy of the old key.
func (e *Planner) rekeyItems(ctx context.Context, p *plan.Plan, copies []StoredCopy) error {
	r := p.Rekey
	if r == nil || len(r.Set) == 0 {
		return errors.New("rekey: no --set FIELD=VALUE")
	}
	n, err := e.Kafka.PartitionCount(ctx, p.Topic)
	if err != nil {
		return err
	}
	fields := map[string]bool{}
	var matched []StoredCopy
	for _, c := range copies {
		if !c.Row.Live || c.Row.Deleted || c.Row.ID.Topic != p.Topic || c.Partition == nil {
			continue
		}
		for _, f := range c.Partition {
			fields[f.Name] = true
		}
		if matchesWhere(c.Partition, r.Where) {
			matched = append(matched, c)
		}
	}
	known := slices.Sorted(maps.Keys(fields))
	for _, s := range append(slices.Clone(r.Set), r.Where...) {
		if !fields[s.Field] {
			close := ClosestNames(s.Field, known)
			if len(close) == 0 {
				close = known
			}
			return fmt.Errorf("no partition of %s has a field %q (its fields: %s; closest: %s)", p.Connector, s.Field, strings.Join(known, ", "), strings.Join(close, ", "))
		}
	}
	if len(matched) == 0 {
		return fmt.Errorf("no partition of %s has %s", p.Connector, r.Text())
	}
	live := map[string]StoredCopy{}
	for _, c := range copies {
		if c.Row.Live && !c.Row.Deleted && c.Row.ID.Topic == p.Topic {
			live[c.Canon] = c
		}
	}
	moving := map[string]bool{}
	for _, c := range matched {
		moving[c.Canon] = true
	}
	newOf := map[string]string{} // new canon → old partition, for collisions
	var items []plan.Item
	for _, c := range matched {
		np, changed, err := rekeyed(c.Partition, r.Set)
		if err != nil {
			return fmt.Errorf("partition %s: %v", c.Row.Partition, err)
		}
		if !changed {
			continue
		}
		canon := CanonOf(np)
		if other, ok := newOf[canon]; ok {
			return fmt.Errorf("refused: partitions %s and %s would both become %s: one's offset would overwrite the other's", other, c.Row.Partition, compactJSON(np))
		}
		newOf[canon] = c.Row.Partition
		if x, ok := live[canon]; ok && !moving[canon] {
			return fmt.Errorf("refused: %s would become %s, which %s has already (offset %s): its offset would be overwritten (reset that partition first, or rekey with --where)", c.Row.Partition, x.Row.Partition, p.Connector, x.Row.Offset)
		}
		key := java.EncodeKey(p.Connector, np)
		items = append(items, plan.Item{Partition: np, Restore: []plan.Restore{{
			TopicPartition: model.TopicPartition{Topic: p.Topic, Partition: java.PartitionFor(key, n)},
			Key:            key, Value: c.storedValue(),
		}}})
		old := plan.Item{Partition: c.Partition}
		for _, o := range copies {
			if o.Canon == c.Canon && !o.Row.Deleted {
				old.Restore = append(old.Restore, plan.Restore{TopicPartition: o.Row.ID.TopicPartition, Key: []byte(o.Row.ID.Key)})
			}
		}
		items = append(items, old)
	}
	if len(items) == 0 {
		return fmt.Errorf("every partition of %s that has %s has it already: nothing to rekey", p.Connector, r.Text())
	}
	// A partition becoming one that is rekeyed away itself (a swap) writes
	// the new key and then tombstones it: refused, as two edits it is
	// safe.
	for canon := range newOf {
		if moving[canon] {
			return fmt.Errorf("refused: %s becomes a partition that is rekeyed itself in the same edit: rekey in two steps", newOf[canon])
		}
	}
	p.Items = items
	return nil
}

// matchesWhere: every Where field of the partition has that value, as
// text (a string's own text, a number's or a boolean's JSON text).
func matchesWhere(p java.Object, where []plan.FieldValue) bool {
	for _, w := range where {
		v, ok := p.Get(w.Field)
		if !ok || valueText(v) != w.Value {
			return false
		}
	}
	return true
}

func valueText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return string(v)
	case bool:
		return fmt.Sprint(v)
	case nil:
		return "null"
	}
	return string(java.AppendJackson(nil, v))
}

// rekeyed is the partition with the Set fields' values, each of the type
// the field has (a string stays a string; a number must be one), in the
// partition's own field order.
func rekeyed(p java.Object, set []plan.FieldValue) (java.Object, bool, error) {
	out := slices.Clone(p)
	changed := false
	for _, s := range set {
		i := slices.IndexFunc(out, func(f java.Field) bool { return f.Name == s.Field })
		if i < 0 {
			return nil, false, fmt.Errorf("has no field %q", s.Field)
		}
		var nv any
		switch old := out[i].Value.(type) {
		case string:
			nv = s.Value
		case json.Number:
			v, err := java.ParseJSON([]byte(s.Value))
			num, ok := v.(json.Number)
			if err != nil || !ok {
				return nil, false, fmt.Errorf("field %s is a number (%s): %q is not one", s.Field, old, s.Value)
			}
			nv = num
		case bool:
			if s.Value != "true" && s.Value != "false" {
				return nil, false, fmt.Errorf("field %s is a boolean: %q is not one", s.Field, s.Value)
			}
			nv = s.Value == "true"
		default:
			return nil, false, fmt.Errorf("field %s is %s, not a string, number or boolean a rekey rewrites", s.Field, valueText(old))
		}
		if valueText(nv) != valueText(out[i].Value) || fmt.Sprintf("%T", nv) != fmt.Sprintf("%T", out[i].Value) {
			changed = true
		}
		out[i].Value = nv
	}
	return out, changed, nil
}

// rekeyAfter: a rekey's new partitions show the value they get.
func rekeyAfter(p *plan.Plan) {
	for i := range p.Changes {
		ch := &p.Changes[i]
		if ch.After == nil && len(ch.Writes) == 1 && ch.Writes[0].Value != nil {
			ch.After = ch.Writes[0].Value
		}
	}
}
