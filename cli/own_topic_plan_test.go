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
