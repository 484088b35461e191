package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Class 21.7: Ctrl-C at the confirmation, before the first write, says
// that nothing was written (and koff dies of the signal, exit 130).
func TestCtrlCBeforeTheFirstWriteSaysNothingWasWritten(t *testing.T) {
	addr, _ := startDemoCluster(t)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	// trap: the shell outlives the ^C, to print koff's exit status.
	s := startTmux(t, 80, 24, fmt.Sprintf("trap : INT; %s reset jdbc-old-orders -b %s --audit-log %s; echo exit $?; sleep 30", koffBin, addr, audit))
	s.waitFor("the confirmation", 30*time.Second, func(scr string) bool { return strings.Contains(scr, "Type the connector") })
	s.run("send-keys", "-t", s.name, "C-c")
	scr := s.waitFor("koff's exit", 10*time.Second, func(scr string) bool { return strings.Contains(scr, "exit 1") })
	if !strings.Contains(scr, "koff: interrupted before writing: nothing was written") || !strings.Contains(scr, "exit 130") {
		t.Errorf("after ^C at the confirmation:\n%s", scr)
	}
}
