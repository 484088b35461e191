package main

import (
	"os/exec"
	"strings"
	"testing"
)

// importRule is what one koff package (or family, "x/...") may import of
// koff, and whether it may use modules outside the standard library.
type importRule struct {
	pkg        string
	allow      []string
	thirdParty bool
}

// importRules are the arrows of docs/ARCHITECTURE.md ("Who may import
// whom"). The first rule whose pattern matches a package applies to it.
var importRules = []importRule{
	// The foundation: what Java and Jackson do, and the sanitiser.
	{pkg: "koff/model/java"},
	{pkg: "koff/model/text"},
	// Connect's offset semantics, then the Store engine on top of it.
	// The resume check's judgement: facts in, states out, no I/O; the rows
	// carry its results.
	{pkg: "koff/model/resume"},
	{pkg: "koff/model", allow: []string{"koff/model/java", "koff/model/resume"}},
	{pkg: "koff/model/store", allow: []string{"koff/model", "koff/model/java", "koff/model/text", "koff/model/resume"}},
	{pkg: "koff/keymap", thirdParty: true},
	{pkg: "koff/internal/faultproxy", thirdParty: true},
	{pkg: "koff/internal/sshtest", thirdParty: true},
	{pkg: "koff/internal/testhome"},
	{pkg: "koff/kafka/security", allow: []string{"koff/model/..."}, thirdParty: true},
	{pkg: "koff/kafka", allow: []string{"koff/model/...", "koff/kafka/security"}, thirdParty: true},
	{pkg: "koff/connect/...", allow: []string{"koff/model/...", "koff/connect/..."}, thirdParty: true},
	// The resume check's probes: read-only, bounded looks at the systems
	// connectors read (topics, a MirrorMaker source cluster, files,
	// databases).
	{pkg: "koff/probe", allow: []string{"koff/model/...", "koff/kafka", "koff/kafka/security", "koff/connect"}, thirdParty: true},
	// The edit pipeline, bottom up: a plan as data; the audit log;
	// planning (request → Plan); history and rewind; the write path, which
	// needs nothing of planning but the Plan; undo; the Editor on top
	// wires them. No part imports one above it.
	{pkg: "koff/edit/plan", allow: []string{"koff/model/..."}},
	{pkg: "koff/edit/audit", allow: []string{"koff/model/...", "koff/edit/plan"}},
	{pkg: "koff/edit/planner", allow: []string{"koff/model/...", "koff/connect", "koff/edit/plan"}},
	{pkg: "koff/edit/history", allow: []string{"koff/model/...", "koff/edit/plan", "koff/edit/audit", "koff/edit/planner"}},
	{pkg: "koff/edit/apply", allow: []string{"koff/model/...", "koff/connect", "koff/edit/plan", "koff/edit/audit"}},
	{pkg: "koff/edit/undo", allow: []string{"koff/model/...", "koff/connect", "koff/edit/plan", "koff/edit/audit", "koff/edit/planner", "koff/edit/apply"}},
	{pkg: "koff/edit", allow: []string{"koff/model/...", "koff/connect", "koff/edit/plan", "koff/edit/audit", "koff/edit/planner", "koff/edit/history", "koff/edit/apply", "koff/edit/undo"}, thirdParty: true},
	// The dashboard never reaches Kafka or Connect itself: it reads and
	// writes through the ports in ui/kit. Screens and dialogs are built
	// from the kit and know nothing of each other; the root routes.
	{pkg: "koff/ui/kit", allow: []string{"koff/model/...", "koff/edit/...", "koff/keymap"}, thirdParty: true},
	{pkg: "koff/ui/screens", allow: []string{"koff/model/...", "koff/edit/...", "koff/keymap", "koff/ui/kit"}, thirdParty: true},
	{pkg: "koff/ui/dialogs", allow: []string{"koff/model/...", "koff/edit/...", "koff/keymap", "koff/ui/kit"}, thirdParty: true},
	{pkg: "koff/ui", allow: []string{"koff/model/...", "koff/edit/...", "koff/keymap", "koff/ui/kit", "koff/ui/screens", "koff/ui/dialogs"}, thirdParty: true},
	// The Prometheus collector reads the Store's snapshots and judges
	// nothing itself.
	{pkg: "koff/metrics", allow: []string{"koff/model/..."}, thirdParty: true},
	{pkg: "koff/demo/rest", allow: []string{"koff/model/..."}, thirdParty: true},
	{pkg: "koff/demo", allow: []string{"koff/model/...", "koff/kafka/...", "koff/demo/rest"}, thirdParty: true},
	// koff serve's SSH server gives each session a dashboard; the command
	// line wires everything, and nothing but main imports it.
	{pkg: "koff/cli/serve", allow: []string{"koff/model/...", "koff/edit/...", "koff/keymap", "koff/ui"}, thirdParty: true},
	{pkg: "koff/cli/...", allow: []string{"koff/model/...", "koff/kafka/...", "koff/connect/...", "koff/edit/...", "koff/ui/...", "koff/ui", "koff/keymap", "koff/demo/...", "koff/metrics", "koff/probe", "koff/cli/..."}, thirdParty: true},
	{pkg: "koff", allow: []string{"koff/cli"}},
	// Test rigs: the real stack and the benchmark workloads.
	{pkg: "koff/interop/...", allow: []string{"koff/demo/...", "koff/interop/...", "koff/model/...", "koff/kafka/...", "koff/probe"}, thirdParty: true},
	{pkg: "koff/bench/...", allow: []string{"koff/model/...", "koff/demo/...", "koff/bench/..."}, thirdParty: true},
}

// matches says whether path is pattern, or under it for "x/...".
func matches(pattern, path string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

func ruleFor(pkg string) (importRule, bool) {
	for _, r := range importRules {
		if matches(r.pkg, pkg) {
			return r, true
		}
	}
	return importRule{}, false
}

// TestImportRules checks every koff package's imports, as go list reports
// them, against importRules: an arrow the other way, a screen importing a
// dialog, or the model reaching for a module outside the standard library
// fails here, naming the package and the import.
func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, imports := f[0], f[1:]
		rule, ok := ruleFor(pkg)
		if !ok {
			t.Errorf("%s: no import rule says what it may import: add it to importRules and docs/ARCHITECTURE.md", pkg)
			continue
		}
		seen++
		for _, imp := range imports {
			switch {
			case matches("koff/...", imp):
				allowed := false
				for _, a := range rule.allow {
					allowed = allowed || matches(a, imp)
				}
				if !allowed && !(strings.HasSuffix(rule.pkg, "/...") && matches(rule.pkg, imp)) {
					t.Errorf("%s imports %s: its rule (%s) allows only %v", pkg, imp, rule.pkg, rule.allow)
				}
			case !strings.Contains(strings.Split(imp, "/")[0], "."):
				// the standard library
			case !rule.thirdParty:
				t.Errorf("%s imports %s: it may use only the standard library and the koff packages below it", pkg, imp)
			}
		}
	}
	if seen < 15 {
		t.Fatalf("go list named only %d koff packages", seen)
	}
}

// TestImportRulesCatchAnArrowTheOtherWay: the rules are not vacuous.
func TestImportRulesCatchAnArrowTheOtherWay(t *testing.T) {
	for _, c := range []struct {
		pkg, imp string
		ok       bool
	}{
		{"koff/model", "koff/model/store", false},
		{"koff/model/java", "koff/model", false},
		{"koff/model/store", "koff/model/java", true},
		{"koff/ui/screens", "koff/ui/dialogs", false},
		{"koff/ui/kit", "koff/ui/screens", false},
		{"koff/ui", "koff/kafka", false},
		{"koff/ui/dialogs", "koff/connect", false},
		{"koff/edit", "koff/ui", false},
		{"koff/kafka", "koff/edit", false},
		{"koff/edit/plan", "koff/edit", false},
		{"koff/edit/plan", "koff/edit/audit", false},
		{"koff/edit/audit", "koff/edit", false},
		{"koff/edit/audit", "koff/edit/apply", false},
		{"koff/edit/apply", "koff/edit", false},
		{"koff/edit", "koff/edit/apply", true},
		{"koff/edit/apply", "koff/edit/planner", false},
		{"koff/edit/planner", "koff/edit/apply", false},
		{"koff/edit/planner", "koff/edit/audit", false},
		{"koff/edit/history", "koff/edit/apply", false},
		{"koff/edit/apply", "koff/edit/history", false},
		{"koff/edit/apply", "koff/edit/undo", false},
		{"koff/edit/undo", "koff/edit", false},
		{"koff/cli", "koff/ui/kit", true},
		{"koff/kafka/security", "koff/kafka", false},
		{"koff/demo/rest", "koff/demo", false},
		{"koff/cli/serve", "koff/cli", false},
	} {
		r, _ := ruleFor(c.pkg)
		ok := false
		for _, a := range r.allow {
			ok = ok || matches(a, c.imp)
		}
		if ok != c.ok {
			t.Errorf("%s importing %s: allowed %v, want %v", c.pkg, c.imp, ok, c.ok)
		}
	}
}
