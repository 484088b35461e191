package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"koff/demo"
)

func demoCluster(t *testing.T) *demo.Cluster {
	t.Helper()
	c, err := demo.Start(context.Background(), demo.Options{FlushInterval: 200 * time.Millisecond, ConnectListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestSetThroughRESTNeedsAStoppedConnector(t *testing.T) {
	c := demoCluster(t)
	flags := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	set := withAudit(t, append([]string{"set", "jdbc-shop", "--yes", "--partition", `{"protocol":"1","table":"shop.public.orders"}`, "--offset", `{"incrementing":7}`}, flags...)...)

	out, errs, code := koff(t, set...)
	if code != ExitFailed || !strings.Contains(errs, "jdbc-shop is RUNNING (Connect REST status, 2 tasks), target state STARTED (config topic connect-configs): koff changes offsets only of a STOPPED connector") {
		t.Fatalf("set on a running connector: exit %d %q\n%s", code, errs, out)
	}
	if !strings.Contains(out, "state:  RUNNING (Connect REST), target state STARTED (config topic connect-configs)") || !strings.Contains(out, "path:   Connect REST") {
		t.Errorf("plan:\n%s", out)
	}

	out, errs, code = koff(t, append([]string{"stop", "jdbc-shop"}, flags...)...)
	if code != 0 || out != "jdbc-shop is STOPPED\n" {
		t.Fatalf("stop: exit %d %q %q", code, out, errs)
	}
	out, errs, code = koff(t, set...)
	if code != 0 || !strings.Contains(out, "verified: set 1 partition of jdbc-shop via Connect REST") || !strings.Contains(out, "Connect: The Connect framework-managed offsets for this connector have been altered successfully.") {
		t.Fatalf("set on a stopped connector: exit %d %q\n%s", code, errs, out)
	}
	if got, _, _ := koff(t, "get", "jdbc-shop", "-o", "json", "-b", c.Bootstrap()); !strings.Contains(got, `{"partition":{"protocol":"1","table":"shop.public.orders"},"offset":{"incrementing":7}}`) {
		t.Errorf("get after the edit: %s", got)
	}
	if out, errs, code = koff(t, append([]string{"resume", "jdbc-shop"}, flags...)...); code != 0 || out != "jdbc-shop resumed\n" {
		t.Errorf("resume: exit %d %q %q", code, out, errs)
	}
	_, errs, code = koff(t, append([]string{"stop", "nosuch"}, flags...)...)
	if code != ExitFailed || errs != "koff: unknown connector nosuch: Connect does not list it.\n" {
		t.Errorf("stop of an unknown connector: exit %d %q", code, errs)
	}
	_, errs, code = koff(t, "stop", "jdbc-shop", "-b", c.Bootstrap())
	if code != ExitUsage || !strings.Contains(errs, "needs Connect's REST API") {
		t.Errorf("stop without --connect-url: exit %d %q", code, errs)
	}
}
