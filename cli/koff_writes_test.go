package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"koff/edit/plan"
	"koff/model"
	"koff/model/java"
	"koff/model/store"
)

// The records Connect's worker writes for an edit koff made through REST
// (in the dashboard, koff serve: one Store behind the edit) are no flushes
// of the connector: the flush events and the partition's gaps stay as the
// connector's own commits made them.
func TestRESTEditRecordsAreNoFlushes(t *testing.T) {
	c := demoCluster(t)
	rest := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	if _, errs, code := koff(t, append([]string{"stop", "jdbc-shop"}, rest...)...); code != 0 {
		t.Fatal(errs)
	}
	fs := pflag.NewFlagSet("koff", pflag.ContinueOnError)
	g := addGlobals(fs, Env{Getenv: func(string) string { return "" }})
	if err := fs.Parse(append(rest, "--offsets-topic", "connect-offsets", "--offsets-topic", "connect-offsets-crm")); err != nil {
		t.Fatal(err)
	}
	if err := g.finish(fs); err != nil {
		t.Fatal(err)
	}
	client, err := g.connectClient()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	store := store.NewStore(store.StoreOptions{})
	tl, done := startTailer(ctx, g, store)
	t.Cleanup(func() { cancel(); <-done })
	if err := waitCaughtUp(ctx, g, tl, time.Minute); err != nil {
		t.Fatal(err)
	}
	id := model.ConnectorID{Topic: "connect-offsets", Name: "jdbc-shop"}
	row := func() model.ConnectorRow {
		for _, r := range store.Connectors() {
			if r.ID == id {
				return r
			}
		}
		t.Fatal("no jdbc-shop")
		return model.ConnectorRow{}
	}
	before := row()
	ed := g.newEditor(store, func() []string { return g.OffsetsTopics }, client, "tester", filepath.Join(t.TempDir(), "audit.jsonl"))
	p, err := ed.Plan(ctx, plan.Request{Connector: "jdbc-shop", Kind: plan.KindSet, Items: []plan.Item{{
		Partition: java.Object{{Name: "protocol", Value: "1"}, {Name: "table", Value: "shop.public.orders"}},
		Offset:    java.Object{{Name: "incrementing", Value: json.Number("7")}}}}})
	if err != nil || p.Path != plan.PathREST {
		t.Fatalf("plan: %v %+v", err, p)
	}
	if res, err := ed.Apply(ctx, p); err != nil || !res.Verified {
		t.Fatalf("apply: %v %+v", err, res)
	}
	after := row()
	if len(after.Flushes) != len(before.Flushes) || !after.Flushes[len(after.Flushes)-1].End.Equal(before.Flushes[len(before.Flushes)-1].End) {
		t.Errorf("koff's REST edit became a flush: %d flushes, last %s; before %d, last %s", len(after.Flushes), after.Flushes[len(after.Flushes)-1].End, len(before.Flushes), before.Flushes[len(before.Flushes)-1].End)
	}
	if after.PartitionInterval != before.PartitionInterval {
		t.Errorf("interval %s, was %s", after.PartitionInterval, before.PartitionInterval)
	}
}
