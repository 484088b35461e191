package edit

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Every kind of edit prints a command that does the same edit, carrying
// the session's globals (--context, --read-only, the cluster) after it.
func TestCommandLineForEveryKind(t *testing.T) {
	c := CommandLine{Globals: []string{"--context", "prod", "--read-only", "-b", "kafka:9092", "--offsets-topic", "o1",
		"--connect-url", "http://connect:8083"}}
	const globals = " --context prod --read-only -b kafka:9092 --offsets-topic o1 --connect-url http://connect:8083"
	ch := func(part, after string) Change {
		c := Change{PartitionJSON: part}
		if after != "" {
			c.After = []byte(after)
		}
		return c
	}
	for _, tc := range []struct {
		name string
		plan Plan
		want string
	}{
		{"set one", Plan{Request: Request{Connector: "jdbc", Kind: KindSet}, Changes: []Change{ch(`{"table":"t 1"}`, `{"id":5}`)}},
			`koff set jdbc --partition '{"table":"t 1"}' --offset '{"id":5}'` + globals},
		{"reset two", Plan{Request: Request{Connector: "jdbc", Kind: KindReset}, Changes: []Change{ch(`{"a":1}`, ""), ch(`{"a":2}`, "")}},
			`koff reset jdbc --partition '{"a":1}' --partition '{"a":2}'` + globals},
		{"reset all", Plan{Request: Request{Connector: "jdbc", Kind: KindResetAll}, Changes: []Change{ch(`{"a":1}`, "")}},
			`koff reset jdbc` + globals},
		{"copy", Plan{Request: Request{Connector: "new", Kind: KindCopy, From: "old"}, Changes: []Change{ch(`{"a":1}`, `{"o":1}`), ch(`{"a":2}`, `{"o":2}`)}},
			`koff copy old new` + globals},
		{"import", Plan{Request: Request{Connector: "it's", Kind: KindImport}, Changes: []Change{ch(`{"a":1}`, `{"o":1}`), ch(`{"a":2}`, "")}},
			`koff import <(printf '%s\n' '{"it'\''s":{"offsets":[{"partition":{"a":1},"offset":{"o":1}},{"partition":{"a":2},"offset":null}]}}')` + globals},
		{"undo", Plan{Request: Request{Connector: "jdbc", Kind: KindUndo}, Changes: []Change{ch(`{"a":1}`, `{"o":1}`), ch(`{"a":2}`, `{"o":9}`)}},
			`koff undo jdbc` + globals},
		{"undo of an edit", Plan{Request: Request{Connector: "jdbc", Kind: KindUndo, Undoes: "20261203T081502.113Z-9f2c41d0"}, Changes: []Change{ch(`{"a":1}`, `{"o":1}`)}},
			`koff undo jdbc --edit 20261203T081502.113Z-9f2c41d0` + globals},
		{"rewind", Plan{Request: Request{Connector: "pg", Kind: KindRewind, Rewind: rewindAsked(RewindRequest{Connector: "pg", At: time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC), IfNewer: IfNewerOldest})},
			Changes: []Change{ch(`{"a":1}`, `{"o":1}`), ch(`{"a":2}`, `{"o":9}`)}},
			`koff set pg --to-datetime 2026-11-29T02:00:00Z --if-newer oldest` + globals},
		{"delete stray", Plan{Request: Request{Connector: "jdbc", Kind: KindDeleteStray}, Changes: []Change{ch(`{"a":1}`, "")}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := c.For(&tc.plan)
			if got != tc.want {
				t.Errorf("command\n got %s\nwant %s", got, tc.want)
			}
			if strings.Contains(got, "FILE") {
				t.Errorf("a placeholder instead of a command: %s", got)
			}
		})
	}
}

// The file an import command makes is what koff import reads: valid JSON
// keyed by connector, exact numbers.
func TestCommandLineImportIsAnExport(t *testing.T) {
	p := &Plan{Request: Request{Connector: "c\"q", Kind: KindImport}, Changes: []Change{
		{PartitionJSON: `{"a":1}`, After: []byte(`{"lsn":18446744073709551615}`)}, {PartitionJSON: `{"a":2}`}}}
	var v map[string]struct {
		Offsets []map[string]json.RawMessage `json:"offsets"`
	}
	if err := json.Unmarshal([]byte(exportJSON(p)), &v); err != nil {
		t.Fatalf("%s: %v", exportJSON(p), err)
	}
	offs := v[`c"q`].Offsets
	if len(offs) != 2 || string(offs[0]["offset"]) != `{"lsn":18446744073709551615}` || string(offs[1]["offset"]) != "null" {
		t.Errorf("export %s", exportJSON(p))
	}
}

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
		kind          Kind
		state, result string
	}{{KindStop, "RUNNING", ResultDone}, {KindResume, "STOPPED", ResultDone}, {KindStop, "", ResultFailed}} {
		e := entries[i]
		if e.Kind != want.kind || e.State != want.state || e.Result != want.result || e.User != "alice (SHA256:abc)" || e.Path != PathREST {
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
	plan, err := h.ed.Plan(ctx, Request{Connector: "jdbc-shop", Kind: KindSet, Create: true, Items: []Item{{
		Partition: mustPartition(t, `{"protocol":"1","table":"shop.public.brand_new"}`),
		Offset:    mustOffset(t, `{"incrementing":5}`),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Path != PathREST || len(plan.Changes) != 1 || len(plan.Changes[0].Writes) != 1 {
		t.Fatalf("plan: path %s, changes %+v", plan.Path, plan.Changes)
	}
	if w := plan.Changes[0].Writes[0]; w.Existing || w.Before != nil {
		t.Errorf("the new partition's write is marked existing (before %q)", w.Before)
	}
}
