package cli

import (
	"testing"
	"time"
)

// Under koff serve too, ctrl+c over an open dialog asks before it ends the
// session: n goes back to the dialog, a second ctrl+c quits.
func TestServeCtrlCOverADialogAsksFirst(t *testing.T) {
	r := startServe(t)
	term := openTerm(t, r.addr, "op", r.op, true)
	term.waitOut("connectors", 20*time.Second)
	send := func(s string) {
		t.Helper()
		if _, err := term.stdin.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	send("S") // stop the selected connector: asks first
	term.waitOut("Stop connector", 10*time.Second)
	send("\x03")
	term.waitOut("Quit koff?", 10*time.Second)
	alive := func(after string) {
		t.Helper()
		select {
		case err := <-term.exited:
			t.Fatalf("%s ended the session: %v", after, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
	alive("ctrl+c over the dialog")
	send("n") // back to the dialog
	alive("n")
	send("\x03") // asks again
	alive("ctrl+c over the dialog, after n")
	send("y")
	if code := term.waitExit(10 * time.Second); code != 0 {
		t.Errorf("the session ended with %d", code)
	}
}
