package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Class 21.6 end to end: on the demo's stray copy (file-logs), at 80x24
// and 60x20, with and without NO_COLOR: FLAGS leads with "stray" where
// it shows, every dialog shows "esc cancel" whole, and "delete this stray
// copy only" confirms the stray copy → (deleted), with enter (no stop: the
// task never reads that key), then reports it verified.
func TestStrayDeleteReadsWholeUnderTmux(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {60, 20}} {
		for _, noColor := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dx%d NO_COLOR=%v", size[0], size[1], noColor), func(t *testing.T) {
				strayDeleteFlow(t, size[0], size[1], noColor)
			})
		}
	}
}

func strayDeleteFlow(t *testing.T, w, h int, noColor bool) {
	env := ""
	if noColor {
		env = "NO_COLOR=1 "
	}
	s := startTmux(t, w, h, fmt.Sprintf("%s%s --demo --audit-log %s; sleep 30", env, koffBin, filepath.Join(t.TempDir(), "audit.jsonl")))
	keys := s.keys
	s.waitFor("the connectors", 10*time.Second, func(scr string) bool { return strings.Contains(scr, "file-logs") })
	keys("/")
	s.run("send-keys", "-t", s.name, "-l", "file-logs")
	keys("Enter")
	s.waitFor("the filter", 5*time.Second, func(scr string) bool { return !strings.Contains(scr, "jdbc-shop") })
	keys("Enter")
	s.waitFor("file-logs' partitions", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "app-1.log") })
	selected := func(scr string) string {
		for _, l := range strings.Split(scr, "\n") {
			if strings.HasPrefix(l, "▶") {
				return l
			}
		}
		return ""
	}
	for i := 0; i < 6 && !strings.Contains(selected(s.screen()), "⚠"); i++ {
		keys("Down")
		time.Sleep(200 * time.Millisecond)
	}
	row := selected(s.screen())
	if !strings.Contains(row, "⚠") {
		t.Fatalf("no stray row selected:\n%s", s.screen())
	}
	if w == 80 && !strings.Contains(row, "⚠ stray") {
		t.Errorf("FLAGS at 80 columns does not lead with stray: %q", row)
	}
	keys("x")
	scr := s.waitFor("the stray dialog", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "A stray copy · file-logs") })
	if !strings.Contains(scr, "d delete this stray copy only") || !strings.Contains(scr, "esc cancel") {
		t.Errorf("the stray dialog's keys are cut:\n%s", scr)
	}
	keys("d")
	scr = s.waitFor("the confirmation", 10*time.Second, func(scr string) bool { return strings.Contains(scr, "Delete a stray copy · file-logs") })
	squash := strings.Join(strings.Fields(strings.ReplaceAll(scr, "│", "")), "")
	if !regexp.MustCompile(`straycopyinconnect-offsets/\d+:\{"position":0\}→\(deleted\)`).MatchString(squash) ||
		!strings.Contains(scr, "enter apply") || !strings.Contains(scr, "esc cancel") || strings.Contains(scr, "ctrl+r") || strings.Contains(scr, "STOPPED") {
		t.Errorf("the confirmation does not say the stray copy → deleted, with enter and esc whole:\n%s", scr)
	}
	keys("Enter")
	s.waitFor("the verified delete", 15*time.Second, func(scr string) bool {
		return strings.Contains(strings.Join(strings.Fields(scr), " "), "verified: deleted a stray copy: 1 partition of file-logs")
	})
}
