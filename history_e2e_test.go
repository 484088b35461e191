package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// commitLine is a commit in the detail's history: where it is, then its
// exact time on the next line.
var commitLine = regexp.MustCompile(`· (connect-offsets/\d+)@([\d,]+)\s*\n\s+(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC) CreateTime`)

// An operator opens a partition of a demo connector at 80x24, reads its
// history (the demo's tasks commit every few seconds), then rewinds the
// connector to the time of one of those commits with T, pasting it as
// the screen shows it, in New York: the plan names that commit, and esc at
// the confirmation writes nothing.
func TestDashboardHistoryAndRewindUnderTmux(t *testing.T) {
	if _, err := time.LoadLocation("America/New_York"); err != nil {
		t.Skipf("no zone database: %v", err)
	}
	dir := t.TempDir()
	s := startTmux(t, 80, 24, fmt.Sprintf("TZ=America/New_York %s --demo --audit-log %s; sleep 30", koffBin, filepath.Join(dir, "audit.jsonl")))
	keys, typ := s.keys, s.typ
	s.openShopOrders()
	// Two commits of orders in the topic (the task commits every few
	// seconds), then the detail opened again reads them both.
	keys("Enter")
	s.waitFor("a second commit", 20*time.Second, func(scr string) bool { return regexp.MustCompile(`· [2-9]\d* updates`).MatchString(scr) })
	keys("Escape")
	s.waitFor("the partitions", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "Connectors › jdbc-shop") })
	keys("Enter")
	scr := s.waitFor("the history", 15*time.Second, func(scr string) bool {
		keys("End")
		return len(commitLine.FindAllStringSubmatch(scr, -1)) >= 2 && strings.Contains(scr, "commits retained")
	})
	m := commitLine.FindAllStringSubmatch(scr, -1)[0]
	place := m[1] + "@" + strings.ReplaceAll(m[2], ",", "")
	shown := m[3]

	keys("Escape")
	s.waitFor("the partitions", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "Connectors › jdbc-shop") })
	keys("T")
	s.waitFor("the rewind dialog", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "Rewind to a time · jdbc-shop") })
	keys("C-u")
	for range 40 {
		keys("BSpace")
	}
	typ(shown)
	s.waitFor("the time read", 5*time.Second, func(scr string) bool {
		return strings.Contains(scr, "read as "+shown+" (") && regexp.MustCompile(`\d\d:\d\d:\d\d\.\d{3} E[SD]T`).MatchString(scr)
	})
	keys("Enter")
	squash := func(s string) string { return strings.Join(strings.Fields(strings.ReplaceAll(s, "│", "")), "") }
	took := squash(fmt.Sprintf("committed at %s (CreateTime, %s)", shown, place))
	s.waitFor("the plan naming the commit "+place, 20*time.Second, func(scr string) bool {
		return strings.Contains(squash(scr), squash("rewind to "+shown)) && strings.Contains(squash(scr), took)
	})
	keys("Escape")
	s.waitFor("the cancellation", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "cancelled: nothing was written") })
	keys("q")
}
