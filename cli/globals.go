package cli

import (
	"fmt"
	"io"
	"log"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"koff/connect"
	"koff/kafka"
	"koff/kafka/security"
	"koff/probe"
)

// Globals are the flags every command takes.
type Globals struct {
	Bootstrap     []string
	OffsetsTopics []string
	Refresh       time.Duration
	FlushInterval time.Duration
	LogFile       string
	Demo          bool
	ReadOnly      bool

	ConnectURL          string
	ConnectUser         string
	ConnectPasswordFile string
	ConnectCA           string
	ConnectTokenFile    string
	ConnectCert         string
	ConnectKey          string
	AuditLog            string
	ConnectorTopics     []string
	// DBPassFile names the databases koff may check, with their
	// credentials (pgpass format); "" checks none.
	DBPassFile string
	// SourceClusters are --source-cluster ALIAS=CONTEXT|FILE, and
	// ProbeTimeout bounds each system a resume check asks
	// (resume_check.go).
	SourceClusters []string
	ProbeTimeout   time.Duration
	// MetricsListen and MetricsSinkPartitions: the Prometheus endpoint
	// (metrics.go), with the rest of its flags.
	MetricsListen         string
	MetricsSinkPartitions int
	Metrics               metricsFlags
	// ConfigTopic is Connect's config.storage.topic; configTopicGiven says
	// it was named (flag or context): then it must exist.
	ConfigTopic      string
	configTopicGiven bool

	// Kafka client security (security.go); secrets come only from
	// files or the environment, never from a flag ps(1) would show.
	CommandConfig      string
	TLS                bool
	TLSCA              string
	TLSCert            string
	TLSKey             string
	InsecureSkipVerify bool
	SASLMechanism      string
	SASLUsername       string
	SASLPasswordFile   string

	// Contexts (contexts.go): the selected one, its accent colour, and the
	// file they come from.
	Context     string
	Accent      string
	FPS         int
	contextFile string
	contexts    *contextFile
	// contextSourceClusters are the selected context's source-clusters.
	contextSourceClusters map[string]string
	// readOnlyFlag is --read-only as given, before a context adds its own.
	readOnlyFlag bool
	// connectURLFrom names where ConnectURL came from when it was not
	// --connect-url, for its errors: KOFF_CONNECT_URL or a context.
	connectURLFrom string

	env      Env
	logger   *log.Logger
	logFile  *os.File
	security *security.Security // built by finish; nil is PLAINTEXT
	clientID string             // client.id from --command-config
}

// The shortest --refresh and non-zero --flush-interval koff accepts.
const (
	minRefresh       = 100 * time.Millisecond
	minFlushInterval = 100 * time.Millisecond
)

func addGlobals(fs *pflag.FlagSet, env Env) *Globals {
	g := &Globals{env: env}
	def, defURL, defCtx := "", "", ""
	if env.Getenv != nil {
		def, defURL, defCtx = env.Getenv("KOFF_BOOTSTRAP_SERVER"), env.Getenv("KOFF_CONNECT_URL"), env.Getenv("KOFF_CONTEXT")
	}
	fs.StringSliceVarP(&g.Bootstrap, "bootstrap-server", "b", splitList(def), "Kafka bootstrap servers, HOST:PORT[,HOST:PORT] (env KOFF_BOOTSTRAP_SERVER)")
	fs.StringArrayVar(&g.OffsetsTopics, "offsets-topic", []string{"connect-offsets"}, "Connect offsets topic to read (repeatable)")
	fs.DurationVar(&g.Refresh, "refresh", 2*time.Second, "how often koff polls topic metadata, consumer lag and Connect REST")
	fs.DurationVar(&g.FlushInterval, "flush-interval", 0, "the workers' offset.flush.interval.ms; with --demo and demo-cluster, the simulated workers' interval (default 5s)")
	fs.StringVar(&g.LogFile, "log-file", "", "write diagnostics to this file (the dashboard writes nothing else to the terminal)")
	fs.BoolVar(&g.Demo, "demo", false, "run on an embedded demo cluster with simulated Connect workers")
	fs.StringVar(&g.ConfigTopic, "config-topic", "connect-configs", "Connect's config topic (the workers' config.storage.topic), read for connectors' configs and target states; the default is read where it exists, \"\" reads none")
	fs.StringVar(&g.ConnectURL, "connect-url", defURL, "Kafka Connect REST URL with its scheme, e.g. http://connect:8083 (env KOFF_CONNECT_URL); user:pass@ in it is basic auth")
	fs.StringVar(&g.ConnectUser, "connect-user", "", "Connect REST basic auth user")
	fs.StringVar(&g.ConnectPasswordFile, "connect-password-file", "", "file holding the Connect REST basic auth password")
	fs.StringVar(&g.ConnectCA, "connect-ca", "", "PEM CA bundle for an https Connect REST URL")
	fs.StringVar(&g.DBPassFile, "db-pass-file", "", "pgpass-format FILE (host:port:database:user:password, mode 0600) naming the databases of Debezium connectors koff may check read-only, with the credentials to use; koff connects to no database without a line here")
	fs.StringArrayVar(&g.SourceClusters, "source-cluster", nil, "ALIAS=CONTEXT or ALIAS=FILE: reach MirrorMaker 2's source cluster ALIAS with a koff context's bootstrap-servers and command-config, or with Kafka client properties (as --command-config; bootstrap.servers else the connector's source.cluster.bootstrap.servers), for the resume check (repeatable)")
	fs.DurationVar(&g.ProbeTimeout, "probe-timeout", probe.DefaultTimeout, "how long each system a resume check looks at (a topic's cluster, a MirrorMaker source cluster, a database) may take to answer; past it, unknown")
	fs.BoolVar(&g.ReadOnly, "read-only", false, "never write: every edit is refused")
	fs.StringVar(&g.AuditLog, "audit-log", "", "audit log of edits (default $XDG_STATE_HOME/koff/audit.jsonl)")
	fs.StringArrayVar(&g.ConnectorTopics, "connector-topics", nil, "NAME=TOPIC[,TOPIC] topics a source connector writes, for unflushed records without REST (repeatable)")
	fs.StringVar(&g.Context, "context", defCtx, "use a named context from $XDG_CONFIG_HOME/koff/config.yaml (env KOFF_CONTEXT)")
	fs.IntVar(&g.FPS, "fps", 4, "the dashboard redraws for new data at most this many times a second (keys show at once)")
	addSecurityFlags(fs, g)
	addMetricsFlags(fs, g)
	return g
}

func (g *Globals) finish(fs *pflag.FlagSet) error {
	g.readOnlyFlag = g.ReadOnly
	if !fs.Changed("connect-url") && g.ConnectURL != "" {
		g.connectURLFrom = "KOFF_CONNECT_URL"
	}
	if g.env.Getenv != nil {
		g.contextFile = contextPath(g.env.Getenv)
		f, err := loadContexts(g.contextFile)
		if err != nil {
			return usagef("%v", err)
		}
		g.contexts = f
		switch {
		case g.Demo && fs.Changed("context"):
			return usagef("--demo runs on the embedded demo cluster: it does not go with --context")
		case g.Demo:
			// The demo cluster is no context of the config file: the
			// header must not name one (KOFF_CONTEXT, current-context).
			g.Context = ""
		default:
			if err := applyContext(g, fs, f, g.Context); err != nil {
				return err
			}
		}
	}
	if g.FPS < 1 || g.FPS > 60 {
		return usagef("--fps must be between 1 and 60, got %d", g.FPS)
	}
	if err := g.checkMetricsFlags(); err != nil {
		return err
	}
	// Lower bounds that keep koff from hammering Kafka and Connect: every
	// refresh polls both, and the demo's workers flush at --flush-interval.
	if g.Refresh < minRefresh {
		return usagef("--refresh must be at least %s (each refresh polls Kafka and Connect), got %s", minRefresh, g.Refresh)
	}
	if g.FlushInterval < 0 || g.FlushInterval > 0 && g.FlushInterval < minFlushInterval {
		return usagef("--flush-interval must be 0 (estimate it) or at least %s, got %s", minFlushInterval, g.FlushInterval)
	}
	var topics []string
	for _, t := range g.OffsetsTopics {
		if t = strings.TrimSpace(t); t == "" {
			return usagef("--offsets-topic must not be empty")
		}
		if !contains(topics, t) {
			topics = append(topics, t)
		}
	}
	g.OffsetsTopics = topics
	g.ConfigTopic = strings.TrimSpace(g.ConfigTopic)
	g.configTopicGiven = g.configTopicGiven || fs.Changed("config-topic") && g.ConfigTopic != ""
	var servers []string
	for _, b := range g.Bootstrap {
		if b = strings.TrimSpace(b); b != "" {
			servers = append(servers, b)
		}
	}
	g.Bootstrap = servers
	for _, ct := range g.ConnectorTopics {
		name, topics, ok := strings.Cut(ct, "=")
		if !ok || strings.TrimSpace(name) == "" || len(splitList(topics)) == 0 {
			return usagef("--connector-topics wants NAME=TOPIC[,TOPIC], got %q", ct)
		}
	}
	g.logger = log.New(io.Discard, "", log.LstdFlags|log.Lmicroseconds)
	if g.LogFile != "" {
		f, err := os.OpenFile(g.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("open log file: %w", err)
		}
		g.logFile = f
		g.logger.SetOutput(f)
	}
	g.warnPasswordInURL(fs)
	if err := g.loadSecurity(fs); err != nil {
		g.close()
		return err
	}
	return nil
}

// warnPasswordInURL: a password in --connect-url on the command line is
// visible to every user of the machine in ps(1). The environment variable
// and a context's config file are not.
func (g *Globals) warnPasswordInURL(fs *pflag.FlagSet) {
	if !fs.Changed("connect-url") || g.env.Stderr == nil {
		return
	}
	if u, err := url.Parse(g.ConnectURL); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			fmt.Fprintln(g.env.Stderr, "koff: warning: the password in --connect-url is visible to every user of this machine (ps); use --connect-user with --connect-password-file, or KOFF_CONNECT_URL")
		}
	}
}

// needBootstrap is the usage error for commands that talk to Kafka.
func (g *Globals) needBootstrap() error {
	if len(g.Bootstrap) == 0 {
		return usagef("no Kafka bootstrap servers: pass -b HOST:PORT or set KOFF_BOOTSTRAP_SERVER (or try koff --demo)")
	}
	return nil
}

// kafkaConfig is how every Kafka client of this run connects, with the
// TLS and SASL of --command-config and the flags.
func (g *Globals) kafkaConfig() kafka.Config {
	id := g.clientID
	if id == "" {
		id = "koff"
	}
	return kafka.Config{Brokers: g.Bootstrap, ClientID: id, Security: g.security}
}

// connectClient builds the REST client, or nil without --connect-url.
func (g *Globals) connectClient() (*connect.Client, error) {
	if g.ConnectURL == "" {
		if g.ConnectUser != "" || g.ConnectPasswordFile != "" || g.ConnectCA != "" || g.ConnectTokenFile != "" || g.ConnectCert != "" || g.ConnectKey != "" {
			return nil, usagef("--connect-user, --connect-password-file, --connect-token-file, --connect-ca, --connect-cert and --connect-key need --connect-url")
		}
		return nil, nil
	}
	cfg := connect.Config{URL: g.ConnectURL, User: g.ConnectUser, CAFile: g.ConnectCA, CertFile: g.ConnectCert, KeyFile: g.ConnectKey}
	if g.ConnectPasswordFile != "" {
		b, err := os.ReadFile(g.ConnectPasswordFile)
		if err != nil {
			return nil, fmt.Errorf("--connect-password-file: %w", err)
		}
		cfg.Password = strings.TrimRight(string(b), "\r\n")
	}
	if g.ConnectTokenFile != "" {
		b, err := os.ReadFile(g.ConnectTokenFile)
		if err != nil {
			return nil, fmt.Errorf("--connect-token-file: %w", err)
		}
		if cfg.Token = strings.TrimSpace(string(b)); cfg.Token == "" {
			return nil, usagef("--connect-token-file: %s is empty", g.ConnectTokenFile)
		}
	}
	c, err := connect.New(cfg)
	if err != nil {
		msg := err.Error()
		if g.connectURLFrom != "" {
			msg = strings.Replace(msg, "--connect-url:", g.connectURLFrom+":", 1)
		}
		return nil, usagef("%s", msg)
	}
	return c, nil
}

// shownGlobals are the flags that point another koff at the same cluster,
// for equivalent command lines (no secrets).
func (g *Globals) shownGlobals(c *connect.Client) []string {
	// The context and read-only first: they say which cluster, and whether
	// koff may write there at all.
	var out []string
	if g.Context != "" && !g.Demo {
		out = append(out, "--context", g.Context)
	}
	if g.ReadOnly {
		out = append(out, "--read-only")
	}
	out = append(out, "-b", strings.Join(g.Bootstrap, ","))
	for _, t := range g.OffsetsTopics {
		// The default goes without saying, unless a context would put
		// its own topics in its place.
		if t != "connect-offsets" || len(g.OffsetsTopics) > 1 || g.Context != "" && !g.Demo {
			out = append(out, "--offsets-topic", t)
		}
	}
	if g.ConfigTopic != "connect-configs" {
		out = append(out, "--config-topic", g.ConfigTopic)
	}
	out = append(out, g.shownSecurity()...)
	if c != nil {
		out = append(out, "--connect-url", c.URL())
		out = appendSet(out, "--connect-user", g.ConnectUser, "--connect-password-file", g.ConnectPasswordFile,
			"--connect-token-file", g.ConnectTokenFile, "--connect-ca", g.ConnectCA, "--connect-cert", g.ConnectCert, "--connect-key", g.ConnectKey)
	}
	// The same audit log, so that koff undo after the printed command
	// finds its edit.
	return appendSet(out, "--audit-log", g.AuditLog)
}

func (g *Globals) logf(format string, args ...any) { g.logger.Printf(format, args...) }

func (g *Globals) close() {
	if g.logFile != nil {
		g.logFile.Close()
	}
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Which commands use each global flag ("" is the dashboard). Every command
// accepts every global flag, so a context or a shell alias works with any
// of them; a command's --help lists the ones it uses.
var (
	kafkaUsers = []string{"", "get", "tail", "status", "check", "history", "set", "reset", "export", "import", "copy", "create", "rename", "rekey", "move", "undo", "serve", "metrics"}
	restUsers  = []string{"", "get", "status", "check", "history", "set", "reset", "export", "import", "copy", "create", "rename", "rekey", "move", "undo", "stop", "resume", "serve", "metrics"}
	writers    = []string{"", "set", "reset", "import", "copy", "create", "rename", "rekey", "move", "undo", "stop", "resume", "serve"}
	liveUsers  = []string{"", "status", "serve", "metrics"}
	dashboards = []string{"", "serve"}
	// The resume check: koff check, and the poller of every live view.
	resumeUsers = []string{"", "check", "status", "serve", "metrics"}
	// Commands that plan edits: a plan checks its new offsets.
	planners       = []string{"", "set", "reset", "import", "copy", "create", "rename", "rekey", "move", "undo", "serve"}
	metricsUsers   = []string{"", "serve", "metrics"}
	demoClusterCmd = []string{"demo-cluster"}
	// koff audit, stop and resume ask Kafka only for its cluster id.
	clusterIDUsers = []string{"audit", "stop", "resume"}
	globalUsedBy   = map[string][][]string{
		"bootstrap-server": {kafkaUsers, clusterIDUsers}, "offsets-topic": {kafkaUsers}, "refresh": {kafkaUsers},
		"command-config": {kafkaUsers, clusterIDUsers}, "tls": {kafkaUsers, clusterIDUsers}, "tls-ca": {kafkaUsers, clusterIDUsers}, "tls-cert": {kafkaUsers, clusterIDUsers}, "tls-key": {kafkaUsers, clusterIDUsers},
		"insecure-skip-verify": {kafkaUsers, clusterIDUsers}, "sasl-mechanism": {kafkaUsers, clusterIDUsers}, "sasl-username": {kafkaUsers, clusterIDUsers},
		"sasl-password-file": {kafkaUsers, clusterIDUsers, demoClusterCmd},
		"connect-url":        {restUsers}, "connect-ca": {restUsers}, "connect-cert": {restUsers}, "connect-key": {restUsers},
		"connect-user": {restUsers, demoClusterCmd}, "connect-password-file": {restUsers, demoClusterCmd}, "connect-token-file": {restUsers, demoClusterCmd},
		"context":   {kafkaUsers, restUsers, clusterIDUsers},
		"log-file":  {kafkaUsers, restUsers, clusterIDUsers, demoClusterCmd},
		"read-only": {writers}, "audit-log": {{"", "history", "set", "reset", "import", "copy", "create", "rename", "rekey", "move", "undo", "audit", "stop", "resume", "serve", "metrics"}},
		"connector-topics": {liveUsers}, "flush-interval": {liveUsers, demoClusterCmd},
		"demo": {metricsUsers}, "fps": {dashboards},
		"metrics-listen": {dashboards}, "metrics-sink-partitions": {metricsUsers}, "metrics-connectors": {metricsUsers},
		"db-pass-file": {resumeUsers, planners}, "source-cluster": {resumeUsers, planners}, "probe-timeout": {resumeUsers, planners},
		"web.config.file": {metricsUsers}, "web.telemetry-path": {metricsUsers},
	}
)

// usesGlobal reports whether command name uses the global flag.
func usesGlobal(name, flag string) bool {
	sets, ok := globalUsedBy[flag]
	if !ok {
		return true // a flag not listed is shown everywhere rather than hidden
	}
	for _, set := range sets {
		if contains(set, name) {
			return true
		}
	}
	return false
}
