package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/exporter-toolkit/web"
	"github.com/spf13/pflag"

	"koff/edit/audit"
	"koff/metrics"
)

// The Prometheus endpoint: --metrics-listen on the dashboard and koff
// serve, and koff metrics, the same observer without a terminal. It is
// served by Prometheus' exporter-toolkit: --web.config.file gives it TLS,
// client certificates and basic auth as every exporter takes them.

// defaultSinkPartitionSeries is --metrics-sink-partitions' default.
const defaultSinkPartitionSeries = 1000

// defaultConnectorSeries is --metrics-connectors' default: a scrape of
// 10,000 connectors stays under 2 MB.
const defaultConnectorSeries = 1000

// DefaultMetricsAddr is koff metrics' --web.listen-address: port 10186,
// not in Prometheus' default port allocations (9100-9999 are all taken).
const DefaultMetricsAddr = ":10186"

// metricsFlags are the endpoint's global flags besides --metrics-listen
// and --metrics-sink-partitions.
type metricsFlags struct {
	connectors    int
	events        *log.Logger
	webConfig     string
	telemetryPath string
}

// addMetricsFlags adds the global flags of the endpoint (addGlobals).
func addMetricsFlags(fs *pflag.FlagSet, g *Globals) {
	fs.StringVar(&g.MetricsListen, "metrics-listen", "", "serve Prometheus metrics on ADDR, at --web.telemetry-path (empty: none)")
	fs.IntVar(&g.MetricsSinkPartitions, "metrics-sink-partitions", defaultSinkPartitionSeries, fmt.Sprintf("export per-partition sink series while all sinks together have at most this many partitions (0: never, at most %d); each sink's totals always", metrics.MaxSinkPartitionSeries))
	fs.IntVar(&g.Metrics.connectors, "metrics-connectors", defaultConnectorSeries, "export per-connector series for at most this many connectors, those needing attention first (koff_connectors_without_series counts the rest)")
	fs.StringVar(&g.Metrics.webConfig, "web.config.file", "", "exporter-toolkit web configuration (TLS, client certificates, basic auth) for the metrics endpoint")
	fs.StringVar(&g.Metrics.telemetryPath, "web.telemetry-path", "/metrics", "path of the metrics endpoint")
}

type metricsOptions struct{ listen, alias string }

func init() {
	register(&command{
		name:    "metrics",
		args:    "[--web.listen-address ADDR] [--web.config.file FILE] [--metrics-connectors N] [--metrics-sink-partitions N]",
		summary: "serve Prometheus metrics of the connectors' flushes, unflushed records, sink lag and koff's edits, headless, until interrupted",
		flags: func(fs *pflag.FlagSet) any {
			o := &metricsOptions{}
			fs.StringVar(&o.listen, "web.listen-address", DefaultMetricsAddr, "address the metrics endpoint listens on")
			fs.StringVar(&o.alias, "listen", "", "the same as --web.listen-address")
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
		return usagef("koff metrics listens on --web.listen-address; --metrics-listen is for the dashboard and koff serve")
	}
	listen, flag := o.listen, "--web.listen-address"
	if o.alias != "" {
		flag = "--listen"
		if listen != DefaultMetricsAddr && listen != o.alias {
			return usagef("--listen %s and --web.listen-address %s: give one", o.alias, listen)
		}
		listen = o.alias
	}
	if !g.Demo {
		if err := g.needBootstrap(); err != nil {
			return err
		}
	}
	defer g.close()
	// Listen before starting anything else: a port in use, or a web
	// config that cannot be used, fails at once.
	if err := web.Validate(g.Metrics.webConfig); err != nil {
		return fmt.Errorf("--web.config.file: %w", err)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("%s: %w", flag, err)
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
	ck, err := g.resumeChecker()
	if err != nil {
		ln.Close()
		return err
	}
	obs := observe(ctx, g, rest)
	defer obs.stop()
	obs.run()
	obs.runResume(ck)
	g.startEventLog(ctx, obs.store, env)
	srv := g.serveMetricsOn(ln, obs, rest != nil, env)
	fmt.Fprintf(env.Stdout, "koff metrics: serving %s\n", g.metricsURL(ln))
	select {
	case <-ctx.Done():
	case err := <-srv.served:
		srv.served <- err
	}
	return srv.stop()
}

// checkMetricsFlags is part of Globals.finish.
func (g *Globals) checkMetricsFlags() error {
	if g.MetricsSinkPartitions < 0 || g.MetricsSinkPartitions > metrics.MaxSinkPartitionSeries {
		return usagef("--metrics-sink-partitions must be 0 to %d (past it a scrape nears Prometheus' 10s timeout), got %d", metrics.MaxSinkPartitionSeries, g.MetricsSinkPartitions)
	}
	if g.Metrics.connectors < 1 {
		return usagef("--metrics-connectors must be at least 1, got %d", g.Metrics.connectors)
	}
	if p := g.Metrics.telemetryPath; !strings.HasPrefix(p, "/") || p == "/" {
		return usagef("--web.telemetry-path must be a path below /, like /metrics, got %q", p)
	}
	return nil
}

// startMetrics serves --metrics-listen, if given, for the dashboard and
// koff serve: it returns the endpoint's URL ("" without the flag) and a
// stop that closes it.
func (g *Globals) startMetrics(obs *observer, rest bool, env Env) (string, func(), error) {
	if g.MetricsListen == "" {
		// The endpoint's settings without the endpoint are a mistake: a
		// web config meant to guard it would guard nothing.
		if g.Metrics.webConfig != "" || g.Metrics.telemetryPath != "/metrics" {
			return "", nil, usagef("--web.config.file and --web.telemetry-path set up --metrics-listen's endpoint: give --metrics-listen ADDR too")
		}
		return "", func() {}, nil
	}
	if err := web.Validate(g.Metrics.webConfig); err != nil {
		return "", nil, fmt.Errorf("--web.config.file: %w", err)
	}
	ln, err := net.Listen("tcp", g.MetricsListen)
	if err != nil {
		return "", nil, fmt.Errorf("--metrics-listen: %w", err)
	}
	s := g.serveMetricsOn(ln, obs, rest, env)
	return g.metricsURL(ln), func() { s.stop() }, nil
}

// metricsURL is where the endpoint answers: https with a web config that
// has TLS.
func (g *Globals) metricsURL(ln net.Listener) string {
	scheme := "http"
	if g.Metrics.webConfig != "" {
		if b, err := os.ReadFile(g.Metrics.webConfig); err == nil && strings.Contains(string(b), "tls_server_config") {
			scheme = "https"
		}
	}
	return fmt.Sprintf("%s://%s%s", scheme, ln.Addr(), g.Metrics.telemetryPath)
}

// eventf logs an event an operator must see: koff metrics' stderr or
// --log-file; the dashboard's and koff serve's log.
func (g *Globals) eventf(format string, args ...any) {
	if g.Metrics.events != nil {
		g.Metrics.events.Printf(format, args...)
		return
	}
	g.logf(format, args...)
}

type metricsServer struct {
	srv    *http.Server
	served chan error
}

// serveMetricsOn serves the endpoint on ln from the observer's Store:
// each scrape reads a snapshot.
func (g *Globals) serveMetricsOn(ln net.Listener, obs *observer, rest bool, env Env) *metricsServer {
	c := metrics.New(metrics.Options{
		Store:              obs.store,
		FlushInterval:      g.FlushInterval,
		SinkPartitionLimit: g.MetricsSinkPartitions,
		ConnectorLimit:     g.Metrics.connectors,
		REST:               rest,
		Edits:              (&auditCounts{log: &audit.Log{Path: g.auditPath(env)}, cluster: obs.tailer.ClusterID}).counts,
		Version:            Version,
		Logf:               g.eventf,
	})
	path := g.Metrics.telemetryPath
	mux := http.NewServeMux()
	mux.Handle(path, metrics.Handler(c))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, "koff: metrics at %s\n", path)
	})
	s := &metricsServer{
		srv:    &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: g.logger},
		served: make(chan error, 1),
	}
	flags := &web.FlagConfig{WebListenAddresses: &[]string{ln.Addr().String()}, WebSystemdSocket: new(bool), WebConfigFile: &g.Metrics.webConfig}
	// exporter-toolkit says what it serves in slog lines; they go where
	// koff's log goes, as info (its per-request errors are warnings).
	logger := slog.New(slog.NewTextHandler(logWriter{g}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	go func() { s.served <- web.Serve(ln, s.srv, flags, logger) }()
	g.eventf("metrics listening on %s", g.metricsURL(ln))
	return s
}

// logWriter hands slog's lines to koff's log.
type logWriter struct{ g *Globals }

func (w logWriter) Write(p []byte) (int, error) {
	w.g.eventf("%s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

var _ io.Writer = logWriter{}

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

// auditCounts counts the audit log's edits of this cluster by kind and
// outcome, read again only when the file changed. Lines that name no
// cluster are counted too, as koff audit lists them.
type auditCounts struct {
	log     *audit.Log
	cluster func() string

	mu   sync.Mutex
	stat [2]int64
	of   string
	n    map[metrics.EditCount]int
}

func (a *auditCounts) counts() map[metrics.EditCount]int {
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
	n := map[metrics.EditCount]int{}
	eds, err := a.log.Edits()
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return a.n // keep the last count over a line being written
	}
	for _, ed := range eds {
		if c := ed.Start.Cluster; c == "" || c == cluster {
			n[metrics.EditCount{Kind: string(ed.Start.Kind), Result: ed.Result()}]++
		}
	}
	a.stat, a.of, a.n = st, cluster, n
	return n
}
