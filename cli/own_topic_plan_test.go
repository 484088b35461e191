package cli

import (
	"strings"
	"testing"
)

// With several --offsets-topic, a connector whose offsets live in its own
// topic is planned there: set, reset and undo show that topic and the
// value in force before, and write its key where it is.
func TestSeveralOffsetsTopicsPlanWhereTheConnectorLives(t *testing.T) {
	b := broker(t)
	for _, tp := range []string{"connect-offsets", "connect-offsets-own"} {
		if err := b.CreateTopic(tp, 25, map[string]string{"cleanup.policy": "compact"}); err != nil {
			t.Fatal(err)
		}
	}
	addr := b.Bootstrap()
	produceConnect(t, addr, [2]string{`["other",{"f":1}]`, `{"o":1}`})
	produceConnectTo(t, addr, "connect-offsets-own", [2]string{`["own",{"f":1}]`, `{"o":41}`}, [2]string{`["own",{"f":2}]`, `{"o":42}`})
	flags := withAudit(t, "-b", addr, "--offsets-topic", "connect-offsets", "--offsets-topic", "connect-offsets-own")
	const where = "path:   offsets topic connect-offsets-own "
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"set", "own", "--partition", `{"f":1}`, "--offset", `{"o":5}`, "--dry-run"},
			[]string{where, `{"o":41} → {"o":5}`, `write connect-offsets-own/8  ["own",{"f":1}] (existing key, exact bytes)`}},
		{[]string{"reset", "own", "--partition", `{"f":1}`, "--dry-run"},
			[]string{where, `{"o":41} → (deleted)`}},
		{[]string{"reset", "own", "--dry-run"},
			[]string{where, `{"o":41} → (deleted)`, `{"o":42} → (deleted)`}},
		{[]string{"set", "own", "--partition", `{"f":1}`, "--offset", `{"o":5}`, "--yes"},
			[]string{where, `{"o":41} → {"o":5}`, "verified"}},
		{[]string{"undo", "--dry-run"},
			[]string{where, `{"o":5} → {"o":41}`, `write connect-offsets-own/8  ["own",{"f":1}] (existing key, exact bytes)`}},
	} {
		out, errs, code := koff(t, append(tc.args, flags...)...)
		if code != 0 {
			t.Errorf("%v: exit %d %s\n%s", tc.args, code, errs, out)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %q in\n%s", tc.args, w, out)
			}
		}
		if strings.Contains(out, "write connect-offsets/") {
			t.Errorf("%v: writes the workers' topic, which holds nothing of own:\n%s", tc.args, out)
		}
	}
}

// Through REST, Connect's worker writes a connector with its own offsets
// topic there and, best effort, to the workers' topic too
// (ConnectorOffsetBackingStore): the plan lists both records, and the
// edit is verified with both read back.
func TestRESTEditOfAConnectorWithItsOwnTopicListsBothWrites(t *testing.T) {
	c := demoCluster(t)
	rest := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	if _, errs, code := koff(t, append([]string{"stop", "jdbc-crm"}, rest...)...); code != 0 {
		t.Fatal(errs)
	}
	part := `{"protocol":"1","table":"crm.public.deals"}`
	key := `["jdbc-crm",` + part + `]`
	for _, args := range [][]string{
		{"set", "jdbc-crm", "--partition", part, "--offset", `{"incrementing":5}`, "--yes"},
		{"reset", "jdbc-crm", "--partition", part, "--yes"},
	} {
		out, errs, code := koff(t, withAudit(t, append(args, rest...)...)...)
		if code != 0 || !strings.Contains(out, "verified") {
			t.Fatalf("%v: exit %d %s\n%s", args, code, errs, out)
		}
		for _, w := range []string{"write connect-offsets-crm/" + partitionOf(key) + "  " + key, "write connect-offsets/" + partitionOf(key) + "  " + key} {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %q in\n%s", args, w, out)
			}
		}
	}
}
