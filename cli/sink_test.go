package cli

import (
	"strings"
	"testing"
	"time"
)

func TestSinkEditsThroughRESTAndTheGroup(t *testing.T) {
	c := demoCluster(t)
	time.Sleep(1500 * time.Millisecond) // a few commits
	rest := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}

	// Through REST: es-search uses its consumer.override.group.id.
	before := time.Now()
	if _, errs, code := koff(t, append([]string{"stop", "es-search"}, rest...)...); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := koff(t, withAudit(t, append([]string{"set", "es-search", "--to-datetime", before.Add(-time.Hour).Format(time.RFC3339), "--topic", "logs.app", "--yes"}, rest...)...)...)
	if code != 0 || !strings.Contains(out, "verified: set") || !strings.Contains(out, "via Connect REST") || !strings.Contains(out, `{"kafka_topic":"logs.app","kafka_partition":0}`) || strings.Contains(out, "inventory.public.orders") {
		t.Fatalf("set es-search to a timestamp: exit %d %s\n%s", code, errs, out)
	}
	got, _, _ := koff(t, append([]string{"get", "es-search", "-o", "json"}, rest...)...)
	if !strings.Contains(got, `"partition":{"kafka_partition":0,"kafka_topic":"logs.app"},"offset":{"kafka_offset":0}`) {
		t.Errorf("after moving logs.app to an hour ago (before any record): %s", got)
	}
	if _, errs, code := koff(t, append([]string{"resume", "es-search"}, rest...)...); code != 0 {
		t.Fatal(errs)
	}

	// Without REST: a direct commit to connect-s3-archive, refused while
	// the sink is meant to run (its target state in the config topic),
	// accepted once it is stopped.
	plain := []string{"-b", c.Bootstrap()}
	_, errs, code = koff(t, withAudit(t, append([]string{"set", "s3-archive", "--to-earliest", "--yes"}, plain...)...)...)
	if code != ExitFailed || !strings.Contains(errs, "s3-archive's target state is STARTED (config topic connect-configs)") {
		t.Errorf("commit into a running sink's group: exit %d %q", code, errs)
	}
	if err := c.StopConnector("s3-archive"); err != nil {
		t.Fatal(err)
	}
	out, errs, code = koff(t, withAudit(t, append([]string{"set", "s3-archive", "--shift-by", "-1", "--topic", "shop.orders", "--yes"}, plain...)...)...)
	if code != 0 || !strings.Contains(out, "via group connect-s3-archive") {
		t.Fatalf("shift s3-archive: exit %d %s\n%s", code, errs, out)
	}
	out, errs, code = koff(t, withAudit(t, append([]string{"reset", "s3-archive", "--yes"}, plain...)...)...)
	if code != 0 || !strings.Contains(out, "verified: reset") {
		t.Fatalf("reset s3-archive: exit %d %s\n%s", code, errs, out)
	}
	if _, errs, code := koff(t, append([]string{"get", "s3-archive"}, plain...)...); code != ExitFailed || !strings.Contains(errs, "unknown connector s3-archive: no offsets in connect-offsets, no consumer group connect-s3-archive with committed offsets.") {
		t.Errorf("get after the group was deleted: exit %d %q", code, errs)
	}
	if _, errs, code := koff(t, "set", "s3-archive", "--to-latest", "--to-earliest", "-b", c.Bootstrap()); code != ExitUsage || !strings.Contains(errs, "choose one of") {
		t.Errorf("two strategies: exit %d %q", code, errs)
	}
}
