package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A Fixture is one exchange with the real Connect worker's REST API, recorded
// by `go test ./interop -run TestRESTShapes -record` into
// testdata/connect-rest: NAME.json holds the request and what to compare,
// NAME.body the response body byte for byte. The demo's REST emulator is
// checked against them (demo/rest/fixtures_test.go).
type Fixture struct {
	Name   string `json:"name"`
	Method string `json:"method"`
	// Path as sent; Connector is the connector name in it (and in
	// messages), Role says which kind of connector it is: "source",
	// "sink", "missing" (no such connector) or "" (none).
	Path      string `json:"path"`
	Connector string `json:"connector,omitempty"`
	Role      string `json:"role,omitempty"`
	// State is the connector's state before the request (RUNNING, PAUSED,
	// STOPPED), so a replay can put its own connector there first.
	State       string `json:"state,omitempty"`
	RequestBody string `json:"request_body,omitempty"`
	Status      int    `json:"status"`
	// Maps are the JSON paths of objects whose keys are data (connector
	// names, config keys), Free those whose contents are the connector's
	// own (source partitions and offsets): only their type is compared.
	Maps []string `json:"maps,omitempty"`
	Free []string `json:"free,omitempty"`
	// Message says the body's "message" is compared word for word (with
	// the connector name replaced).
	Message bool `json:"message,omitempty"`

	Body []byte `json:"-"`
}

// FixtureDir is where the REST fixtures live: testdata/connect-rest at the
// repository root.
func FixtureDir() string { return filepath.Join(Dir(), "..", "testdata", "connect-rest") }

// LoadFixtures reads every fixture, in name order (the order they were
// recorded in).
func LoadFixtures(dir string) ([]Fixture, error) {
	metas, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(metas)
	var fs []Fixture
	for _, m := range metas {
		data, err := os.ReadFile(m)
		if err != nil {
			return nil, err
		}
		var f Fixture
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, fmt.Errorf("%s: %w", m, err)
		}
		if f.Body, err = os.ReadFile(strings.TrimSuffix(m, ".json") + ".body"); err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	if len(fs) == 0 {
		return nil, fmt.Errorf("no fixtures in %s", dir)
	}
	return fs, nil
}

// Write stores the fixture in dir.
func (f Fixture) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	meta, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, f.Name+".json"), append(meta, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, f.Name+".body"), f.Body, 0o644)
}

// Compare says how body (another server's answer to the fixture's request,
// where connector stands for the fixture's Connector) differs from the
// recorded one: field names, JSON types, and the message where Message is
// set. Nil when it does not.
func (f Fixture) Compare(status int, body []byte, connector string) []string {
	var diffs []string
	if status != f.Status {
		diffs = append(diffs, fmt.Sprintf("status %d, Connect answers %d", status, f.Status))
	}
	if len(bytes.TrimSpace(f.Body)) == 0 || len(bytes.TrimSpace(body)) == 0 {
		if len(bytes.TrimSpace(f.Body)) != len(bytes.TrimSpace(body)) {
			diffs = append(diffs, fmt.Sprintf("body %q, Connect's %q", body, f.Body))
		}
		return diffs
	}
	want, err := decodeJSON(f.Body)
	if err != nil {
		return append(diffs, "recorded body: "+err.Error())
	}
	got, err := decodeJSON(body)
	if err != nil {
		return append(diffs, fmt.Sprintf("body is not JSON (%v): %q", err, body))
	}
	diffs = append(diffs, f.shapeDiff("$", want, got)...)
	if f.Message {
		w, _ := want.(map[string]any)["message"].(string)
		g, _ := got.(map[string]any)["message"].(string)
		if f.Connector != "" {
			w = strings.ReplaceAll(w, f.Connector, connector)
		}
		if g != w {
			diffs = append(diffs, fmt.Sprintf("message %q, Connect says %q", g, w))
		}
	}
	return diffs
}

func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func (f Fixture) shapeDiff(path string, want, got any) []string {
	if typeName(want) != typeName(got) {
		return []string{fmt.Sprintf("%s: %s, Connect has %s", path, typeName(got), typeName(want))}
	}
	var diffs []string
	switch w := want.(type) {
	case []any:
		g := got.([]any)
		if len(w) == 0 || len(g) == 0 {
			return nil
		}
		for _, e := range g {
			diffs = append(diffs, f.shapeDiff(path+"[]", w[0], e)...)
		}
	case map[string]any:
		g := got.(map[string]any)
		switch {
		case contains(f.Free, path):
			return nil
		case contains(f.Maps, path):
			var proto any
			for _, k := range sortedKeys(w) {
				proto = w[k]
				break
			}
			if proto == nil {
				return nil
			}
			for _, k := range sortedKeys(g) {
				diffs = append(diffs, f.shapeDiff(path+".*", proto, g[k])...)
			}
		default:
			for _, k := range sortedKeys(w) {
				if _, ok := g[k]; !ok {
					diffs = append(diffs, fmt.Sprintf("%s: no field %q, Connect has it", path, k))
					continue
				}
				diffs = append(diffs, f.shapeDiff(path+"."+k, w[k], g[k])...)
			}
			for _, k := range sortedKeys(g) {
				if _, ok := w[k]; !ok {
					diffs = append(diffs, fmt.Sprintf("%s: field %q, Connect has none", path, k))
				}
			}
		}
	}
	return diffs
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
