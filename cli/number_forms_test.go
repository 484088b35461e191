package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// lastValues reads connect-offsets as any client would: the last value
// record of each key, as raw bytes ("" for a tombstone).
func lastValues(t *testing.T, addr string) map[string]string {
	t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 10 * time.Second}
	out := map[string]string{}
	for p := range 25 {
		res, err := c.Fetch(context.Background(), &kafkago.FetchRequest{Topic: "connect-offsets", Partition: p, MaxBytes: 10 << 20})
		if err != nil || res.Error != nil {
			t.Fatalf("fetch %d: %v %v", p, err, res.Error)
		}
		for {
			r, err := res.Records.ReadRecord()
			if err != nil {
				break
			}
			k, _ := io.ReadAll(r.Key)
			v := []byte{}
			if r.Value != nil {
				v, _ = io.ReadAll(r.Value)
			}
			out[string(k)] = string(v)
		}
	}
	return out
}

// export, reset, import writes back the very value bytes the export held,
// whatever form each number has: Java's, or one a task would never write
// (-0.0, 1E2, 1.5e-400, 1e400, 0.1e1, -0, beyond 64 bits, 100.000).
func TestExportResetImportKeepsEveryNumberForm(t *testing.T) {
	addr := offsetsBroker(t)
	forms := []string{`-0.0`, `1E2`, `1e2`, `1E+2`, `1.5e-400`, `1e400`, `0.1e1`, `-0`, `18446744073709551621`,
		`1.0`, `100.000`, `0.0`, `-1E-7`, `123456789012345678901234567890.5`, `9223372036854775807`, `1.0E20`}
	var recs [][2]string
	want := map[string]string{}
	for i, f := range forms {
		key := `["nums",{"i":` + strconv.Itoa(i) + `}]`
		want[key] = `{"v":` + f + `}`
		recs = append(recs, [2]string{key, want[key]})
	}
	produceConnect(t, addr, recs...)
	exported, errs, code := koff(t, "export", "-b", addr)
	if code != 0 {
		t.Fatal(errs)
	}
	file := filepath.Join(t.TempDir(), "offsets.json")
	if err := os.WriteFile(file, []byte(exported), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := koff(t, withAudit(t, "reset", "nums", "-b", addr, "--yes")...); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := koff(t, withAudit(t, "import", file, "-b", addr, "--yes")...)
	if code != 0 {
		t.Fatalf("import: %s\n%s", errs, out)
	}
	// Kept as written, and the plan says what a task makes of it.
	for _, w := range []string{`written as given, {"v":1.5e-400}: a task reads {"v":0.0}`, `written as given, {"v":-0.0}: a task reads {"v":0.0}`} {
		if !strings.Contains(out, w) {
			t.Errorf("no warning %q in\n%s", w, out)
		}
	}
	got := lastValues(t, addr)
	for key, v := range want {
		if got[key] != v {
			t.Errorf("%s: after export, reset, import %q, want %q", key, got[key], v)
		}
	}
	if again, _, _ := koff(t, "export", "-b", addr); again != exported {
		t.Errorf("export after import:\n got %s\nwant %s", again, exported)
	}
}

// Through Connect's REST API the worker re-serialises an imported offset
// (Java's numbers, its HashMap's field order): the plan shows what it
// writes, which is what get reads back afterwards.
func TestImportThroughRESTShowsWhatTheWorkerWrites(t *testing.T) {
	c := demoCluster(t)
	rest := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	if _, errs, code := koff(t, append([]string{"stop", "debezium-inventory"}, rest...)...); code != 0 {
		t.Fatal(errs)
	}
	file := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(file, []byte(`{"debezium-inventory":{"offsets":[{"partition":{"server":"inventory"},"offset":{"lsn":1E2,"txId":-0.0,"ts_usec":1}}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	const written = `{"lsn":100.0,"txId":0.0,"ts_usec":1}`
	out, errs, code := koff(t, withAudit(t, append([]string{"import", file, "--yes"}, rest...)...)...)
	if code != 0 || !strings.Contains(out, "→ "+written+"\n") || !strings.Contains(out, "verified") {
		t.Fatalf("import through REST: exit %d %s\n%s", code, errs, out)
	}
	got, _, _ := koff(t, append([]string{"get", "debezium-inventory", "-o", "json"}, rest...)...)
	if !strings.Contains(got, `"offset":`+written+`}`) {
		t.Errorf("get after the import: %s", got)
	}
}
