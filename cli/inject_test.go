package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostile is one sample of every kind of byte a terminal acts on: C0 (ESC
// with CSI and OSC, NUL, BEL, BS, CR, LF, TAB), DEL, C1 (CSI, OSC, ST,
// NEL), bidi overrides and isolates, marks, and the line separators.
const hostile = "\x1b[2J\x1b]0;owned\x07\x00\x08\r\n\t\x7f\u009b31m\u009d0;x\u009c\u0085\u202e\u202a\u2066\u2069\u200e\u200f\u061c\u2028\u2029"

// jsonStr is s as a JSON string the way Go writes it: C0 escaped, C1 and
// bidi controls raw (valid JSON), which is what a hostile producer sends.
func jsonStr(s string) string { b, _ := json.Marshal(s); return string(b) }

// koffIn runs the command line in-process until ctx ends.
func koffIn(ctx context.Context, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := Main(args, Env{Context: ctx, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	return out.String(), errb.String(), code
}

// hostileREST answers as a Connect worker whose connector names, states
// and error bodies carry terminal controls.
func hostileREST(t *testing.T, name string) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"version":"4.1.1","commit":"c`+"\u009b"+`","kafka_cluster_id":"k"}`)
	})
	mux.HandleFunc("GET /connectors", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{%s:{"status":{"name":%s,"connector":{"state":%s,"worker_id":%s},"tasks":[{"id":0,"state":"FAILED","worker_id":"w","trace":%s}],"type":"source"},"info":{"name":%s,"config":{"connector.class":%s},"tasks":[],"type":"source"}}}`,
			jsonStr(name), jsonStr(name), jsonStr("RUNNING"+hostile), jsonStr("w"+hostile), jsonStr(hostile), jsonStr(name), jsonStr("C"+hostile))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"error_code":500,"message":%s}`, jsonStr("Request timed out"+hostile))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Nothing read from the offsets topic, from Connect's REST API, from a
// file or from the command line reaches stdout or stderr raw, in any
// command and any output format; JSON output stays valid JSON; a 1 MB key
// makes no row a megabyte wide.
func TestNoRawControlReachesTheTerminal(t *testing.T) {
	addr := offsetsBroker(t)
	name := "evil" + hostile
	part := `{"f":` + jsonStr("p"+hostile) + `}`
	key := `[` + jsonStr(name) + `,` + part + `]`
	produceConnect(t, addr,
		[2]string{key, `{"o":` + jsonStr("v"+hostile) + `}`},
		[2]string{`["plain",{"k":` + jsonStr(strings.Repeat("x", 1000*1000)) + `}]`, `{"o":1}`},
		[2]string{"not json" + hostile, "\xff" + hostile},                 // unparseable
		[2]string{`["raw` + hostile + `",{}]`, `{"o":"` + hostile + `"}`}, // raw C0 in JSON text: unparseable
	)
	rest := hostileREST(t, name)
	dir := t.TempDir()
	importFile := filepath.Join(dir, "import.json")
	os.WriteFile(importFile, []byte(`{`+jsonStr(name)+`:{"offsets":[{"partition":`+part+`,"offset":{"o":`+jsonStr("new"+hostile)+`}}]}}`), 0o600)
	badImport := filepath.Join(dir, "bad.json")
	os.WriteFile(badImport, []byte(hostile+`{"x":`), 0o600)
	audit := filepath.Join(dir, "audit.jsonl")
	os.WriteFile(audit, []byte(`{"time":"2026-12-01T10:00:00Z","user":`+jsonStr("mallory"+hostile)+`,"connector":`+jsonStr(name)+`,"kind":"set","path":"topic","changes":[{"partition":`+part+`,"before":{"o":`+jsonStr(hostile)+`},"after":{"o":2},"writes":[]}],"result":"verified"}`+"\n"), 0o600)
	b := []string{"-b", addr}
	r := []string{"-b", addr, "--connect-url", rest}
	partArg := part
	cases := []struct {
		args []string
		json bool
		live time.Duration // tail: run this long
	}{
		{args: append([]string{"get"}, b...)},
		{args: append([]string{"get", "--deleted"}, b...)},
		{args: append([]string{"get", "-o", "json"}, b...), json: true},
		{args: append([]string{"get", name, "-o", "json"}, b...), json: true},
		{args: append([]string{"get", "no-such" + hostile}, b...)},
		{args: append([]string{"status"}, b...)},
		{args: append([]string{"status", "-o", "json"}, b...), json: true},
		{args: append([]string{"status"}, r...)},
		{args: append([]string{"status", "-o", "json"}, r...)},
		{args: append([]string{"get"}, r...)},
		{args: append([]string{"export"}, b...), json: true},
		{args: append([]string{"tail", "--from-beginning"}, b...), live: 2 * time.Second},
		{args: append([]string{"tail", "--from-beginning", "-o", "jsonl"}, b...), live: 2 * time.Second},
		{args: append([]string{"set", name, "--partition", partArg, "--offset", `{"o":` + jsonStr(hostile) + `}`, "--dry-run"}, b...)},
		{args: append([]string{"set", name, "--partition", partArg, "--offset", `{"o":` + jsonStr(hostile) + `}`, "--dry-run"}, r...)},
		{args: append([]string{"reset", name, "--dry-run"}, b...)},
		{args: append([]string{"reset", name, "--partition", partArg, "--dry-run"}, r...)},
		{args: append([]string{"copy", name, "to" + hostile, "--dry-run"}, b...)},
		{args: append([]string{"import", importFile, "--dry-run"}, b...)},
		{args: append([]string{"import", badImport, "--dry-run"}, b...)},
		{args: append([]string{"undo", "--dry-run", "--audit-log", audit}, b...)},
		{args: append([]string{"stop", name}, r...)},
		{args: append([]string{"resume", name}, r...)},
		{args: append([]string{"set", name, "--partition", "{" + hostile, "--offset", "{}"}, b...)},
		{args: []string{"get", "-b", addr, "--offsets-topic", "t" + hostile}},
	}
	// In a table, a newline in a name is shown, not obeyed: one row.
	out, _, _ := koffIn(context.Background(), append([]string{"get"}, b...)...)
	table, _, _ := strings.Cut(out, "What a restarted task reads") // the notes under the table name it again
	if n := strings.Count(table, "evil"); n != 1 || !strings.Contains(out, `evil\x1b[2J\x1b]0;owned\x07\x00\x08\r\n\t\x7f\u009b31m`) {
		t.Errorf("the hostile connector is on %d rows, or not escaped visibly:\n%s", n, out)
	}
	for i, tc := range cases {
		label := fmt.Sprintf("%02d_%s", i, tc.args[0])
		jsonl := strings.Contains(strings.Join(tc.args, " "), "-o jsonl")
		t.Run(label, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if tc.live > 0 {
				ctx, cancel = context.WithTimeout(context.Background(), tc.live)
			}
			defer cancel()
			out, errs, code := koffIn(ctx, tc.args...)
			t.Logf("exit %d\nstdout: %.300s\nstderr: %.300s", code, out, errs)
			for what, s := range map[string]string{"stdout": out, "stderr": errs} {
				if raw := rawControlIn([]byte(s)); raw != "" {
					i := strings.Index(s, raw)
					t.Errorf("%s carries %q raw (exit %d): …%q…", what, raw, code, s[max(0, i-60):min(len(s), i+20)])
				}
			}
			for _, line := range strings.Split(out, "\n") {
				if !tc.json && !jsonl && len(line) > 8<<10 {
					t.Errorf("a line of %d bytes: a huge key is not capped", len(line))
					break
				}
			}
			if tc.json && code == 0 {
				dec := json.NewDecoder(strings.NewReader(out))
				var v any
				if err := dec.Decode(&v); err != nil {
					t.Errorf("not JSON: %v", err)
				}
			}
			if jsonl {
				for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
					if line != "" && !json.Valid([]byte(line)) {
						t.Errorf("jsonl line not JSON: %q", line)
					}
				}
			}
			if code != 0 && strings.Count(errs, "\n") != 1 {
				t.Errorf("exit %d with stderr of %d lines: %q", code, strings.Count(errs, "\n"), errs)
			}
		})
	}
}
