package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Class 21.7: a connector whose name reads the same as another's (a
// Cyrillic о, a zero-width space) is flagged under the table, at 80
// columns, and its zero-width space is shown escaped.
func TestLookAlikeConnectorsAreFlagged(t *testing.T) {
	f := demoStore()
	f.put(t0, `["jdbc-оrders",{"table":"x"}]`, `{"incrementing":1}`)
	f.put(t0, "[\"mm2-source\u200b\",{\"p\":1}]", `{"offset":1}`)
	m := newTestModel(f.store)
	send(t, m, size(80, 24), tickMsg{})
	seen := map[string]bool{}
	for range 12 {
		detail := ansi.Strip(m.View().Content)
		lines := strings.Split(strings.TrimRight(detail, "\n"), "\n")
		for _, l := range lines {
			if strings.HasPrefix(l, "↳ jdbc-оrders") || strings.HasPrefix(l, "↳ jdbc-orders ") {
				seen[l[:strings.Index(l, " · ")]] = strings.Contains(l, "⚠ looks like jdbc-")
			}
			if strings.HasPrefix(l, `↳ mm2-source\u200b`) {
				seen["mm2"] = strings.Contains(l, "⚠ looks like mm2-source")
			}
		}
		send(t, m, press("down")...)
	}
	if len(seen) != 3 {
		t.Fatalf("not every look-alike was selected: %v\n%s", seen, screenText(m))
	}
	for name, flagged := range seen {
		if !flagged {
			t.Errorf("%s is not flagged as a look-alike", name)
		}
	}
}
