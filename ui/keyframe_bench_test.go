package ui

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"koff/model"
	"koff/model/java"
	"koff/model/store"
	"koff/ui/screens"
)

// keyClock times one key at a time, from the moment it is sent to the
// first write to the terminal after the model drew its effect, and to the
// first frame that shows its result (a filter or sort that runs off the
// UI goroutine draws at once that it is under way, then its rows).
type keyClock struct {
	mu             sync.Mutex
	sent           time.Time
	pending, keyed bool // a key is sent and not yet drawn; Update ran it
	drawn          bool // View ran after the key's Update, with a new frame
	waitResult     bool // the key's result is not on screen yet
	last           string
	lat, result    []time.Duration
	unchanged      int
	settled        func() bool // the screen shows the result of every key
	// work is the time the key's Update and the View after it took on
	// the UI goroutine (the rest of the latency is waiting for it).
	work    []time.Duration
	workSum time.Duration
	trace   *keyTrace
}

type keyTimedModel struct {
	*Model
	clk *keyClock
}

func (m keyTimedModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	at, cpu, wait := m.clk.trace.begin()
	start := time.Now()
	_, cmd := m.Model.Update(msg)
	m.clk.trace.End(fmt.Sprintf("Update %T", msg), at, cpu, wait)
	if _, ok := msg.(tea.KeyPressMsg); ok {
		m.clk.mu.Lock()
		m.clk.keyed = true
		m.clk.workSum = time.Since(start)
		m.clk.mu.Unlock()
	}
	return m, cmd
}

func (m keyTimedModel) View() tea.View {
	at, cpu, wait := m.clk.trace.begin()
	start := time.Now()
	v := m.Model.View()
	m.clk.trace.End("View", at, cpu, wait)
	c := m.clk
	c.mu.Lock()
	switch {
	case c.pending && c.keyed && v.Content == c.last:
		c.pending = false
		c.unchanged++
	case c.pending && c.keyed:
		c.drawn = true
		c.work = append(c.work, c.workSum+time.Since(start))
	}
	if c.waitResult && c.keyed && c.settled != nil && c.settled() {
		c.waitResult = false
		c.result = append(c.result, time.Since(c.sent))
		c.trace.resultShown(c.sent)
	}
	c.last = v.Content
	c.mu.Unlock()
	return v
}

type frameWriter struct{ clk *keyClock }

func (w frameWriter) Write(p []byte) (int, error) {
	c := w.clk
	c.mu.Lock()
	c.trace.written(c.sent, c.pending && c.drawn)
	if c.pending && c.drawn {
		c.lat = append(c.lat, time.Since(c.sent))
		c.pending = false
	}
	c.mu.Unlock()
	return len(p), nil
}

// streamRecords ingests rate records a second into the Store, in batches
// every 10 ms as the tailer applies its fetches: each a new offset of the
// next of keys, round them, until stop is closed.
func streamRecords(s *store.Store, keys [][]byte, rate int, stop <-chan struct{}) <-chan struct{} {
	done := make(chan struct{})
	parts := make([]int, len(keys))
	for i, k := range keys {
		parts[i] = java.PartitionFor(k, 25)
	}
	next := make([]int64, 25)
	for p := range next {
		next[p] = s.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: p})
	}
	go func() {
		defer close(done)
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		per := rate / 100
		batch := make([]store.Record, 0, per)
		for i := 0; ; {
			select {
			case <-stop:
				return
			case <-tk.C:
			}
			now := time.Now()
			batch = batch[:0]
			for range per {
				k, p := i%len(keys), parts[i%len(keys)]
				batch = append(batch, store.Record{Topic: "connect-offsets", Partition: p, Offset: next[p], Key: keys[k],
					Value: []byte(`{"offset":` + strconv.Itoa(200000+i) + `}`), Time: now})
				next[p]++
				i++
			}
			s.Ingest(batch)
		}
	}()
	return done
}

// BenchmarkKeyToFrame100k runs the dashboard at 200x60 with the program
// options the dashboard uses (FrameRate, data-driven redraws at
// DefaultFPS) on a Store holding a MirrorMaker connector of 100,000 source
// partitions and five small JDBC connectors, while 50,000 records a second
// stream into the big one (applied to the Store as the tailer applies
// them). On each screen it presses keys that change it and reports how
// long each took to reach the terminal (p50, p99, max), and for the
// filter and the sort also how long until their rows were on screen
// (result-p99). A key whose frame did not come within 3 s is missed.
// KOFF_KEYTRACE=ms prints what each key slower than ms waited for
// (keyTrace).
//
//	go test ./ui -run XXX -bench KeyToFrame100k -benchtime 1x
func BenchmarkKeyToFrame100k(b *testing.B) {
	n, presses, settle := 100_000, 60, time.Second
	if testing.Short() { // CI: that it runs, not the figure
		n, presses, settle = 5_000, 8, 200*time.Millisecond
	}
	src := bigStore(n)
	for c := range 5 {
		for t := range 3 {
			k := fmt.Sprintf(`["jdbc-%02d",{"protocol":"1","table":"t%d"}]`, c, t)
			src.Ingest([]store.Record{{Topic: "connect-offsets", Partition: java.PartitionFor([]byte(k), 25),
				Offset: src.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: java.PartitionFor([]byte(k), 25)}),
				Key:    []byte(k), Value: []byte(`{"incrementing":1}`), Time: time.Now()}})
		}
	}
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = mmKey(i)
	}
	stop := make(chan struct{})
	streamed := streamRecords(src, keys, 50_000, stop)
	defer func() { close(stop); <-streamed }()

	k := func(s string) tea.KeyPressMsg {
		switch s {
		case "down":
			return tea.KeyPressMsg{Code: tea.KeyDown}
		case "up":
			return tea.KeyPressMsg{Code: tea.KeyUp}
		case "pgdown":
			return tea.KeyPressMsg{Code: tea.KeyPgDown}
		case "pgup":
			return tea.KeyPressMsg{Code: tea.KeyPgUp}
		case "enter":
			return tea.KeyPressMsg{Code: tea.KeyEnter}
		case "backspace":
			return tea.KeyPressMsg{Code: tea.KeyBackspace}
		}
		return tea.KeyPressMsg{Code: rune(s[0]), Text: s}
	}
	toPartitions := []string{"/", "m", "m", "2", "enter", "enter"}
	screens := []struct {
		name   string
		setup  []string
		keys   []string
		result bool // time the rows too
	}{
		{"connectors", nil, []string{"down", "down", "up", "?", "?", "up"}, false},
		{"partitions", toPartitions, []string{"down", "down", "up", "pgdown", "pgup", "?", "?"}, false},
		{"filter", append(toPartitions, "/"), []string{"r", "e", "g", "i", "o", "n", "-", "4", "2",
			"backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace"}, true},
		{"sort", toPartitions, []string{"s"}, true},
		{"detail", append(toPartitions, "enter"), []string{"?", "?"}, false},
	}
	for _, sc := range screens {
		b.Run(sc.name, func(b *testing.B) {
			var all, results, work []time.Duration
			missed := 0
			for range b.N {
				clk := &keyClock{trace: newKeyTrace()}
				mdl := New(Options{Source: src, Bootstrap: "kafka-1.prod.internal:9092", Topics: []string{"connect-offsets"}})
				clk.settled = func() bool { return settled(mdl) }
				ctx, cancel := context.WithCancel(context.Background())
				p := tea.NewProgram(keyTimedModel{Model: mdl, clk: clk}, tea.WithContext(ctx), tea.WithInput(nil),
					tea.WithOutput(frameWriter{clk}), tea.WithWindowSize(200, 60), tea.WithFPS(FrameRate), tea.WithoutSignals(),
					tea.WithColorProfile(colorprofile.ANSI256), tea.WithEnvironment([]string{"TERM=xterm-256color"}))
				done := make(chan struct{})
				go func() { _, _ = p.Run(); close(done) }()
				time.Sleep(settle)
				for _, s := range sc.setup {
					p.Send(k(s))
					time.Sleep(settle * 3 / 10)
				}
				time.Sleep(2 * settle) // the screen's first loads
				for i := range presses {
					clk.mu.Lock()
					clk.sent, clk.pending, clk.drawn, clk.keyed, clk.waitResult = time.Now(), true, false, false, sc.result
					clk.mu.Unlock()
					p.Send(k(sc.keys[i%len(sc.keys)]))
					for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
						clk.mu.Lock()
						waiting := clk.pending || clk.waitResult
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
					clk.pending, clk.waitResult = false, false
					clk.mu.Unlock()
					time.Sleep(30*time.Millisecond + time.Duration(i%7)*11*time.Millisecond)
				}
				cancel()
				<-done
				all = append(all, clk.lat...)
				results = append(results, clk.result...)
				if testing.Verbose() {
					b.Logf("%s keys (ms): %v", sc.name, msList(clk.lat))
					b.Logf("%s work (ms): %v", sc.name, msList(clk.work))
					if sc.result {
						b.Logf("%s results (ms): %v", sc.name, msList(clk.result))
					}
				}
				work = append(work, clk.work...)
			}
			if len(all) == 0 {
				b.Fatal("no key reached the terminal")
			}
			b.ReportMetric(pctMs(all, 0.50), "p50-ms")
			b.ReportMetric(pctMs(all, 0.99), "p99-ms")
			b.ReportMetric(pctMs(all, 1), "max-ms")
			if sc.result && len(results) > 0 {
				b.ReportMetric(pctMs(results, 0.50), "result-p50-ms")
				b.ReportMetric(pctMs(results, 0.99), "result-p99-ms")
			}
			b.ReportMetric(pctMs(work, 0.99), "work-p99-ms")
			b.ReportMetric(float64(len(all)), "keys")
			b.ReportMetric(float64(missed), "missed")
		})
	}
}

// msList is ds in whole milliseconds.
func msList(ds []time.Duration) []int64 {
	out := make([]int64, len(ds))
	for i, d := range ds {
		out[i] = d.Milliseconds()
	}
	return out
}

// pctMs is the q quantile of ds in milliseconds.
func pctMs(ds []time.Duration, q float64) float64 {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return float64(ds[min(int(q*float64(len(ds))), len(ds)-1)]) / float64(time.Millisecond)
}

// settled says the active screen shows the rows of its filter and sort.
func settled(m *Model) bool {
	if p, ok := m.top().(*screens.PartitionsScreen); ok {
		return p.Settled()
	}
	return true
}
