package edit

import (
	"context"
	"strings"
	"testing"

	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/planner"
	"koff/edit/undo"
	"koff/model/java"
)

func rekeyOf(name string, config map[string]string, set ...string) planner.RekeyRequest {
	r := planner.RekeyRequest{Name: name, Config: config}
	for _, s := range set {
		fv, _ := plan.ParseFieldValue(s)
		r.Rekey.Set = append(r.Rekey.Set, fv)
	}
	return r
}

// A rekey of Debezium's server field with its topic.prefix: the connector
// stopped, its config changed, the offset written under the new key as
// Jackson writes it, in its murmur2 partition, with the value the old key
// held after the stop byte for byte, the old key tombstoned, the connector
// running again; its undo puts back the config and the old key.
func TestRekeyMovesOffsetsToNewKeyWithConfig(t *testing.T) {
	h, c := demoHarness(t)
	ctx := context.Background()
	const name = "debezium-inventory"
	h.waitFor("its offset", func() bool { return len(h.liveOffsets(name)) == 1 })
	op, err := h.ed.PlanRekey(ctx, rekeyOf(name, map[string]string{"topic.prefix": "dbz2"}, "server=dbz2"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, s := range op.Steps {
		kinds = append(kinds, string(s.Kind))
	}
	if got := strings.Join(kinds, ","); got != "stop,config,offsets,resume" {
		t.Fatalf("steps %s", got)
	}
	if txt := op.Steps[1].Text(); !strings.Contains(txt, "topic.prefix inventory → dbz2") {
		t.Errorf("config step %q", txt)
	}
	res, err := h.ed.ApplyOperation(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Offsets) != 1 || !res.Offsets[0].Verified {
		t.Fatalf("offsets step %+v", res.Offsets)
	}
	p := res.Offsets[0].Plan
	newKey := []byte(`["debezium-inventory",{"server":"dbz2"}]`)
	var wroteNew, tombstoned bool
	var oldValue []byte
	for _, ch := range p.Changes {
		for _, w := range ch.Writes {
			switch {
			case string(w.Key) == string(newKey):
				wroteNew = w.Partition == java.PartitionFor(newKey, 25) && w.Topic == "connect-offsets"
				if string(w.Value) != string(ch.After) {
					t.Errorf("new key's value %s, change shows %s", w.Value, ch.After)
				}
			case string(w.Key) == `["debezium-inventory",{"server":"inventory"}]`:
				tombstoned = w.Value == nil
				oldValue = w.Before
			}
		}
	}
	if !wroteNew || !tombstoned {
		t.Fatalf("writes %+v", p.Changes)
	}
	for _, ch := range p.Changes {
		if ch.PartitionJSON == `{"server":"dbz2"}` && string(ch.After) != string(oldValue) {
			t.Errorf("new key's value %s is not the old key's %s byte for byte", ch.After, oldValue)
		}
	}
	cfg, err := h.ed.REST.ConnectorConfig(ctx, name)
	if err != nil || cfg["topic.prefix"] != "dbz2" {
		t.Fatalf("config after %v %v", cfg["topic.prefix"], err)
	}
	if c.ConnectorState(name) != "RUNNING" {
		t.Errorf("state after %q", c.ConnectorState(name))
	}
	if live := h.liveOffsets(name); live[`{"server":"inventory"}`] != "" {
		t.Errorf("old key still live: %v", live)
	}

	u, err := h.ed.FindUndo(ctx, undo.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if u.Operation == nil || u.Edit.Kind != plan.KindRekey {
		t.Fatalf("undo found %+v", u.Edit)
	}
	if _, err := h.ed.ApplyOperation(ctx, u.Operation); err != nil {
		t.Fatal(err)
	}
	cfg, _ = h.ed.REST.ConnectorConfig(ctx, name)
	if cfg["topic.prefix"] != "inventory" || c.ConnectorState(name) != "RUNNING" {
		t.Errorf("after undo: topic.prefix %q, state %q", cfg["topic.prefix"], c.ConnectorState(name))
	}
	h.waitFor("the old key back", func() bool { return h.liveOffsets(name)[`{"server":"inventory"}`] != "" })
	for _, r := range h.rows(name) {
		if r.Partition == `{"server":"dbz2"}` && !r.Deleted {
			t.Errorf("new key left after undo: %+v", r)
		}
	}
	edits, _ := h.ed.Audit.Edits()
	var found bool
	for _, ed := range edits {
		if ed.Start.Kind == plan.KindRekey && ed.Start.Steps != nil {
			found = ed.Result() == audit.ResultVerified && len(ed.Start.Steps) == 4 && ed.Start.Steps[1].Previous["topic.prefix"] == "inventory"
		}
	}
	if !found {
		t.Error("the rekey's audit entry lacks its steps or the config it replaced")
	}
}

// A rekey refuses, before anything is written: a field the partitions
// lack (naming theirs), two partitions that would become one, and a
// Debezium server field changed without its topic.prefix.
func TestRekeyRefusals(t *testing.T) {
	h, c := demoHarness(t)
	ctx := context.Background()
	h.waitFor("offsets", func() bool {
		return len(h.liveOffsets("debezium-inventory")) == 1 && len(h.liveOffsets("jdbc-billing")) == 2
	})
	cases := []struct {
		req  planner.RekeyRequest
		want string
	}{
		{rekeyOf("debezium-inventory", nil, "servr=dbz2"), `no partition of debezium-inventory has a field "servr" (its fields: server; closest: server)`},
		{rekeyOf("jdbc-billing", nil, "table=x"), "would both become {\"protocol\":\"1\",\"table\":\"x\"}"},
		{rekeyOf("debezium-inventory", nil, "server=dbz2"), "add --config topic.prefix=dbz2"},
		{rekeyOf("debezium-inventory", map[string]string{"topic.prefix": "dbz3"}, "server=dbz2"), "add --config topic.prefix=dbz2"},
		{rekeyOf("debezium-inventory", map[string]string{"topic.prefix": "dbz2"}), "rekey needs --set"},
		{rekeyOf("debezium-inventory", map[string]string{"topic.prefix": "dbz2"}, "server=inventory"), "nothing to rekey"},
	}
	for _, tc := range cases {
		_, err := h.ed.PlanRekey(ctx, tc.req)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.req.Rekey, err, tc.want)
		}
	}
	if _, err := h.ed.PlanRekey(ctx, planner.RekeyRequest{Name: "debezium-inventory", Config: map[string]string{"topic.prefix": "dbz2"}}); err == nil {
		t.Error("a config change alone planned as a rekey")
	}
	if c.ConnectorState("debezium-inventory") != "RUNNING" || c.ConnectorState("jdbc-billing") != "RUNNING" {
		t.Error("a refused rekey changed a connector's state")
	}
	if live := h.liveOffsets("jdbc-billing"); len(live) != 2 {
		t.Errorf("jdbc-billing's offsets after refusals: %v", live)
	}
}

// --where picks the partitions a rekey rewrites; the others keep theirs.
func TestRekeyWhere(t *testing.T) {
	h, _ := demoHarness(t)
	ctx := context.Background()
	h.waitFor("jdbc-billing's offsets", func() bool { return len(h.liveOffsets("jdbc-billing")) == 2 })
	req := rekeyOf("jdbc-billing", nil, "table=billing.public.ledger2")
	req.Rekey.Where = []plan.FieldValue{{Field: "table", Value: "billing.public.ledger"}}
	op, err := h.ed.PlanRekey(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	before := h.liveOffsets("jdbc-billing")
	if _, err := h.ed.ApplyOperation(ctx, op); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the new key", func() bool {
		return h.liveOffsets("jdbc-billing")[`{"protocol":"1","table":"billing.public.ledger2"}`] != ""
	})
	after := h.liveOffsets("jdbc-billing")
	if _, ok := after[`{"protocol":"1","table":"billing.public.ledger"}`]; ok {
		t.Errorf("the old key is live: %v", after)
	}
	if _, ok := after[`{"protocol":"1","table":"billing.public.invoices"}`]; !ok || len(before) != 2 {
		t.Errorf("a partition --where left out is gone: %v", after)
	}
}

// A rekey with --rename is one operation: the old name stopped, the new
// one created STOPPED with the changed config, each offset written once
// under the new name and the new key with the old value byte for byte,
// the old name's offsets tombstoned and the old name deleted, the new one
// running; one audit entry, and one undo that brings back the start.
func TestRekeyWithRenameIsOneOperation(t *testing.T) {
	h, c := demoHarness(t)
	ctx := context.Background()
	const old, name = "debezium-inventory", "dbz2-inventory"
	h.waitFor("its offset", func() bool { return len(h.liveOffsets(old)) == 1 })
	req := rekeyOf(old, map[string]string{"topic.prefix": "dbz2"}, "server=dbz2")
	req.Rename = name
	op, err := h.ed.PlanRekey(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := stepKinds(op), "stop "+old+",create "+name+",offsets "+name+",offsets "+old+",delete "+old+",resume "+name; got != want {
		t.Fatalf("steps %s, want %s", got, want)
	}
	if txt := op.Steps[2].Text(); !strings.Contains(txt, "copy 1 partition rekeyed server=dbz2 of "+name) {
		t.Errorf("the copy's step %q", txt)
	}
	if op.Steps[1].Config["topic.prefix"] != "dbz2" || op.Steps[1].Config["name"] != name {
		t.Errorf("created with %v", op.Steps[1].Config)
	}
	res, err := h.ed.ApplyOperation(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Offsets) != 2 || len(res.Offsets[0].Plan.Changes) != 1 || len(res.Offsets[1].Plan.Changes) != 1 {
		t.Fatalf("offsets steps %+v", res.Offsets)
	}
	copied, tombstoned := res.Offsets[0].Plan.Changes[0], res.Offsets[1].Plan.Changes[0]
	if copied.PartitionJSON != `{"server":"dbz2"}` || len(copied.Writes) != 1 || string(copied.Writes[0].Key) != `["dbz2-inventory",{"server":"dbz2"}]` ||
		string(copied.After) != string(tombstoned.Before) || tombstoned.After != nil {
		t.Errorf("copied %s %s → %s; %s's %s was %s", copied.PartitionJSON, copied.Writes, copied.After, old, tombstoned.PartitionJSON, tombstoned.Before)
	}
	if c.ConnectorState(old) != "" || c.ConnectorState(name) != "RUNNING" {
		t.Fatalf("after: %s %q, %s %q", old, c.ConnectorState(old), name, c.ConnectorState(name))
	}
	if live := h.liveOffsets(old); len(live) != 0 {
		t.Errorf("%s's offsets left: %v", old, live)
	}
	var written bool
	for _, r := range h.rows(name) {
		if r.Partition == `{"server":"dbz2"}` && r.Live && !r.Deleted {
			written = r.ID.Key == `["dbz2-inventory",{"server":"dbz2"}]`
		}
	}
	if !written {
		t.Errorf("no live key [%q,{\"server\":\"dbz2\"}]: %+v", name, h.rows(name))
	}
	cfg, err := h.ed.REST.ConnectorConfig(ctx, name)
	if err != nil || cfg["topic.prefix"] != "dbz2" {
		t.Errorf("config of %s: %v %v", name, cfg, err)
	}

	u, err := h.ed.FindUndo(ctx, undo.Query{Connector: name})
	if err != nil {
		t.Fatal(err)
	}
	if u.Operation == nil || u.Edit.Kind != plan.KindRename {
		t.Fatalf("undo found %+v", u.Edit)
	}
	if _, err := h.ed.ApplyOperation(ctx, u.Operation); err != nil {
		t.Fatal(err)
	}
	cfg, _ = h.ed.REST.ConnectorConfig(ctx, old)
	if cfg["topic.prefix"] != "inventory" || c.ConnectorState(old) != "RUNNING" || c.ConnectorState(name) != "" {
		t.Errorf("after undo: topic.prefix %q, %s %q, %s %q", cfg["topic.prefix"], old, c.ConnectorState(old), name, c.ConnectorState(name))
	}
	h.waitFor("the old key back", func() bool { return h.liveOffsets(old)[`{"server":"inventory"}`] != "" })
	h.waitFor("the new name's key tombstoned", func() bool { return len(h.liveOffsets(name)) == 0 })
}
