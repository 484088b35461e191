package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A misspelt partition is refused like a misspelt connector: exit 1,
// nothing written, the partition meant named; --create adds it.
func TestSetOfAPartitionTheConnectorNeverHadIsRefused(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr,
		[2]string{`["jdbc",{"protocol":"1","table":"shop.orders"}]`, `{"incrementing":48408}`},
		[2]string{`["jdbc",{"protocol":"1","table":"shop.customers"}]`, `{"incrementing":7}`})
	before := endOffsets(t, addr)
	out, errs, code := koff(t, withAudit(t, "set", "jdbc", "-b", addr, "--yes", "--partition", `{"protocol":"1","table":"shop.ordrs"}`, "--offset", `{"incrementing":1}`)...)
	if code != 1 || !strings.Contains(errs, `koff: connector jdbc has no offset for source partition {"protocol":"1","table":"shop.ordrs"} (did you mean {"protocol":"1","table":"shop.orders"}?). Pass --create`) || strings.Contains(out, "verified") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	_, errs, code = koff(t, withAudit(t, "reset", "jdbc", "-b", addr, "--yes", "--partition", `{"table":"shop.customers"}`)...)
	if code != 1 || !strings.Contains(errs, `(did you mean {"protocol":"1","table":"shop.customers"}?); nothing to reset`) {
		t.Errorf("named reset of a typo: exit %d %s", code, errs)
	}
	if endOffsets(t, addr) != before {
		t.Fatal("a refused edit wrote to connect-offsets")
	}
	out, errs, code = koff(t, withAudit(t, "set", "jdbc", "-b", addr, "--yes", "--create", "--partition", `{"protocol":"1","table":"shop.payments"}`, "--offset", `{"incrementing":1}`)...)
	if code != 0 || !strings.Contains(out, "verified") {
		t.Errorf("--create: exit %d\n%s%s", code, out, errs)
	}
}

// import refuses the whole file, listing every partition its connector
// never had, each with its did-you-mean; nothing of the file is written.
func TestImportListsEveryUnknownPartitionAndWritesNothing(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr,
		[2]string{`["jdbc",{"protocol":"1","table":"shop.orders"}]`, `{"incrementing":48408}`},
		[2]string{`["mm2",{"cluster":"primary","partition":0,"topic":"orders"}]`, `{"offset":5}`})
	file := filepath.Join(t.TempDir(), "offsets.json")
	body := `{"jdbc":{"offsets":[{"partition":{"protocol":"1","table":"shop.orders"},"offset":{"incrementing":1}},{"partition":{"protocol":"1","table":"shop.ordres"},"offset":{"incrementing":2}}]},
"mm2":{"offsets":[{"partition":{"cluster":"primary","partition":0,"topic":"ordrs"},"offset":{"offset":1}}]}}`
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	before := endOffsets(t, addr)
	_, errs, code := koff(t, withAudit(t, "import", file, "-b", addr, "--yes")...)
	for _, w := range []string{
		"koff: import refused, nothing written: 2 partitions of the file have no offset in their connector (pass --create to add them): ",
		`jdbc {"protocol":"1","table":"shop.ordres"} (did you mean {"protocol":"1","table":"shop.orders"}?); `,
		`mm2 {"cluster":"primary","partition":0,"topic":"ordrs"} (did you mean {"cluster":"primary","partition":0,"topic":"orders"}?)`,
	} {
		if !strings.Contains(errs, w) {
			t.Errorf("no %q in\n%s", w, errs)
		}
	}
	if code != 1 || strings.Count(errs, "\n") != 1 || endOffsets(t, addr) != before {
		t.Errorf("exit %d, %d lines on stderr, or the file was partly written", code, strings.Count(errs, "\n"))
	}
}

// A second whole reset finds nothing: Connect answers 200, koff says
// so and exits 0. Without REST here; TestResetTwiceThroughRESTIsNoFailure
// with it.
func TestResetTwiceIsNoFailure(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["mm2",{"cluster":"primary","partition":0,"topic":"orders"}]`, `{"offset":5}`})
	for i, want := range []string{"verified", "nothing to reset: connector mm2 has no offsets in connect-offsets"} {
		out, errs, code := koff(t, withAudit(t, "reset", "mm2", "-b", addr, "--yes")...)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("reset %d: exit %d, want %q\n%s%s", i+1, code, want, out, errs)
		}
	}
}

func TestResetTwiceThroughRESTIsNoFailure(t *testing.T) {
	c := demoCluster(t)
	rest := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	if _, errs, code := koff(t, append([]string{"stop", "jdbc-shop"}, rest...)...); code != 0 {
		t.Fatal(errs)
	}
	for i, want := range []string{"verified", "nothing to reset: connector jdbc-shop has no offsets in "} {
		out, errs, code := koff(t, withAudit(t, append([]string{"reset", "jdbc-shop", "--yes"}, rest...)...)...)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("reset %d: exit %d, want %q\n%s%s", i+1, code, want, out, errs)
		}
	}
}

// The plan warns of a field whose type changes, as the dashboard does.
func TestSetPlanWarnsOfATypeChange(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["jdbc",{"table":"orders"}]`, `{"incrementing":48408}`})
	out, errs, code := koff(t, "set", "jdbc", "-b", addr, "--dry-run", "--partition", `{"table":"orders"}`, "--offset", `{"incrementing":"1000"}`)
	if code != 0 || !strings.Contains(out, `warning: {"table":"orders"}: offset incrementing is a string, the offset in force has a number there`) {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}
