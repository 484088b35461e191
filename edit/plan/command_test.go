package plan

import (
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
		{"rewind", Plan{Request: Request{Connector: "pg", Kind: KindRewind, Rewind: NewRewindAsked(RewindRequest{Connector: "pg", At: time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC), IfNewer: IfNewerOldest})},
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

// A plan shows a created connector's config with its secrets hidden, but
// their config-provider placeholders, which hold none.
func TestConfigTextHidesSecrets(t *testing.T) {
	got := ConfigText(map[string]string{
		"connection.password": "hunter2", "database.password": "${file:/etc/secrets.properties:pw}",
		"aws.secret.access.key": "AKIA…", "sasl.jaas.config": "org.apache… password=\"x\";", "topic": "t", "tasks.max": "1",
	})
	want := `aws.secret.access.key=[hidden] connection.password=[hidden] database.password=${file:/etc/secrets.properties:pw} sasl.jaas.config=[hidden] tasks.max=1 topic=t`
	if got != want {
		t.Errorf("ConfigText:\n got %s\nwant %s", got, want)
	}
}
