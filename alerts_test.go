package main

// The shipped alert rules (alerts/): Prometheus' promtool checks them and
// runs their unit tests, and every alert has a runbook naming a koff
// command and a unit test of its own.

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Alert       string            `yaml:"alert"`
			Expr        string            `yaml:"expr"`
			For         string            `yaml:"for"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

func TestAlertRulesPassPromtool(t *testing.T) {
	promtool := needTool(t, "promtool")
	for _, args := range [][]string{{"check", "rules", "koff.rules.yml"}, {"test", "rules", "koff.rules.test.yml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = "alerts"
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

func TestEveryAlertHasARunbookAndATest(t *testing.T) {
	b, err := os.ReadFile("alerts/koff.rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	var rf ruleFile
	if err := yaml.Unmarshal(b, &rf); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	tests, err := os.ReadFile("alerts/koff.rules.test.yml")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			n++
			if rb := r.Annotations["description"]; !strings.Contains(rb, "`koff ") {
				t.Errorf("%s: description %q names no koff command", r.Alert, rb)
			}
			// runbook_url, as Alertmanager's templates expect it: the
			// alert's runbook in the README.
			if u, want := r.Annotations["runbook_url"], "README.md#"+strings.ToLower(r.Alert); u != want {
				t.Errorf("%s: runbook_url %q, want %q", r.Alert, u, want)
			} else if !strings.Contains(string(readme), "\n#### "+r.Alert+"\n") {
				t.Errorf("%s: no runbook heading #### %s in the README", r.Alert, r.Alert)
			}
			if _, ok := r.Annotations["runbook"]; ok {
				t.Errorf("%s: a runbook annotation: Prometheus tooling reads runbook_url", r.Alert)
			}
			if r.Annotations["summary"] == "" {
				t.Errorf("%s: no summary", r.Alert)
			}
			if !strings.Contains(string(tests), "alertname: "+r.Alert+"\n") {
				t.Errorf("%s: no unit test in koff.rules.test.yml", r.Alert)
			}
		}
	}
	if n < 6 {
		t.Fatalf("%d alerts in koff.rules.yml", n)
	}
}
