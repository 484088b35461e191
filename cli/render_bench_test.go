package cli

import (
	"context"
	"fmt"
	"io"
	"log"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"koff/demo"
	"koff/keymap"
	"koff/ui"
)

// countingWriter counts the bytes the renderer sends to the terminal.
type countingWriter struct{ n atomic.Int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n.Add(int64(len(p))); return len(p), nil }

// BenchmarkSteadyStateRendering measures the bytes per second the dashboard
// writes to its terminal while the demo cluster runs (flushes every 5s,
// sinks committing, ages ticking), after the first full paint: what an SSH
// link carries. Run: go test -run XXX -bench SteadyState -benchtime 1x ./cli
func BenchmarkSteadyStateRendering(b *testing.B) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 35}, {200, 60}} {
		b.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(b *testing.B) {
			c, err := demo.Start(context.Background(), demo.Options{ConnectListen: "127.0.0.1:0"})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			g := &Globals{Bootstrap: []string{c.Bootstrap()}, OffsetsTopics: []string{"connect-offsets"}, Refresh: 2 * time.Second, ConnectURL: c.ConnectURL()}
			g.logger = log.New(io.Discard, "", 0)
			o, stop := observeForBench(b, g)
			defer stop()
			for i := 0; i < b.N; i++ {
				out := &countingWriter{}
				m := ui.New(ui.Options{Source: o.store, Bootstrap: c.Bootstrap(), Topics: g.OffsetsTopics, KeyMap: keymap.Default(), REST: true})
				p := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(out), tea.WithWindowSize(size.w, size.h),
					tea.WithFPS(4), tea.WithColorProfile(colorprofile.ANSI256), tea.WithEnvironment([]string{"TERM=xterm-256color"}))
				done := make(chan struct{})
				go func() { p.Run(); close(done) }()
				settle, window := 3*time.Second, 20*time.Second
				if testing.Short() { // CI: that it runs, not the figure
					settle, window = time.Second, time.Second
				}
				time.Sleep(settle) // first paint and the first polls
				start, before := time.Now(), out.n.Load()
				time.Sleep(window)
				bytes := out.n.Load() - before
				secs := time.Since(start).Seconds()
				p.Quit()
				<-done
				b.ReportMetric(float64(bytes)/secs, "bytes/s")
			}
		})
	}
}
