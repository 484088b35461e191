package cli

import (
	"strings"
	"testing"
)

// Two connectors whose names read the same on a terminal (one has a
// Cyrillic о): get and status say so on stderr, each name written out in
// ASCII, whether both are listed or one is named; a name with no
// look-alike gets no warning.
func TestLookAlikeNamesAreFlaggedByGetAndStatus(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr,
		[2]string{`["jdbc-shop",{"table":"orders"}]`, `{"id":1}`},
		[2]string{`["jdbc-sh\u043ep",{"table":"orders"}]`, `{"id":2}`},
		[2]string{`["file-logs",{"filename":"a"}]`, `{"position":3}`})
	want := `koff: warning: connector names that look alike: "jdbc-sh\u043ep" and "jdbc-shop": check which one you mean`
	for _, args := range [][]string{
		{"get"}, {"get", "jdbc-shop"}, {"get", "-o", "json"}, {"status"}, {"status", "jdbc-shop"},
	} {
		_, errs, _ := koff(t, append(args, "-b", addr, "--config-topic", "")...)
		if !strings.Contains(errs, want) {
			t.Errorf("koff %s: stderr lacks the look-alike warning:\n%s", strings.Join(args, " "), errs)
		}
	}
	_, errs, _ := koff(t, "get", "file-logs", "-b", addr, "--config-topic", "")
	if strings.Contains(errs, "look alike") {
		t.Errorf("koff get file-logs warned of look-alikes: %s", errs)
	}
}
