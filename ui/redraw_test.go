package ui

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"koff/ui/kit"

	"charm.land/bubbles/v2/spinner"
)

// clockModel is the dashboard on the demo store with a clock the test
// moves, so ticks can fall within one second or across one.
func clockModel(t *testing.T) (*fixture, *Model, *time.Time) {
	t.Helper()
	f := demoStore()
	now := t0
	m := New(Options{Source: f.store, Bootstrap: "localhost:9092", Topics: []string{topic},
		Now: func() time.Time { return now }})
	send(t, m, size(80, 24))
	return f, m, &now
}

// Over SSH every changed frame is bytes on the wire: ticks that change
// nothing visible must leave View's output, escapes and all, byte for
// byte the same, so the renderer has nothing to send.
func TestTicksWithinASecondDoNotChangeTheView(t *testing.T) {
	for _, screen := range []string{"connectors", "partitions", "detail"} {
		t.Run(screen, func(t *testing.T) {
			_, m, now := clockModel(t)
			switch screen {
			case "partitions":
				openConnectorNamed(t, m, "jdbc-orders")
			case "detail":
				openConnectorNamed(t, m, "jdbc-orders")
				send(t, m, press("enter")...)
			}
			*now = t0.Add(time.Second) // a tick on the second boundary renders the ages
			send(t, m, tickMsg{})
			before := m.View().Content
			for i := 1; i < 10; i++ {
				*now = t0.Add(time.Second + time.Duration(i)*99*time.Millisecond)
				if cmd := send(t, m, tickMsg{}); cmd == nil {
					t.Fatal("the tick did not schedule the next one")
				}
				if got := m.View().Content; got != before {
					t.Fatalf("tick %d at %s, with no Store change, changed the view: %s",
						i, now.Format("15:04:05.000"), ansiDiff(before, got))
				}
			}
		})
	}
}

// ansiDiff shows the first line that differs.
func ansiDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n  " + al[i] + "\n  " + bl[i]
		}
	}
	return "line counts differ"
}

// A Store change shows at the next tick, even within the same second.
func TestStoreChangeShowsOnTheNextTick(t *testing.T) {
	f, m, now := clockModel(t)
	*now = t0.Add(100 * time.Millisecond)
	send(t, m, tickMsg{})
	requireLacks(t, m, "jdbc-new")
	before := m.View().Content

	f.put(t0, `["jdbc-new",{"table":"t"}]`, `{"id":1}`)
	if m.View().Content != before {
		t.Fatal("the view changed before a tick: View must not read the Source")
	}
	*now = t0.Add(200 * time.Millisecond)
	send(t, m, tickMsg{})
	requireContains(t, m, "jdbc-new", "Connectors 5")
}

// Ages move once a second, not with every tick.
func TestAgesMoveOnTheSecond(t *testing.T) {
	_, m, now := clockModel(t)
	requireContains(t, m, "5s ago") // inventory-connector
	*now = t0.Add(900 * time.Millisecond)
	send(t, m, tickMsg{})
	requireContains(t, m, "5s ago")
	*now = t0.Add(1000 * time.Millisecond)
	send(t, m, tickMsg{})
	requireContains(t, m, "6s ago")
}

func TestFrameInterval(t *testing.T) {
	for fps, want := range map[int]time.Duration{0: time.Second, 1: time.Second, 2: 500 * time.Millisecond,
		DefaultFPS: 250 * time.Millisecond, 60: 250 * time.Millisecond} {
		if got := frameInterval(fps); got != want {
			t.Errorf("frameInterval(%d) = %s, want %s", fps, got, want)
		}
	}
	m := New(Options{Source: demoStore().store})
	if m.opts.FPS != DefaultFPS || m.every != 250*time.Millisecond {
		t.Errorf("FPS 0: fps %d, tick every %s", m.opts.FPS, m.every)
	}
	m = New(Options{Source: demoStore().store, FPS: 1})
	if m.every != time.Second || m.spinner.Spinner.FPS != time.Second {
		t.Errorf("FPS 1: tick every %s, spinner every %s", m.every, m.spinner.Spinner.FPS)
	}
}

// The spinner turns no faster than frames are drawn, and only while a job
// runs: with none, its tick is dropped and not re-armed.
func TestSpinnerOnlyWhileBusy(t *testing.T) {
	_, m := started(t, 80, 24)
	if m.spinner.Spinner.FPS < minTick {
		t.Errorf("the spinner turns every %s: faster than the %s frames", m.spinner.Spinner.FPS, minTick)
	}
	before := m.View().Content
	if cmd := send(t, m, spinner.TickMsg{ID: m.spinner.ID()}); cmd != nil {
		t.Error("a spinner tick with no job in flight was re-armed")
	}
	if m.View().Content != before {
		t.Error("a spinner tick with no job in flight changed the view")
	}
	m.busy = "planning…"
	if cmd := send(t, m, spinner.TickMsg{ID: m.spinner.ID()}); cmd == nil {
		t.Error("the spinner stopped while a job runs")
	}
}

// Inputs do not blink: a blinking cursor is a redraw twice a second.
func TestCursorsDoNotBlink(t *testing.T) {
	st := kit.NewStyles(true)
	if st.Filter.Cursor.Blink || st.Input.Cursor.Blink || st.TextArea.Cursor.Blink {
		t.Fatal("a text input's cursor blinks")
	}
	_, m := started(t, 80, 24)
	if cmd := send(t, m, press("/")...); cmd != nil {
		t.Error("opening the filter started a command: a cursor blink")
	}
}

// The full help shows every binding at 60 and 80 columns, in columns side
// by side as far as they fit and in pages (? turns them), cut nowhere;
// the footer keeps "? help" and "q quit" at every width.
func TestFullHelpFitsEveryWidth(t *testing.T) {
	for _, sc := range []struct {
		name  string
		drive func(t *testing.T, m *Model)
		want  []string
	}{
		{"connectors", func(t *testing.T, m *Model) {}, []string{"copy name", "switch context", "u undo last edit", "S stop connector", "q quit"}},
		{"partitions", func(t *testing.T, m *Model) { openConnectorNamed(t, m, "inventory-connector") },
			[]string{"copy offset", "c copy offsets to…", "u undo last edit", "n new partition", "q quit"}},
		{"sink", func(t *testing.T, m *Model) { openSinkNamed(t, m, "es-search") },
			[]string{"copy offset", "X reset whole sink", "u undo last edit", "q quit"}},
		{"detail", func(t *testing.T, m *Model) {
			openConnectorNamed(t, m, "inventory-connector")
			send(t, m, press("enter")...)
		}, []string{"copy offset", "switch context", "q quit"}},
		{"unparseable", func(t *testing.T, m *Model) { send(t, m, press("U")...) }, []string{"close help", "q quit"}},
	} {
		for _, sz := range [][2]int{{60, 20}, {80, 24}} {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1]), func(t *testing.T) {
				_, _, m := lagModel(t, sz[0], sz[1])
				sc.drive(t, m)
				out := screenText(m)
				lines := strings.Split(out, "\n")
				if last := lines[len(lines)-1]; !strings.Contains(last, "? help") || !strings.Contains(last, "q quit") {
					t.Errorf("footer %q lacks ? help or q quit", last)
				}
				send(t, m, press("?")...)
				var pages []string
				for range 5 {
					if !m.help.ShowAll {
						break
					}
					out := screenText(m)
					requireFits(t, out, sz[0], sz[1])
					if strings.Contains(out, " …") {
						t.Errorf("a help column was cut:\n%s", out)
					}
					pages = append(pages, out)
					send(t, m, press("?")...)
				}
				if m.help.ShowAll {
					t.Fatal("? did not close the help after its last page")
				}
				all := strings.Join(pages, "\n")
				for _, w := range sc.want {
					if !strings.Contains(all, w) {
						t.Errorf("no help page shows %q:\n%s", w, all)
					}
				}
			})
		}
	}
}
