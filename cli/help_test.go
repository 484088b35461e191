package cli

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// koff help lists every command the dispatch knows, so that one added
// later can never be missing from it (history and metrics once were).
func TestHelpListsEveryCommand(t *testing.T) {
	out, _, code := koff(t, "help")
	if code != 0 {
		t.Fatalf("koff help: exit %d", code)
	}
	listed := map[string]bool{}
	line := regexp.MustCompile(`^  ([a-z][a-z-]*) +\S`)
	inCommands := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case l == "Commands:":
			inCommands = true
		case l == "":
			inCommands = false
		case inCommands:
			if m := line.FindStringSubmatch(l); m != nil {
				listed[m[1]] = true
			}
		}
	}
	for _, c := range commands {
		if c.hidden {
			if listed[c.name] {
				t.Errorf("koff help lists %s, a command of the tests", c.name)
			}
			continue
		}
		if !listed[c.name] {
			t.Errorf("koff help does not list %s:\n%s", c.name, out)
		}
		if !slices.Contains(commandOrder, c.name) {
			t.Errorf("%s is not in commandOrder: koff help lists it last", c.name)
		}
		if c.summary == "" || c.args == "" && c.flags != nil {
			t.Errorf("%s has no summary or no usage line for koff help", c.name)
		}
	}
	for name := range listed {
		if lookup(name) == nil {
			t.Errorf("koff help lists %s, which the dispatch does not know", name)
		}
	}
	for _, want := range []string{"history", "metrics"} {
		if !listed[want] {
			t.Errorf("koff help does not list %s", want)
		}
	}
}

// Every command named in the table of which global flags each command
// uses is a command koff dispatches, and every command that reads Kafka or
// Connect is in it: a command's help lists what it uses.
func TestGlobalFlagTableNamesRealCommands(t *testing.T) {
	for flag, sets := range globalUsedBy {
		if flagSetOf(t).Lookup(flag) == nil {
			t.Errorf("globalUsedBy names %s, which is no global flag", flag)
		}
		for _, set := range sets {
			for _, name := range set {
				if name != "" && lookup(name) == nil {
					t.Errorf("globalUsedBy[%s] names %q, which is no command", flag, name)
				}
			}
		}
	}
	// The commands that need neither Kafka nor Connect.
	local := []string{"version", "demo-cluster", "stop", "resume"}
	for _, c := range listedCommands() {
		if !slices.Contains(local, c.name) && !usesGlobal(c.name, "bootstrap-server") {
			t.Errorf("koff help %s does not list -b, --bootstrap-server", c.name)
		}
	}
}

// koff help history lists the global flags history honours: where it
// reads (-b, the offsets and config topics, security), Connect (a sink's
// group, a connector's own offsets topic) and the audit log (koff's own
// edits are marked).
func TestHelpHistoryListsTheFlagsItUses(t *testing.T) {
	out, _, code := koff(t, "help", "history")
	if code != 0 {
		t.Fatalf("koff help history: exit %d", code)
	}
	for _, want := range []string{"-b, --bootstrap-server", "--offsets-topic", "--config-topic", "--command-config", "--tls", "--sasl-mechanism",
		"--connect-url", "--audit-log", "--context", "--log-file", "--since", "--until", "--partition", "-o, --output"} {
		if !strings.Contains(out, want) {
			t.Errorf("koff help history does not list %s:\n%s", want, out)
		}
	}
	for _, not := range []string{"--fps", "--read-only", "--metrics-listen"} {
		if strings.Contains(out, not) {
			t.Errorf("koff help history lists %s, which history does not use:\n%s", not, out)
		}
	}
	// stop and resume write the audit log too.
	for _, name := range []string{"stop", "resume"} {
		if out, _, _ := koff(t, "help", name); !strings.Contains(out, "--audit-log") {
			t.Errorf("koff help %s does not list --audit-log:\n%s", name, out)
		}
	}
}

// An unknown command is refused with the closest command names, as an
// unknown connector name is.
func TestUnknownCommandSaysDidYouMean(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"hisotry"}, "koff: unknown command \"hisotry\"; did you mean history? (koff help lists the commands)\n"},
		{[]string{"help", "hisotry"}, "koff: unknown command \"hisotry\"; did you mean history? (koff help lists the commands)\n"},
		{[]string{"-b", "127.0.0.1:1", "stauts"}, "koff: unknown command \"stauts\"; did you mean status? (koff help lists the commands)\n"},
		{[]string{"help", "metric"}, "koff: unknown command \"metric\"; did you mean metrics? (koff help lists the commands)\n"},
		{[]string{"zzzzzzzz"}, "koff: unknown command \"zzzzzzzz\" (koff help lists the commands)\n"},
	} {
		out, errs, code := koff(t, tt.args...)
		if code != ExitUsage || errs != tt.want || out != "" {
			t.Errorf("koff %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, out, errs, tt.want)
		}
	}
}

// flagSetOf is the global flags as every command registers them.
func flagSetOf(t *testing.T) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("globals", pflag.ContinueOnError)
	addGlobals(fs, Env{Getenv: func(string) string { return "" }})
	return fs
}
