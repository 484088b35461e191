package edit

import (
	"context"
	"strings"
	"testing"

	"koff/edit/audit"
	"koff/edit/plan"
)

// Stop and resume are written to the audit log like edits: who, the state
// before, and the outcome; undo passes over them.
func TestStopAndResumeAreAudited(t *testing.T) {
	h, _ := demoHarness(t)
	ctx := context.Background()
	h.ed.User = "alice (SHA256:abc)"
	if err := h.ed.StopConnector(ctx, "jdbc-shop"); err != nil {
		t.Fatal(err)
	}
	if err := h.ed.ResumeConnector(ctx, "jdbc-shop"); err != nil {
		t.Fatal(err)
	}
	if err := h.ed.StopConnector(ctx, "no-such-connector"); err == nil {
		t.Fatal("stopping an unknown connector succeeded")
	}
	entries, err := h.ed.Audit.Entries()
	if err != nil || len(entries) != 3 {
		t.Fatalf("audit: %+v, %v", entries, err)
	}
	for i, want := range []struct {
		kind          plan.Kind
		state, result string
	}{{plan.KindStop, "RUNNING", audit.ResultDone}, {plan.KindResume, "STOPPED", audit.ResultDone}, {plan.KindStop, "", audit.ResultFailed}} {
		e := entries[i]
		if e.Kind != want.kind || e.State != want.state || e.Result != want.result || e.User != "alice (SHA256:abc)" || e.Path != plan.PathREST {
			t.Errorf("audit line %d: %+v, want %s of state %q %s by alice", i+1, e, want.kind, want.state, want.result)
		}
	}
	if entries[2].Error == "" {
		t.Error("the failed stop's line does not say why")
	}
	if _, _, err := h.ed.UndoRequest(""); err == nil || !strings.Contains(err.Error(), "no edit") {
		t.Errorf("undo after only stop and resume: %v, want nothing to undo", err)
	}
}

// A partition with no stored key is planned as a new key on every path:
// the worker's REST write too.
func TestNewPartitionIsANewKeyOnEveryPath(t *testing.T) {
	h, _ := demoHarness(t)
	ctx := context.Background()
	if err := h.ed.StopConnector(ctx, "jdbc-shop"); err != nil {
		t.Fatal(err)
	}
	p, err := h.ed.Plan(ctx, plan.Request{Connector: "jdbc-shop", Kind: plan.KindSet, Create: true, Items: []plan.Item{{
		Partition: mustPartition(t, `{"protocol":"1","table":"shop.public.brand_new"}`),
		Offset:    mustOffset(t, `{"incrementing":5}`),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Path != plan.PathREST || len(p.Changes) != 1 || len(p.Changes[0].Writes) != 1 {
		t.Fatalf("plan: path %s, changes %+v", p.Path, p.Changes)
	}
	if w := p.Changes[0].Writes[0]; w.Existing || w.Before != nil {
		t.Errorf("the new partition's write is marked existing (before %q)", w.Before)
	}
}
