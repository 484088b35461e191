package ui

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// countingView counts the frames the model draws and their size: what a
// renderer without cell diffing would send on every frame.
type countingView struct {
	*Model
	frames, bytes *atomic.Int64
}

func (m countingView) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.Model.Update(msg)
	return m, cmd
}

func (m countingView) View() tea.View {
	v := m.Model.View()
	m.frames.Add(1)
	m.bytes.Add(int64(len(v.Content)))
	return v
}

// BenchmarkBandwidth100Connectors runs the dashboard at 200x60 with the
// program options the dashboard uses (60 fps, data-driven redraws at
// DefaultFPS) while 100 source connectors each flush every second, and
// reports the bytes per second written to the terminal after the first
// paint, beside the bytes per second a naive full repaint of every drawn
// frame would send.
//
//	go test ./ui -run XXX -bench Bandwidth100 -benchtime 1x
func BenchmarkBandwidth100Connectors(b *testing.B) {
	conns, warmup, window := 100, 2*time.Second, 8*time.Second
	if testing.Short() { // CI: that it runs, not the figure
		warmup, window = time.Second, time.Second
	}
	for range b.N {
		f := newFixture()
		start := time.Now()
		now := func() time.Time { return t0.Add(time.Since(start)) }
		key := func(c int) string { return fmt.Sprintf(`["jdbc-%03d",{"protocol":"1","table":"orders"}]`, c) }
		for c := range conns {
			for i := range 10 {
				f.put(t0.Add(-time.Duration(10-i)*time.Second), key(c), fmt.Sprintf(`{"incrementing":%d}`, 1000*c+i))
			}
		}
		frames, drawn := &atomic.Int64{}, &atomic.Int64{}
		m := countingView{Model: New(Options{Source: f.store, Bootstrap: "kafka-1.prod.internal:9092", Topics: []string{topic}, Now: now}),
			frames: frames, bytes: drawn}
		out := &countingWriter{}
		ctx, cancel := context.WithCancel(context.Background())
		p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(nil), tea.WithOutput(out),
			tea.WithWindowSize(200, 60), tea.WithFPS(FrameRate), tea.WithoutSignals(),
			tea.WithColorProfile(colorprofile.ANSI256), tea.WithEnvironment([]string{"TERM=xterm-256color"}))
		done := make(chan error, 1)
		go func() { _, err := p.Run(); done <- err }()
		stop := make(chan struct{})
		go func() {
			tk := time.NewTicker(10 * time.Millisecond) // 100 connectors, each once a second
			defer tk.Stop()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-tk.C:
					c := i % conns
					f.put(now(), key(c), fmt.Sprintf(`{"incrementing":%d}`, 1000*c+10+i/conns))
				}
			}
		}()
		time.Sleep(warmup)
		before, f0, d0 := out.n.Load(), frames.Load(), drawn.Load()
		time.Sleep(window)
		written, nf, nd := out.n.Load()-before, frames.Load()-f0, drawn.Load()-d0
		close(stop)
		cancel()
		if err := <-done; err != nil && !errors.Is(err, tea.ErrProgramKilled) {
			b.Fatal(err)
		}
		b.ReportMetric(float64(written)/window.Seconds(), "bytes/s")
		b.ReportMetric(float64(nd)/window.Seconds(), "naive-repaint-bytes/s")
		b.ReportMetric(float64(nf)/window.Seconds(), "frames/s")
	}
}
