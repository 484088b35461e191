package cli

import (
	"strings"
	"testing"
	"time"

	"koff/internal/faultproxy"
)

// koff history behind a network black hole (a firewall dropping every
// packet): like every reader it gives up after --timeout, in one line,
// with a non-zero exit, having printed nothing on stdout. So does the
// rewind, which reads the same history.
func TestHistoryUnderABlackHoleFailsInOneLineWithinItsTimeout(t *testing.T) {
	p, b := proxiedOffsetsBroker(t)
	produceDirect(t, b.ListenAddr(), `["pg",{"server":"db"}]`, `{"lsn":1}`)
	if out, errs, code := koff(t, "history", "pg", "-b", p.Addr()); code != 0 || !strings.Contains(out, `{"lsn":1}`) {
		t.Fatalf("history through the proxy passing: exit %d %s\n%s", code, errs, out)
	}
	if err := p.Set(faultproxy.Blackhole); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"history", "pg", "-b", p.Addr(), "--timeout", "3s"},
		{"history", "pg", "-b", p.Addr(), "--timeout", "3s", "-o", "json", "--config-topic", ""},
	} {
		start := time.Now()
		out, errs, code := koff(t, args...)
		took := time.Since(start)
		t.Logf("%v: exit %d after %s: %s", args, code, took.Round(time.Millisecond), errs)
		if code == 0 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "koff: ") || !strings.Contains(errs, "timed out after") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want one line saying it timed out, nothing on stdout", args, code, out, errs)
		}
		if took > 3*time.Second+3*time.Second {
			t.Errorf("%v took %s: want about --timeout 3s", args, took)
		}
	}
	// A rewind reads the same history, within the bound of an edit's
	// first read.
	defer func(d time.Duration) { sessionReadBound = d }(sessionReadBound)
	sessionReadBound = 3 * time.Second
	start := time.Now()
	out, errs, code := koff(t, withAudit(t, "set", "pg", "-b", p.Addr(), "--config-topic", "", "--to-datetime", "2026-11-29T01:00:00Z", "--dry-run")...)
	took := time.Since(start)
	t.Logf("set --to-datetime: exit %d after %s: %s", code, took.Round(time.Millisecond), errs)
	if code == 0 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "timed out after") || took > 6*time.Second {
		t.Errorf("set --to-datetime: exit %d after %s, stdout %q, stderr %q: want one line saying it timed out within its bound", code, took, out, errs)
	}
}
