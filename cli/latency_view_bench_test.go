package cli

import (
	"context"
	"fmt"
	"io"
	"log"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	kafkago "github.com/segmentio/kafka-go"
	"github.com/spf13/pflag"

	"koff/demo"
	"koff/model/java"
	"koff/ui"
)

// shownClock stops at the first write to the terminal of a frame that
// holds the text it waits for.
type shownClock struct {
	mu    sync.Mutex
	want  string // "" when not waiting
	sent  time.Time
	drawn bool
	lat   []time.Duration
}

type shownModel struct {
	*ui.Model
	clk *shownClock
}

func (m shownModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.Model.Update(msg)
	return m, cmd
}

func (m shownModel) View() tea.View {
	v := m.Model.View()
	c := m.clk
	c.mu.Lock()
	if c.want != "" && !c.drawn && strings.Contains(ansi.Strip(v.Content), c.want) {
		c.drawn = true
	}
	c.mu.Unlock()
	return v
}

type shownWriter struct{ clk *shownClock }

func (w shownWriter) Write(p []byte) (int, error) {
	c := w.clk
	c.mu.Lock()
	if c.want != "" && c.drawn {
		c.lat = append(c.lat, time.Since(c.sent))
		c.want = ""
	}
	c.mu.Unlock()
	return len(p), nil
}

// BenchmarkLiveLatencyToView runs the dashboard with its default flags
// (--refresh 2s, --fps 4) on the streaming demo cluster, with the
// partitions screen of a connector of its own open, and produces a new
// offset for that connector every 200-400 ms as a worker does: it reports
// how long each took from its produce request to the first write to the
// terminal of a frame showing it (p50, p95, max), through the tailer, the
// Store, the tick and the renderer.
//
//	go test -run XXX -bench LiveLatencyToView -benchtime 1x ./cli
func BenchmarkLiveLatencyToView(b *testing.B) {
	c, err := demo.Start(context.Background(), demo.Options{ConnectListen: "127.0.0.1:0"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	env := Env{Getenv: func(string) string { return "" }, Stdout: io.Discard, Stderr: io.Discard}
	fs := pflag.NewFlagSet("koff", pflag.ContinueOnError)
	g := addGlobals(fs, env)
	if err := fs.Parse([]string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}); err != nil {
		b.Fatal(err)
	}
	if g.FPS == 0 {
		g.FPS = ui.DefaultFPS
	}
	g.logger = log.New(io.Discard, "", 0)
	g.env = env
	g.AuditLog = b.TempDir() + "/audit.jsonl"
	o, stop := observeForBench(b, g)
	defer stop()

	client := &kafkago.Client{Addr: kafkago.TCP(c.Bootstrap()), Timeout: 10 * time.Second}
	key := `["latency-probe",{"table":"probe"}]`
	produce := func(value string) {
		res, err := client.Produce(context.Background(), &kafkago.ProduceRequest{
			Topic: "connect-offsets", Partition: java.PartitionFor([]byte(key), 25), RequiredAcks: kafkago.RequireAll,
			Records: kafkago.NewRecordReader(kafkago.Record{Key: kafkago.NewBytes([]byte(key)), Value: kafkago.NewBytes([]byte(value)), Time: time.Now()})})
		if err == nil {
			err = res.Error
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	produce(`{"n":0}`)
	n := 60
	if testing.Short() { // CI: that it runs, not the figure
		n = 5
	}
	var all []time.Duration
	missed := 0
	for range b.N {
		clk := &shownClock{}
		m := shownModel{Model: ui.New(g.uiOptions(o, true)), clk: clk}
		opts := append(g.programOptions(env), tea.WithInput(nil), tea.WithOutput(shownWriter{clk}), tea.WithWindowSize(200, 60),
			tea.WithColorProfile(colorprofile.ANSI256), tea.WithEnvironment([]string{"TERM=xterm-256color"}), tea.WithoutSignals())
		p := tea.NewProgram(m, opts...)
		done := make(chan struct{})
		go func() { _, _ = p.Run(); close(done) }()
		time.Sleep(time.Second)
		for _, k := range []tea.KeyPressMsg{{Code: '/', Text: "/"}, {Code: 'p', Text: "p"}, {Code: 'r', Text: "r"},
			{Code: 'o', Text: "o"}, {Code: 'b', Text: "b"}, {Code: 'e', Text: "e"}, {Code: tea.KeyEnter}, {Code: tea.KeyEnter}} {
			p.Send(k)
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(time.Second)
		for i := range n {
			v := fmt.Sprintf(`{"n":%d}`, 1000+i)
			clk.mu.Lock()
			clk.want, clk.drawn, clk.sent = "offset "+v, false, time.Now()
			clk.mu.Unlock()
			produce(v)
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
				clk.mu.Lock()
				waiting := clk.want != ""
				clk.mu.Unlock()
				if !waiting {
					break
				}
			}
			clk.mu.Lock()
			if clk.want != "" {
				missed++
				clk.want = ""
			}
			clk.mu.Unlock()
			time.Sleep(200*time.Millisecond + time.Duration(i%5)*47*time.Millisecond) // out of step with the ticks
		}
		p.Quit()
		<-done
		all = append(all, clk.lat...)
	}
	if len(all) == 0 {
		b.Fatal("no offset reached the terminal")
	}
	slices.Sort(all)
	pct := func(q float64) float64 {
		return float64(all[min(int(q*float64(len(all))), len(all)-1)]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(pct(1), "max-ms")
	b.ReportMetric(float64(len(all)), "shown")
	b.ReportMetric(float64(missed), "missed")
}
