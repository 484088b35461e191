package ui

import (
	"strings"
	"testing"
	"time"

	"koff/ui/dialogs"
)

// A rewind that leaves partitions alone names each of them, and why, in
// its confirmation, not only how many; and when it leaves everything
// alone, the dialog says which partitions, not just "nothing to change".
func TestRewindDialogNamesThePartitionsItLeavesAlone(t *testing.T) {
	f, _, m := editModel(t, 120, 40, nil)
	newer := `["file-source",{"filename":"/var/log/late.log"}]`
	f.put(t0.Add(time.Minute), newer, `{"position":7}`)
	rewind := func(at string) {
		t.Helper()
		send(t, m, press("T")...)
		form, ok := m.form.(*dialogs.RewindForm)
		if !ok {
			t.Fatalf("T did not open the rewind dialog:\n%s", screenText(m))
		}
		form.Input.SetValue("")
		send(t, m, press(at)...)
		pressSettle(t, m, "enter")
	}
	openConnectorNamed(t, m, "file-source")
	rewind("2025-11-29T18:09:25Z")
	if m.confirm == nil {
		t.Fatalf("no confirmation: %s\n%s", m.statusView(), screenText(m))
	}
	out := strings.Join(m.confirm.Content(200), "\n")
	for _, want := range []string{
		`{"filename":"/var/log/late.log"}  left alone: first committed at 2025-11-29 18:11:00.000 UTC`,
		`1 partition left alone ({"filename":"/var/log/late.log"})`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("confirmation lacks %q:\n%s", want, out)
		}
	}
	send(t, m, press("esc")...)

	rewind("2020-01-01T00:00:00Z")
	if m.confirm != nil {
		t.Fatalf("a rewind before every commit planned an edit:\n%s", strings.Join(m.confirm.Content(200), "\n"))
	}
	form := m.form.(*dialogs.RewindForm).State().PlanErr
	if !strings.Contains(form, `left alone: {"filename":"/var/log/app/application-server-01.log"}, {"filename":"/var/log/late.log"}, {"filename":"/var/log/old.log"}`) {
		t.Errorf("the dialog does not name the partitions left alone: %q", form)
	}
	if screen := screenText(m); !strings.Contains(screen, `{"filename":"/var/log/late.log"}`) {
		t.Errorf("the dialog does not show the partitions left alone:\n%s", screen)
	}
}
