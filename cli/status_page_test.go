package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"koff/demo"
)

// `koff status || page-someone` pages for a connector that stopped
// committing: with --connect-url it is stalled (records written since its
// last flush, exit 1); without, koff cannot tell whether it runs, and an
// unknown flush after 3× its interval exits 4, named on stderr.
func TestStatusPagesForAConnectorThatStoppedCommitting(t *testing.T) {
	c, err := demo.Start(context.Background(), demo.Options{FlushInterval: 200 * time.Millisecond, StallAfter: 300 * time.Millisecond, ConnectListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	var out, errs string
	var code int
	deadline := time.Now().Add(30 * time.Second)
	for code == 0 {
		out, errs, code = koff(t, "status", "-b", c.Bootstrap(), "--connect-url", c.ConnectURL(), "--flush-interval", "200ms")
		if time.Now().After(deadline) {
			t.Fatalf("jdbc-legacy never stalled:\n%s", out)
		}
	}
	if code != ExitFailed || !strings.Contains(errs, "stalled: ") || !strings.Contains(errs, "jdbc-legacy") {
		t.Errorf("with --connect-url: exit %d, want 1 naming jdbc-legacy: %s\n%s", code, errs, out)
	}
	out, errs, code = koff(t, "status", "-b", c.Bootstrap(), "--flush-interval", "200ms")
	if code != ExitFlushUnknown || !strings.Contains(errs, "flush unknown after 3× its interval: ") || !strings.Contains(errs, "jdbc-legacy (no flush for ") {
		t.Errorf("without --connect-url: exit %d, want 4 naming jdbc-legacy: %s\n%s", code, errs, out)
	}
	if line := lineOf(out, "jdbc-legacy"); !strings.Contains(line, "UNKNOWN") {
		t.Errorf("jdbc-legacy's row: %q", line)
	}
}

// A failed task shows in the TASKS column and fails `koff status`, the
// connector's state RUNNING or not; -o json says it too.
func TestStatusShowsAndFailsOnAFailedTask(t *testing.T) {
	c := demoCluster(t)
	flags := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	if out, errs, code := koff(t, append([]string{"status"}, flags...)...); code != 0 {
		t.Fatalf("before the failure: exit %d %s\n%s", code, errs, out)
	}
	if err := c.FailTask("jdbc-shop", 1); err != nil {
		t.Fatal(err)
	}
	out, errs, code := koff(t, append([]string{"status"}, flags...)...)
	if code != ExitFailed || !strings.Contains(errs, "failed: jdbc-shop") {
		t.Errorf("exit %d, want 1 naming jdbc-shop: %s", code, errs)
	}
	header, line := lineOf(out, "SOURCE"), lineOf(out, "jdbc-shop")
	if !strings.Contains(header, "  TASKS  ") || !strings.Contains(line, "1 running, 1 failed") {
		t.Errorf("no failed task in the table:\n%s", out)
	}
	out, _, code = koff(t, append([]string{"status", "-o", "json"}, flags...)...)
	if code != ExitFailed || !strings.Contains(out, `"tasks":"1 running, 1 failed"`) {
		t.Errorf("-o json: exit %d\n%s", code, out)
	}
}

func lineOf(out, word string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, word) {
			return l
		}
	}
	return ""
}

// A connector that was idle and just produced is not stalled in a
// one-shot `koff status`: its records are dated by their timestamps, and
// it owes a flush an interval after them, not after its last flush.
func TestStatusDoesNotPageForRecordsWrittenJustNow(t *testing.T) {
	b := broker(t)
	for topic, n := range map[string]int{"connect-offsets": 25, "inventory.public.orders": 1} {
		if err := b.CreateTopic(topic, n, nil); err != nil {
			t.Fatal(err)
		}
	}
	addr := b.Bootstrap()
	old := time.Now().Add(-time.Hour)
	produceAt(t, addr, `["dbz",{"server":"inventory"}]`, `{"lsn":1}`, old)
	produceAt(t, addr, `["dbz",{"server":"inventory"}]`, `{"lsn":2}`, old.Add(2*time.Second))
	produceTo(t, addr, "inventory.public.orders", 0, [2]string{"k", `{"op":"c"}`})
	out, errs, code := koff(t, "status", "-b", addr, "--connector-topics", "dbz=inventory.public.orders", "--flush-interval", "10s")
	if code != 0 || !strings.Contains(lineOf(out, "dbz"), "1 records to flush") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
}
