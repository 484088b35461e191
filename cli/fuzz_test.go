package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"koff/edit/plan"
	"koff/model/java"
	"koff/model/store"
)

// FuzzContexts: any context file is read, or refused with one line, never
// a panic; every context it names applies or is refused with one line.
func FuzzContexts(f *testing.F) {
	for _, s := range []string{
		"current-context: staging\ncontexts:\n  prod:\n    bootstrap-servers: [kafka-1.prod:9093, kafka-2.prod:9093]\n    offsets-topics: [connect-offsets]\n    connect-url: https://connect.prod:8083\n    command-config: /etc/koff/prod.properties\n    read-only: true\n    accent: red\n  staging:\n    bootstrap-servers: kafka.staging:9092\n",
		"contexts:\n  a:\n    bootstrap-servers: a:1,b:2\n    flush-interval: 30s\n",
		"contexts:\n  a:\n    bootstap-servers: x\n",
		"contexts:\n  a:\n    accent: \"#ff00ff\"\n",
		"contexts: [1, 2]\n", "current-context: x\n", "contexts:\n  a: null\n", "\t- :", "{", "",
		"contexts:\n  \"\\e]0;x\\a\":\n    connect-url: \"http://\\u009b:1\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cf, err := parseContexts("config.yaml", data)
		if err != nil {
			if strings.Contains(errorLine(err), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		for _, name := range append(cf.names(), "", "missing") {
			fs := pflag.NewFlagSet("koff", pflag.ContinueOnError)
			g := addGlobals(fs, Env{})
			if err := applyContext(g, fs, cf, name); err != nil && strings.Contains(errorLine(err), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
		}
	})
}

// FuzzExportImport: whatever import is given, it is read or refused, never
// a panic; and what it reads, once stored and exported again, reads back
// as the same requests: export → import is a fixed point, with numbers
// exact and no raw control byte in the export.
func FuzzExportImport(f *testing.F) {
	for _, s := range []string{
		`{"jdbc-shop":{"offsets":[{"partition":{"protocol":"1","table":"shop.public.orders"},"offset":{"incrementing":48264}}]}}`,
		`{"debezium":{"offsets":[{"partition":{"server":"inventory"},"offset":{"lsn":1152921931530534183,"txId":7343870,"ts_usec":1795978080272535}}]}}`,
		`{"a":{"offsets":[{"partition":{"f":"x"},"offset":null}]},"b":{"offsets":[{"partition":{"n":1.5e300},"offset":{"o":-0.0}}]}}`,
		`{"e\u001b]0;x\u0007":{"offsets":[{"partition":{"f":"\u009b\u202e"},"offset":{"s":"\u2066\ud800"}}]}}`,
		`{"a":{"offsets":[]}}`, `{"a":{}}`, `[]`, `{"a":{"offsets":[{"partition":1,"offset":{}}]}}`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		reqs, err := parseExport(data)
		if err != nil {
			if strings.Contains(errorLine(err), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		store := storeOf(reqs)
		out := exportOf(t, store)
		if raw := rawControlIn(out); raw != "" {
			t.Fatalf("export carries %q raw: %s", raw, out)
		}
		// A connector whose every partition is reset exports with no
		// offsets, and importing that changes nothing: compare from the
		// second export on.
		again, err := parseExport(out)
		if err != nil {
			if strings.Contains(err.Error(), "no offsets") {
				return
			}
			t.Fatalf("export %s does not import: %v", out, err)
		}
		out2 := exportOf(t, storeOf(again))
		third, err := parseExport(out2)
		if err != nil {
			t.Fatalf("export %s does not import: %v", out2, err)
		}
		if out3 := exportOf(t, storeOf(third)); !bytes.Equal(out3, out2) {
			t.Fatalf("export → import → export is not stable:\n%s\n%s", out2, out3)
		}
	})
}

// storeOf holds the last offset each request gives a partition, keyed as
// Connect's REST API writes keys.
func storeOf(reqs []plan.Request) *store.Store {
	s := store.NewStore(store.StoreOptions{})
	var batch []store.Record
	for _, r := range reqs {
		for _, it := range r.Items {
			rec := store.Record{Topic: "connect-offsets", Offset: int64(len(batch)), Key: java.EncodeKey(r.Connector, it.Partition), Time: time.Unix(1, 0)}
			if it.Offset != nil {
				rec.Value = java.AppendJackson(nil, it.Offset)
			}
			batch = append(batch, rec)
		}
	}
	s.Ingest(batch)
	return s
}

func exportOf(t *testing.T, s *store.Store) []byte {
	var out bytes.Buffer
	conns := map[string]*selected{}
	for _, c := range s.Connectors() {
		sel := conns[c.ID.Name]
		if sel == nil {
			sel = &selected{}
			conns[c.ID.Name] = sel
		}
		sel.ids = append(sel.ids, c.ID)
	}
	if len(conns) == 0 {
		return []byte("{}\n")
	}
	if err := printOffsetsJSON(Env{Stdout: &out}, s, conns, false); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out.Bytes()) {
		t.Fatalf("export is not JSON: %s", out.Bytes())
	}
	return out.Bytes()
}
