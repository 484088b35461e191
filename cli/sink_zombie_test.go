package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Issue 20 (OffsetsApiIntegrationTest's zombie sink tasks): when a stopped
// sink's group still has a member, koff never reports success: through
// REST it prints Connect's message ("zombie sink tasks"), directly it says
// the group still has members, and nothing is committed.
func TestSinkEditWithAZombieMemberFails(t *testing.T) {
	c := demoCluster(t)
	rest := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	plain := []string{"-b", c.Bootstrap()}
	waitFor(t, "es-search's committed offsets", func() bool {
		out, _, code := koff(t, append([]string{"get", "es-search", "-o", "json"}, rest...)...)
		return code == 0 && strings.Count(out, "kafka_offset") == 4
	})
	if _, errs, code := koff(t, append([]string{"stop", "es-search"}, rest...)...); code != 0 {
		t.Fatal(errs)
	}
	before := sinkCommitted(t, append([]string{"es-search"}, rest...)...)
	zombie, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()), kgo.ConsumerGroup("es-search-v2"), kgo.ConsumeTopics("logs.app"), kgo.DisableAutoCommit())
	if err != nil {
		t.Fatal(err)
	}
	defer zombie.Close()
	waitFor(t, "the zombie member in es-search-v2", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		zombie.PollRecords(ctx, 1)
		cancel()
		out, _, _ := koff(t, append([]string{"status", "es-search", "-o", "json"}, rest...)...)
		return strings.Contains(out, `"members":1`)
	})
	_, errs, code := koff(t, withAudit(t, append([]string{"set", "es-search", "--to-earliest", "--yes"}, rest...)...)...)
	if code == 0 || !strings.Contains(errs, "zombie sink tasks") {
		t.Errorf("through REST: exit %d, want Connect's zombie sink tasks message: %q", code, errs)
	}
	out, errs, code := koff(t, withAudit(t, append([]string{"set", "es-search", "--to-earliest", "--yes"}, plain...)...)...)
	if code == 0 || !strings.Contains(out+errs, "has 1 active members") || strings.Contains(out, "verified") {
		t.Errorf("directly: exit %d, want the group's members named\n%s\n%s", code, out, errs)
	}
	if after := sinkCommitted(t, append([]string{"es-search"}, rest...)...); len(after) != len(before) || after["logs.app/0"] != before["logs.app/0"] {
		t.Errorf("committed offsets moved: %v, were %v", after, before)
	}
}
