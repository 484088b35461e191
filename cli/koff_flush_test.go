package cli

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"koff/demo"
)

// flushOf is `koff status NAME -o json`'s flush status and reason.
func flushOf(t *testing.T, name string, flags ...string) (string, string) {
	t.Helper()
	out, errs, _ := koff(t, append([]string{"status", "-o", "json", name, "--flush-interval", "200ms"}, flags...)...)
	var st struct {
		Connectors []statusJSON `json:"connectors"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || len(st.Connectors) != 1 || st.Connectors[0].Flush == nil {
		t.Fatalf("status %s: %v %s\n%s", name, err, errs, out)
	}
	f := st.Connectors[0].Flush
	return f.Status, f.Reason
}

// koff's own edits are not the connector's flushes: a set written into a
// stalled connector's partition leaves it stalled, and after a reset of
// every partition its tombstones are not "ok: flushing" either.
func TestKoffEditsAreNoFlushes(t *testing.T) {
	c, err := demo.Start(context.Background(), demo.Options{FlushInterval: 200 * time.Millisecond, StallAfter: 500 * time.Millisecond, ConnectListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	rest := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	waitFor(t, "a stalled jdbc-legacy", func() bool {
		st, _ := flushOf(t, "jdbc-legacy", rest...)
		return st == "stalled"
	})
	// Written straight to the topic while it runs (no --connect-url, and
	// no config topic, whose target state STARTED koff would refuse): the
	// task would overwrite it at its next flush, but it flushes no more.
	out, errs, code := koff(t, withAudit(t, "set", "jdbc-legacy", "-b", c.Bootstrap(), "--config-topic", "", "--partition", `{"protocol":"1","table":"legacy.public.accounts"}`, "--offset", `{"incrementing":1}`, "--yes")...)
	if code != 0 {
		t.Fatalf("set: %s\n%s", errs, out)
	}
	if st, why := flushOf(t, "jdbc-legacy", rest...); st != "stalled" {
		t.Errorf("after koff's set, jdbc-legacy is %s (%s), want stalled", st, why)
	}
	out, errs, code = koff(t, withAudit(t, "reset", "jdbc-legacy", "-b", c.Bootstrap(), "--config-topic", "", "--yes")...)
	if code != 0 {
		t.Fatalf("reset: %s\n%s", errs, out)
	}
	if st, why := flushOf(t, "jdbc-legacy", rest...); st == "ok" || why == "flushing" {
		t.Errorf("after koff's reset of every partition, jdbc-legacy is %s (%s)", st, why)
	}
}
