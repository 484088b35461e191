package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

var pageOf = regexp.MustCompile(`page \d+ of \d+`)

// The full help fits on one page whenever it can: at 60x20 on the
// partitions screen under a header of four lines and an edit's outcome in
// the status bar, the edit, stop and resume keys are on the first page,
// with no page 2.
func TestHelpFitsOnOnePageWhenItCan(t *testing.T) {
	interrupted := func(o *Options) {
		o.Interrupted = func() string { return "an edit of jdbc-orders stopped part way: koff undo" }
	}
	for _, sz := range [][2]int{{60, 20}, {80, 24}} {
		for _, screen := range []string{"connectors", "partitions", "detail"} {
			t.Run(fmt.Sprintf("%s_%dx%d", screen, sz[0], sz[1]), func(t *testing.T) {
				_, _, m := editModel(t, sz[0], sz[1], interrupted)
				want := []string{"X reset connector", "S stop connector", "R resume connector", "u undo last edit", "q quit"}
				switch screen {
				case "partitions":
					openConnectorNamed(t, m, "jdbc-orders")
					want = append(want, "e edit offset", "x reset offset", "n new partition")
				case "detail":
					openHistory(t, m)
					want = append(want, "e edit offset", "t edit offset to this commit", "] older commit")
				}
				// An edit's outcome stays in the status bar, over the help.
				m.setStatus(statusOK, "set 1 partition of jdbc-orders: verified")
				send(t, m, press("?")...)
				out := screenText(m)
				if pageOf.MatchString(out) {
					t.Errorf("the help takes more than one page:\n%s", out)
				}
				squash := strings.Join(strings.Fields(out), " ")
				for _, w := range want {
					if !strings.Contains(squash, w) {
						t.Errorf("the help lacks %q:\n%s", w, out)
					}
				}
				requireFits(t, out, sz[0], sz[1])
			})
		}
	}
}

// Where the help cannot fit one page, the keys that change offsets are on
// its first.
func TestHelpShowsTheEditKeysOnItsFirstPage(t *testing.T) {
	_, _, m := editModel(t, 40, 14, nil)
	openConnectorNamed(t, m, "jdbc-orders")
	send(t, m, press("?")...)
	out := screenText(m)
	if !strings.Contains(out, "next page (1 of") {
		t.Fatalf("the help fits 40x14 on one page: the test needs a smaller screen\n%s", out)
	}
	squash := strings.Join(strings.Fields(out), " ")
	for _, w := range []string{"e edit offset", "x reset offset", "X reset connector", "S stop connector", "R resume connector", "u undo last edit"} {
		if !strings.Contains(squash, w) {
			t.Errorf("page 1 of the help lacks %q:\n%s", w, out)
		}
	}
	requireFits(t, out, 40, 14)
}
