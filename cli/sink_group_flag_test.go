package cli

import (
	"strings"
	"testing"
)

// Issue 21: koff get and status take --group for a sink whose group is
// overridden (consumer.override.group.id), without REST or a config topic;
// a --group that Connect's REST API contradicts is refused.
func TestGetAndStatusTakeASinksGroup(t *testing.T) {
	c := demoCluster(t)
	bare := []string{"-b", c.Bootstrap(), "--config-topic", ""}
	waitFor(t, "es-search's group es-search-v2 with committed offsets", func() bool {
		out, _, code := koff(t, append([]string{"get", "es-search", "--group", "es-search-v2", "-o", "json"}, bare...)...)
		return code == 0 && strings.Contains(out, `"partition":{"kafka_partition":0,"kafka_topic":"logs.app"}`)
	})
	if _, errs, code := koff(t, append([]string{"get", "es-search"}, bare...)...); code == 0 || !strings.Contains(errs, "unknown connector es-search") {
		t.Errorf("without --group, connect-es-search is not its group: exit %d %q", code, errs)
	}
	out, errs, code := koff(t, append([]string{"get", "es-search", "--group", "es-search-v2", "-o", "json"}, bare...)...)
	if code != 0 || !strings.Contains(out, `"partition":{"kafka_partition":0,"kafka_topic":"logs.app"}`) {
		t.Errorf("get --group: exit %d %s\n%s", code, errs, out)
	}
	out, errs, code = koff(t, append([]string{"status", "es-search", "--group", "es-search-v2"}, bare...)...)
	if code != 0 || !strings.Contains(out, "es-search-v2") || !strings.Contains(out, "logs.app/") {
		t.Errorf("status --group: exit %d %s\n%s", code, errs, out)
	}
	rest := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	for _, cmd := range []string{"get", "status"} {
		if _, errs, code := koff(t, append([]string{cmd, "es-search", "--group", "connect-es-search"}, rest...)...); code == 0 || !strings.Contains(errs, "sink es-search uses group es-search-v2 (Connect's REST API), not connect-es-search") {
			t.Errorf("%s --group against REST: exit %d %q", cmd, code, errs)
		}
		if _, errs, code := koff(t, append([]string{cmd, "--group", "es-search-v2"}, bare...)...); code != ExitUsage || !strings.Contains(errs, "name exactly one CONNECTOR") {
			t.Errorf("%s --group without a connector: exit %d %q", cmd, code, errs)
		}
	}
}
