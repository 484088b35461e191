package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// koffEnv runs koff with an environment.
func koffEnv(t *testing.T, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
	return out.String(), errb.String(), code
}

func writeContexts(t *testing.T, body string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "koff"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "koff", "config.yaml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"XDG_CONFIG_HOME": dir, "HOME": dir}
}

func TestContextsSelectAClusterAndItsReadOnly(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["src",{"server":"db"}]`, `{"lsn":1}`})
	env := writeContexts(t, `current-context: staging
contexts:
  prod:
    bootstrap-servers: [`+addr+`]
    read-only: true
    accent: red
  staging:
    bootstrap-servers: 127.0.0.1:1
`)
	out, errs, code := koffEnv(t, env, "get", "--context", "prod", "-o", "json")
	if code != 0 || !strings.Contains(out, `"src":{"offsets":[{"partition":{"server":"db"},"offset":{"lsn":1}}]}`) {
		t.Fatalf("get --context prod: exit %d %s %s", code, errs, out)
	}
	env["KOFF_CONTEXT"] = "prod"
	if _, errs, code := koffEnv(t, env, "get"); code != 0 {
		t.Errorf("KOFF_CONTEXT=prod: exit %d %s", code, errs)
	}
	// prod is read-only: no flag can make it writable.
	_, errs, code = koffEnv(t, env, "set", "src", "--partition", `{"server":"db"}`, "--offset", `{"lsn":2}`, "--yes", "--audit-log", filepath.Join(t.TempDir(), "a"))
	if code != ExitFailed || !strings.Contains(errs, "read-only") {
		t.Errorf("set in a read-only context: exit %d %q", code, errs)
	}
	// current-context applies when nothing is named; a flag overrides it.
	delete(env, "KOFF_CONTEXT")
	if _, errs, code := koffEnv(t, env, "get"); code != ExitFailed || !strings.Contains(errs, "127.0.0.1:1") {
		t.Errorf("current-context staging: exit %d %q", code, errs)
	}
	if _, errs, code := koffEnv(t, env, "get", "-b", addr); code != 0 {
		t.Errorf("-b overrides the context: exit %d %q", code, errs)
	}
	_, errs, code = koffEnv(t, env, "get", "--context", "qa")
	if code != ExitUsage || !strings.Contains(errs, `context "qa" is not in`) || !strings.Contains(errs, "have: prod, staging") {
		t.Errorf("unknown context: exit %d %q", code, errs)
	}
}

func TestContextFileMistakesAreUsageErrors(t *testing.T) {
	env := writeContexts(t, "contexts:\n  prod:\n    bootstrap-server: x:9092\n")
	_, errs, code := koffEnv(t, env, "get", "--context", "prod")
	if code != ExitUsage || !strings.Contains(errs, "bootstrap-server") || strings.Count(errs, "\n") != 1 {
		t.Errorf("misspelt key: exit %d %q", code, errs)
	}
}

// --demo runs on the embedded cluster, which is no context of the config
// file: the current context is not named (the header would show it), and
// --context with --demo is a usage error.
func TestDemoIsNoContext(t *testing.T) {
	env := writeContexts(t, "current-context: prod\ncontexts:\n  prod:\n    bootstrap-servers: [kafka:9092]\n")
	env["KOFF_CONTEXT"] = "prod"
	parse := func(args ...string) (*Globals, error) {
		fs := pflag.NewFlagSet("koff", pflag.ContinueOnError)
		g := addGlobals(fs, Env{Getenv: func(k string) string { return env[k] }})
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		return g, g.finish(fs)
	}
	g, err := parse("--demo")
	if err != nil || g.Context != "" {
		t.Fatalf("--demo with a current context: context %q, %v", g.Context, err)
	}
	if slices.Contains(g.shownGlobals(nil), "--context") {
		t.Errorf("the demo's equivalent commands name a context: %v", g.shownGlobals(nil))
	}
	if _, err := parse("--demo", "--context", "prod"); err == nil || !strings.Contains(err.Error(), "--demo") {
		t.Errorf("--demo --context prod: %v, want a usage error", err)
	}
	g, err = parse("--context", "prod", "--read-only")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(g.shownGlobals(nil), " "); !strings.HasPrefix(got, "--context prod --read-only -b kafka:9092") {
		t.Errorf("equivalent command globals %q: want the context and read-only first", got)
	}
}
