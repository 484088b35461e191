package cli

import (
	"strings"
	"testing"
)

// Class 21.7: a typo gets the same "did you mean" in every command that
// names a connector, on one line; only commands for which a new name makes
// sense (set, copy's target, import) add --create.
func TestEveryCommandSaysDidYouMean(t *testing.T) {
	c := demoCluster(t)
	rest := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	for _, args := range [][]string{
		{"get", "jdbc-shp"},
		{"export", "jdbc-shp"},
		{"copy", "jdbc-shp", "jdbc-crm", "--yes"},
		{"stop", "jdbc-shp"},
		{"resume", "jdbc-shp"},
		{"undo", "jdbc-shp", "--yes"},
		{"reset", "jdbc-shp", "--yes"},
		{"reset", "jdbc-shp", "--partition", `{"table":"orders"}`, "--yes"},
	} {
		_, errs, code := koff(t, withAudit(t, append(args, rest...)...)...)
		if code == 0 || !strings.Contains(errs, "jdbc-shp") || !strings.Contains(errs, "; did you mean jdbc-shop?") {
			t.Errorf("koff %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
		}
		if strings.Contains(errs, "--create") {
			t.Errorf("koff %s suggests --create: %q", strings.Join(args, " "), errs)
		}
		if n := strings.Count(strings.TrimSpace(errs), "\n"); n > 0 {
			t.Errorf("koff %s: %d lines on stderr, want one", strings.Join(args, " "), n+1)
		}
	}
}
