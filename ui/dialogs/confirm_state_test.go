package dialogs

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"koff/edit/plan"
	"koff/keymap"
	"koff/ui/kit"
)

// t0 is the fixed "now" of these tests.
var t0 = time.Date(2025, 11, 29, 18, 10, 0, 0, time.UTC)

// The dialog's State line says what koff knows and from where; it never
// says "no --connect-url" of a plan made with Connect's REST API (one for
// a connector Connect does not list has no state either).
func TestConfirmStateSaysWhereItComesFrom(t *testing.T) {
	km, st := keymap.Default(), kit.NewStyles(true)
	for _, c := range []struct {
		plan      plan.Plan
		want, not string
	}{
		{plan.Plan{Absent: true}, "State    ? not in Connect (Connect REST lists no such connector)", "no --connect-url"},
		{plan.Plan{Target: "STOPPED", ConfigTopic: "connect-configs"}, "State    target state STOPPED (config topic connect-configs); no --connect-url for its status", "?"},
		{plan.Plan{Target: "STARTED", ConfigTopic: "connect-configs"}, "State    ? target state STARTED (config topic connect-configs)", "unknown"},
		{plan.Plan{}, "State    ? unknown (no --connect-url, no config topic)", "target state"},
	} {
		p := c.plan
		p.Request = plan.Request{Connector: "jdbc-orders", Kind: plan.KindSet}
		p.Path, p.Topic = plan.PathTopic, "connect-offsets"
		d := NewConfirmDialog(&km, &st, &p, nil, t0)
		text := ansi.Strip(strings.Join(d.Content(120), "\n"))
		state := ""
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "State") {
				state = strings.TrimSpace(l)
			}
		}
		if !strings.HasPrefix(state, c.want) || strings.Contains(state, c.not) {
			t.Errorf("%+v: state line %q, want %q without %q", c.plan, state, c.want, c.not)
		}
	}
}
