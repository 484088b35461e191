package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"koff/edit"
	"koff/metrics"
)

// The Prometheus endpoint: --metrics-listen on the dashboard and koff
// serve, and koff metrics, the same observer without a terminal.

// defaultSinkPartitionSeries is --metrics-sink-partitions' default.
const defaultSinkPartitionSeries = 1000

// addMetricsFlags adds the global flags of the endpoint (addGlobals).
func addMetricsFlags(fs *pflag.FlagSet, g *Globals) {
	fs.StringVar(&g.MetricsListen, "metrics-listen", "", "serve Prometheus metrics at http://ADDR/metrics (empty: none)")
	fs.IntVar(&g.MetricsSinkPartitions, "metrics-sink-partitions", defaultSinkPartitionSeries, "export per-partition sink series while all sinks together have at most this many partitions (0: never); per-connector series always")
}

type metricsOptions struct{ listen string }

func init() {
	register(&command{
		name:    "metrics",
		args:    "--listen ADDR [--metrics-sink-partitions N]",
		summary: "serve Prometheus metrics of the connectors' flushes, unflushed records, sink lag and koff's edits, headless, until interrupted",
		flags: func(fs *pflag.FlagSet) any {
			o := &metricsOptions{}
			fs.StringVar(&o.listen, "listen", ":9464", "address the metrics endpoint listens on (http://ADDR/metrics)")
			return o
		},
		run: runMetrics,
	})
}

func runMetrics(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*metricsOptions)
	if len(args) > 0 {
		return usagef("metrics takes no arguments, got %q", args[0])
	}
	if g.MetricsListen != "" {
		return usagef("koff metrics listens on --listen; --metrics-listen is for the dashboard and koff serve")
	}
	if !g.Demo {
		if err := g.needBootstrap(); err != nil {
			return err
		}
	}
	defer g.close()
	// Listen before starting anything else: a port in use fails at once.
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	ctx, stop := signal.NotifyContext(env.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if g.Demo {
		stopDemo, err := g.useDemo(ctx)
		if err != nil {
			ln.Close()
			return err
		}
		defer stopDemo()
	}
	rest, err := g.connectClient()
	if err != nil {
		ln.Close()
		return err
	}
	obs := observe(ctx, g, rest)
	defer obs.stop()
	obs.run()
	srv := g.serveMetricsOn(ln, obs, rest != nil, env)
	fmt.Fprintf(env.Stdout, "koff metrics: serving http://%s/metrics\n", ln.Addr())
	<-ctx.Done()
	return srv.stop()
}

// checkMetricsFlags is part of Globals.finish.
func (g *Globals) checkMetricsFlags() error {
	if g.MetricsSinkPartitions < 0 {
		return usagef("--metrics-sink-partitions must not be negative, got %d", g.MetricsSinkPartitions)
	}
	return nil
}

// startMetrics serves --metrics-listen, if given, for the dashboard and
// koff serve: it returns the endpoint's URL ("" without the flag) and a
// stop that closes it.
func (g *Globals) startMetrics(obs *observer, rest bool, env Env) (string, func(), error) {
	if g.MetricsListen == "" {
		return "", func() {}, nil
	}
	ln, err := net.Listen("tcp", g.MetricsListen)
	if err != nil {
		return "", nil, fmt.Errorf("--metrics-listen: %w", err)
	}
	s := g.serveMetricsOn(ln, obs, rest, env)
	return fmt.Sprintf("http://%s/metrics", ln.Addr()), func() { s.stop() }, nil
}

type metricsServer struct {
	srv    *http.Server
	served chan error
}

// serveMetricsOn serves /metrics on ln from the observer's Store: each
// scrape reads a snapshot and keeps nothing.
func (g *Globals) serveMetricsOn(ln net.Listener, obs *observer, rest bool, env Env) *metricsServer {
	c := metrics.New(metrics.Options{
		Store:              obs.store,
		FlushInterval:      g.FlushInterval,
		SinkPartitionLimit: g.MetricsSinkPartitions,
		REST:               rest,
		Edits:              (&auditCounts{log: &edit.AuditLog{Path: g.auditPath(env)}, cluster: obs.tailer.ClusterID}).counts,
	})
	mux := http.NewServeMux()
	mux.Handle("/metrics", metrics.Handler(c))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "koff: metrics at /metrics")
	})
	s := &metricsServer{
		srv:    &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: g.logger},
		served: make(chan error, 1),
	}
	go func() { s.served <- s.srv.Serve(ln) }()
	g.logf("metrics listening on %s", ln.Addr())
	return s
}

func (s *metricsServer) stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close()
	}
	if err := <-s.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("metrics server: %w", err)
	}
	return nil
}

// auditCounts counts the audit log's edits of this cluster by outcome,
// read again only when the file changed. Lines that name no cluster are
// counted too, as koff audit lists them.
type auditCounts struct {
	log     *edit.AuditLog
	cluster func() string

	mu   sync.Mutex
	stat [2]int64
	of   string
	n    map[string]int
}

func (a *auditCounts) counts() map[string]int {
	cluster := a.cluster()
	if cluster == "" {
		return nil // not yet known which cluster this is
	}
	st := [2]int64{}
	if fi, err := os.Stat(a.log.Path); err == nil {
		st = [2]int64{fi.Size(), fi.ModTime().UnixNano()}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n != nil && st == a.stat && cluster == a.of {
		return a.n
	}
	n := map[string]int{}
	eds, err := a.log.Edits()
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return a.n // keep the last count over a line being written
	}
	for _, ed := range eds {
		if c := ed.Start.Cluster; c == "" || c == cluster {
			n[ed.Result()]++
		}
	}
	a.stat, a.of, a.n = st, cluster, n
	return n
}
