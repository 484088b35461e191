package cli

import (
	"context"
	"io"
	"log"
	"slices"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"koff/demo"
	"koff/ui"
)

// keyClock times one key at a time from the moment it is sent to the
// first write to the terminal after the model drew its effect.
type keyClock struct {
	mu      sync.Mutex
	sent    time.Time
	pending bool // a key is sent and not yet drawn
	drawn   bool // View ran after the key's Update
	keyed   bool // Update ran the key
	last    string
	lat     []time.Duration
	// unchanged counts keys whose frame equals the one before (↓ on the
	// last row): the renderer rightly writes nothing for them.
	unchanged int
}

// keyTimedModel is the dashboard with a hook after Update and View.
type keyTimedModel struct {
	*ui.Model
	clk *keyClock
}

func (m keyTimedModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.Model.Update(msg)
	if _, ok := msg.(tea.KeyPressMsg); ok {
		m.clk.mu.Lock()
		m.clk.keyed = true // the next View holds the key's effect
		m.clk.mu.Unlock()
	}
	return m, cmd
}

func (m keyTimedModel) View() tea.View {
	v := m.Model.View()
	c := m.clk
	c.mu.Lock()
	switch {
	case c.pending && c.keyed && v.Content == c.last:
		c.pending = false
		c.unchanged++
	case c.pending && c.keyed:
		c.drawn = true
	}
	c.last = v.Content
	c.mu.Unlock()
	return v
}

// frameWriter stops the clock at the first write after the key's frame
// was drawn.
type frameWriter struct{ clk *keyClock }

func (w frameWriter) Write(p []byte) (int, error) {
	c := w.clk
	c.mu.Lock()
	if c.pending && c.drawn {
		c.lat = append(c.lat, time.Since(c.sent))
		c.pending = false
	}
	c.mu.Unlock()
	return len(p), nil
}

// BenchmarkKeyToFrame drives the dashboard at 120x40 on the streaming demo
// cluster with the program options the dashboard uses, presses keys that
// each change the screen (↓ and ↑ move the selection, s re-sorts, ? opens
// and closes the help), and reports how long each key took to reach the
// terminal: p50 and p99 over the keys that changed the screen. A key
// whose frame did not come within a second is counted as missed.
//
//	go test -run XXX -bench KeyToFrame -benchtime 1x ./cli
func BenchmarkKeyToFrame(b *testing.B) {
	c, err := demo.Start(context.Background(), demo.Options{ConnectListen: "127.0.0.1:0"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	g := &Globals{Bootstrap: []string{c.Bootstrap()}, OffsetsTopics: []string{"connect-offsets"}, Refresh: 2 * time.Second,
		ConnectURL: c.ConnectURL(), FPS: ui.DefaultFPS}
	g.logger = log.New(io.Discard, "", 0)
	g.env = Env{Getenv: func(string) string { return "" }, Stdout: io.Discard, Stderr: io.Discard}
	g.AuditLog = b.TempDir() + "/audit.jsonl"
	o, stop := observeForBench(b, g)
	defer stop()

	keys := []tea.KeyPressMsg{
		{Code: tea.KeyDown}, {Code: tea.KeyDown}, {Code: tea.KeyUp}, {Code: 's', Text: "s"},
		{Code: '?', Text: "?"}, {Code: '?', Text: "?"}, {Code: tea.KeyUp},
	}
	var all []time.Duration
	missed, unchanged := 0, 0
	for i := 0; i < b.N; i++ {
		clk := &keyClock{}
		m := keyTimedModel{Model: ui.New(g.uiOptions(o, true)), clk: clk}
		opts := append(g.programOptions(Env{Getenv: func(string) string { return "" }}),
			tea.WithInput(nil), tea.WithOutput(frameWriter{clk}), tea.WithWindowSize(120, 40),
			tea.WithColorProfile(colorprofile.ANSI256), tea.WithEnvironment([]string{"TERM=xterm-256color"}), tea.WithoutSignals())
		p := tea.NewProgram(m, opts...)
		done := make(chan struct{})
		go func() { _, _ = p.Run(); close(done) }()
		time.Sleep(2 * time.Second) // the first paint and the first polls
		presses := 160
		if testing.Short() { // CI: that it runs, not the figure
			presses = 20
		}
		for n := range presses {
			clk.mu.Lock()
			clk.sent, clk.pending, clk.drawn, clk.keyed = time.Now(), true, false, false
			clk.mu.Unlock()
			p.Send(keys[n%len(keys)])
			// Wait for the frame (at most a second: one that never comes
			// counts as missed), then pause as an operator does, out of step
			// with the frames.
			for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
				clk.mu.Lock()
				waiting := clk.pending
				clk.mu.Unlock()
				if !waiting {
					break
				}
				time.Sleep(time.Millisecond)
			}
			clk.mu.Lock()
			if clk.pending {
				missed++
			}
			clk.pending = false
			clk.mu.Unlock()
			time.Sleep(30*time.Millisecond + time.Duration(n%7)*11*time.Millisecond)
		}
		p.Quit()
		<-done
		all = append(all, clk.lat...)
		unchanged += clk.unchanged
	}
	if len(all) == 0 {
		b.Fatal("no key reached the terminal")
	}
	slices.Sort(all)
	pct := func(p float64) float64 {
		return float64(all[min(int(p*float64(len(all))), len(all)-1)]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(len(all)), "keys")
	b.ReportMetric(float64(missed), "missed")
	b.ReportMetric(float64(unchanged), "unchanged")
}
