package cli

import (
	"testing"
	"time"
)

// koff serve has no contexts: M says a move is made with koff move or from
// a local dashboard, and ":" that its sessions share one cluster, never
// "add a context".
func TestServeMoveSaysWhereAMoveIsMade(t *testing.T) {
	r := startServe(t)
	term := openTerm(t, r.addr, "op", r.op, true)
	term.waitOut("connectors", 20*time.Second)
	press := func(k string) {
		t.Helper()
		if _, err := term.stdin.Write([]byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	press(":")
	term.waitOut("koff serve has no contexts to switch to", 10*time.Second)
	// The renderer writes only the cells that change (M's line shares
	// its start with the one above), and the status bar wraps at 80.
	press("M")
	term.waitOut("a move is made", 10*time.Second)
	term.waitOut("koff move NAME --to-context CTX, or M in a local dashboard", 10*time.Second)
}
