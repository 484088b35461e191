package interop

import (
	"strings"
	"testing"
)

// TestRESTEditOfAConnectorWithItsOwnTopic: through Connect's REST API the
// real worker writes an edit of a connector with its own offsets topic
// to that topic and to the workers' topic; koff's plan lists both records,
// reads both back (verified), and the real task resumes from the edit.
func TestRESTEditOfAConnectorWithItsOwnTopic(t *testing.T) {
	s := realStack(t)
	own := "edit-own-rest-offsets"
	f := s.newFileConnectorWith(t, "edit-own-rest", 10, map[string]string{"offsets.storage.topic": own})
	s.stop(t, f.name)
	out := mustKoff(t, s.withREST("set", f.name, "--partition", f.partition(), "--offset", f.position(5), "--yes",
		"--offsets-topic", "connect-offsets", "--offsets-topic", own)...)
	t.Logf("koff set:\n%s", out)
	for _, want := range []string{"Connect REST", "write " + own + "/", "write connect-offsets/", "verified"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the plan and outcome:\n%s", want, out)
		}
	}
	if got := f.resumeAndNext(t); got != f.name+"-5" {
		t.Errorf("after koff set to line 5 through REST the task continued with %q", got)
	}
}
