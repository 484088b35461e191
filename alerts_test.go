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
	tests, err := os.ReadFile("alerts/koff.rules.test.yml")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			n++
			if rb := r.Annotations["runbook"]; !strings.Contains(rb, "`koff ") {
				t.Errorf("%s: runbook %q names no koff command", r.Alert, rb)
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
