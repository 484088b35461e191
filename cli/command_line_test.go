package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// printedCommand is the plan's "command:" line of a koff output.
func printedCommand(t *testing.T, out string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if c, ok := strings.CutPrefix(strings.TrimSpace(l), "command: "); ok {
			return c
		}
	}
	t.Fatalf("no command line in\n%s", out)
	return ""
}

// shellWords lets bash read a printed command as an operator's shell
// would, process substitution included (its file is copied, since it is
// gone once bash exits), and returns koff's arguments.
func shellWords(t *testing.T, command string) []string {
	t.Helper()
	bash := needTool(t, "bash")
	dir := t.TempDir()
	script := `koff() { for a; do case $a in /dev/fd/*) f=$(mktemp -p "$DIR"); cat "$a" >"$f"; a=$f;; esac; printf '%s\0' "$a"; done; }; ` + command
	cmd := exec.Command(bash, "-c", script)
	cmd.Env = append(os.Environ(), "DIR="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash %s: %v", command, err)
	}
	words := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	return words
}

// Every printed command line runs as printed: run again with --dry-run,
// it makes the same plan (the same output, command line included), so
// --create, --group, --topic, --context, every --offsets-topic and the
// --audit-log are in it.
func TestPrintedCommandRunsAsPrinted(t *testing.T) {
	c := demoCluster(t)
	addr := c.Bootstrap()
	// The sinks first commit, then stop: their offsets hold still.
	for _, sink := range [][]string{{"s3-archive", "connect-s3-archive"}, {"es-search", "es-search-v2"}} {
		waitFor(t, "a commit of "+sink[0], func() bool {
			_, errs, _ := koff(t, "set", sink[0], "--group", sink[1], "--to-earliest", "--topic", "logs.app", "--topic", "shop.orders", "-b", addr, "--dry-run")
			return !strings.Contains(errs, "committed offsets")
		})
		if err := c.StopConnector(sink[0]); err != nil {
			t.Fatal(err)
		}
	}
	// And the sources copied and set: their tasks would flush between the
	// two runs of a plan. file-logs too: it writes logs.app, whose end the
	// sinks' plans measure their lag after by.
	for _, src := range []string{"jdbc-shop", "jdbc-crm", "file-logs"} {
		if err := c.StopConnector(src); err != nil {
			t.Fatal(err)
		}
	}
	env := writeContexts(t, "contexts:\n  demo:\n    bootstrap-servers: ["+addr+"]\n    offsets-topics: [connect-offsets-crm]\n")
	imp := filepath.Join(t.TempDir(), "new.json")
	if err := os.WriteFile(imp, []byte(`{"brand-new":{"offsets":[{"partition":{"t":1},"offset":{"o":1}},{"partition":{"t":2},"offset":{"o":-0.0}}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	undoLog := withAudit(t)
	if out, errs, code := koffEnv(t, env, append([]string{"set", "jdbc-old-orders", "-b", addr, "--yes", "--partition", `{"protocol":"1","table":"orders.public.order_lines"}`, "--offset", `{"incrementing":3}`}, undoLog...)...); code != 0 {
		t.Fatalf("set before undo: %s\n%s", errs, out)
	}
	for _, args := range [][]string{
		append([]string{"undo", "-b", addr}, undoLog...),
		withAudit(t, "set", "brand-new", "--create", "--partition", `{"t":"a b"}`, "--offset", `{"o":1}`, "-b", addr),
		{"reset", "jdbc-old-orders", "-b", addr, "--partition", `{"protocol":"1","table":"orders.public.orders"}`},
		{"import", imp, "--create", "-b", addr},
		{"copy", "jdbc-shop", "jdbc-shop-2", "--create", "-b", addr},
		{"set", "es-search", "--group", "es-search-v2", "--to-earliest", "-b", addr},
		{"reset", "es-search", "--group", "es-search-v2", "-b", addr},
		{"set", "s3-archive", "--to-latest", "--topic", "shop.orders", "--topic", "shop.payments", "-b", addr},
		{"set", "jdbc-shop", "--context", "demo", "--offsets-topic", "connect-offsets", "--partition", `{"protocol":"1","table":"shop.public.orders"}`, "--offset", `{"incrementing":7}`},
		{"set", "jdbc-crm", "--context", "demo", "--partition", `{"protocol":"1","table":"crm.public.deals"}`, "--offset", `{"incrementing":7}`},
		{"set", "jdbc-crm", "--offsets-topic", "connect-offsets", "--offsets-topic", "connect-offsets-crm", "-b", addr, "--create",
			"--partition", `{"protocol":"1","table":"crm.public.accounts"}`, "--offset", `{"incrementing":7}`},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			first, errs, code := koffEnv(t, env, append(args, "--dry-run")...)
			if code != 0 {
				t.Fatalf("%v: exit %d %s\n%s", args, code, errs, first)
			}
			words := shellWords(t, printedCommand(t, first))
			again, errs, code := koffEnv(t, env, append(words, "--dry-run")...)
			// The plan tells ages ("since 2s ago"), which move between the runs.
			if code != 0 || withoutAges(again) != withoutAges(first) {
				t.Errorf("the printed command %q: exit %d %s\n got %s\nwant %s", printedCommand(t, first), code, errs, again, first)
			}
		})
	}
}

// ages are relative times as a plan tells them.
var ages = regexp.MustCompile(`\b[0-9]+(ms|s|m|h|d) ago\b`)

func withoutAges(s string) string { return ages.ReplaceAllString(s, "… ago") }

// waitFor waits until cond holds, failing after 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after 30 s", what)
		}
	}
}
