package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Class 21.7: a read-only refusal names its cause (--read-only, or the
// context's read-only) and comes before any other error: a typo, a bad
// partition, a bad file, an unknown connector to stop; a read-only dry run
// still prints the plan.
func TestReadOnlyRefusalsNameTheirCauseFirst(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["src",{"server":"db"}]`, `{"lsn":1}`})
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`[1]`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := writeContexts(t, `contexts:
  prod:
    bootstrap-servers: [`+addr+`]
    read-only: true
`)
	commands := [][]string{
		{"set", "srcc", "--partition", `{"server":"db"}`, "--offset", `{"lsn":2}`},
		{"set", "src", "--partition", `not json`, "--offset", `{"lsn":2}`},
		{"reset", "srcc"},
		{"import", bad},
		{"copy", "srcc", "dst"},
		{"undo", "srcc"},
		{"stop", "srcc", "--connect-url", closedURL(t)},
		{"resume", "srcc"},
	}
	for _, ro := range []struct{ how, cause string }{
		{"--read-only", "(started with --read-only)"},
		{"--context", "(context prod is read-only in "},
	} {
		for _, args := range commands {
			if args[0] != "stop" && args[0] != "resume" {
				args = append(args, "--yes")
			}
			args = withAudit(t, append(args, "-b", addr)...)
			if ro.how == "--read-only" {
				args = append(args, "--read-only")
			} else {
				args = append(args, "--context", "prod")
			}
			_, errs, code := koffEnv(t, env, args...)
			if args[0] == "stop" || args[0] == "resume" {
				args = args[:2]
			}
			if code != ExitFailed || !strings.HasPrefix(errs, "koff: read-only: ") || !strings.Contains(errs, ro.cause) || strings.Count(errs, "\n") != 1 {
				t.Errorf("%s koff %s: exit %d %q, want the read-only refusal %s first", ro.how, strings.Join(args, " "), code, errs, ro.cause)
			}
		}
	}
	out, errs, code := koffEnv(t, env, withAudit(t, "set", "src", "--partition", `{"server":"db"}`, "--offset", `{"lsn":2}`, "--dry-run", "--context", "prod")...)
	if code != 0 || !strings.Contains(out, `{"lsn":1} → {"lsn":2}`) || !strings.Contains(out, "dry run: nothing written (read-only: a real run would be refused)") {
		t.Errorf("a read-only dry run: exit %d %q\n%s", code, errs, out)
	}
}
