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

// countingWriter counts what the program writes to the terminal.
type countingWriter struct{ n atomic.Int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n.Add(int64(len(p)))
	return len(p), nil
}

// BenchmarkSteadyStateBytes runs the dashboard in a real program at 80x24
// and DefaultFPS on the demo store while a connector flushes every second,
// and reports the bytes written to the terminal per second once the first
// frame is out: what an SSH link carries in steady state.
//
//	go test ./ui/ -run '^$' -bench SteadyStateBytes -benchtime 1x
func BenchmarkSteadyStateBytes(b *testing.B) {
	const warmup, window = time.Second, 5 * time.Second
	for range b.N {
		f := demoStore()
		start := time.Now()
		m := New(Options{Source: f.store, Bootstrap: "kafka-1.prod.internal:9092", Topics: []string{topic},
			Now: func() time.Time { return t0.Add(time.Since(start)) }})
		out := &countingWriter{}
		ctx, cancel := context.WithCancel(context.Background())
		p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(nil), tea.WithOutput(out),
			tea.WithWindowSize(80, 24), tea.WithFPS(DefaultFPS), tea.WithoutSignals(),
			tea.WithColorProfile(colorprofile.ANSI256), tea.WithEnvironment([]string{"TERM=xterm-256color"}))
		done := make(chan error, 1)
		go func() { _, err := p.Run(); done <- err }()

		// inventory-connector flushes once a second, as a busy source does.
		stop := make(chan struct{})
		go func() {
			tk := time.NewTicker(time.Second)
			defer tk.Stop()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-tk.C:
					now := t0.Add(time.Since(start))
					f.put(now, keyInventory, fmt.Sprintf(`{"ts_sec":%d,"file":"mysql-bin.000003","pos":%d,"row":1,"server_id":223344,"event":2}`,
						now.Unix(), 30000+1000*i))
				}
			}
		}()
		time.Sleep(warmup)
		before := out.n.Load()
		time.Sleep(window)
		written := out.n.Load() - before
		close(stop)
		cancel()
		if err := <-done; err != nil && !errors.Is(err, tea.ErrProgramKilled) {
			b.Fatal(err)
		}
		b.ReportMetric(float64(written)/window.Seconds(), "bytes/s")
	}
}
