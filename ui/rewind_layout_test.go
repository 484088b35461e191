package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The T dialog's text is whole at every size, its options and keys
// included, and nothing of it is drawn outside its box: every line between
// its top and bottom border is framed at the same columns.
func TestRewindDialogIsWholeInsideItsBox(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {200, 50}} {
		for _, typed := range []string{"", "yesterday 8am"} {
			t.Run(fmt.Sprintf("%dx%d_%q", sz[0], sz[1], typed), func(t *testing.T) {
				_, _, m := editModel(t, sz[0], sz[1], nil)
				selectConnector(t, m, "jdbc-orders")
				send(t, m, press("T")...)
				if typed != "" {
					f := m.form
					for range 40 {
						send(t, m, press("backspace")...)
					}
					send(t, m, press(typed)...)
					if m.form != f {
						t.Fatal("typing closed the dialog")
					}
				}
				out := screenText(m)
				requireFits(t, out, sz[0], sz[1])
				box := boxLines(t, out)
				inside := strings.Join(strings.Fields(strings.Join(box, " ")), " ")
				for _, want := range []string{
					"Rewind to a time · jdbc-orders",
					"Partitions first committed after it, or whose history begins after it",
					"● leave alone list them, change nothing",
					"○ reset delete their offsets (--if-newer reset)",
					"○ oldest their oldest retained commit (--if-newer oldest)",
					"tab newer partitions • esc cancel",
				} {
					if !strings.Contains(inside, want) {
						t.Errorf("the dialog lacks %q whole:\n%s", want, out)
					}
				}
				if strings.Contains(inside, "…") {
					t.Errorf("the dialog cuts its text short:\n%s", out)
				}
			})
		}
	}
}

// boxLines are the lines inside the one dialog box on screen, without its
// border; each must start and end with the border at the box's columns.
func boxLines(t *testing.T, out string) []string {
	t.Helper()
	lines := strings.Split(out, "\n")
	top, bottom := -1, -1
	for i, l := range lines {
		if strings.Contains(l, "╭") && top < 0 {
			top = i
		}
		if strings.Contains(l, "╰") {
			bottom = i
		}
	}
	if top < 0 || bottom < top {
		t.Fatalf("no dialog box on screen:\n%s", out)
	}
	left := strings.Index(lines[top], "╭")
	leftCol := ansi.StringWidth(lines[top][:left])
	width := ansi.StringWidth(strings.TrimRight(lines[top], " ")) - leftCol
	var inner []string
	for _, l := range lines[top+1 : bottom] {
		cut := ansi.Cut(l, leftCol, leftCol+width)
		if !strings.HasPrefix(cut, "│") || !strings.HasSuffix(cut, "│") {
			t.Fatalf("a line is not framed by the box at columns %d–%d: %q\n%s", leftCol, leftCol+width, l, out)
		}
		inner = append(inner, strings.TrimSuffix(strings.TrimPrefix(cut, "│"), "│"))
	}
	return inner
}
