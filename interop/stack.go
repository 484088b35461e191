// Package interop runs koff against the real thing: an Apache Kafka 4.1.1
// KRaft broker and a distributed Kafka Connect worker, started from the jars
// fetch.sh puts in interop/lib. Its tests are koff's real-stack tests; the
// worker, not koff's emulator, is the judge of what Connect writes and reads.
package interop

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/segmentio/kafka-go"

	"koff/demo"
)

// KafkaVersion is the Apache Kafka release pom.xml pins.
const KafkaVersion = "4.1.1"

// SCRAM credentials of the broker's SASL_SSL listener, added when the
// storage is formatted.
const (
	SCRAMUser     = "koff"
	SCRAMPassword = "koff-interop-secret"
)

// Stack is one running broker and Connect worker.
type Stack struct {
	Dir             string // logs, data, configs, certificates
	FilesDir        string // where tests put the files FileStream connectors read and write
	Bootstrap       string // PLAINTEXT listener
	SecureBootstrap string // SASL_SSL listener (SCRAM-SHA-512 and a required client certificate)
	ConnectURL      string // the worker's REST API
	TLS             demo.TLSFiles
	Java            string
	Classpath       string // broker, worker and tools, without the plugins

	procs []*process
}

type process struct {
	name string
	log  string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// Dir is this package's source directory: lib/ and plugins/ live there.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Missing says what is missing to run the real stack ("" when nothing is),
// and how to get it.
func Missing() string {
	if _, err := exec.LookPath("java"); err != nil {
		return "no java on PATH: install OpenJDK 17 and Maven, then run interop/fetch.sh"
	}
	jars, _ := filepath.Glob(filepath.Join(Dir(), "lib", "kafka_2.13-"+KafkaVersion+".jar"))
	if len(jars) == 0 {
		return "no Kafka " + KafkaVersion + " jars in interop/lib: run interop/fetch.sh (needs Maven and Maven Central)"
	}
	if _, err := os.Stat(filepath.Join(Dir(), "plugins", "koff-interop", "koff-interop-connector.jar")); err != nil {
		return "the test connector is not built: run interop/fetch.sh"
	}
	return ""
}

// FreePorts returns n distinct free loopback ports.
func FreePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Start formats and starts the broker, then the worker, and waits until both
// answer. On a 2-core machine shared with others a JVM takes its time, so the
// waits are generous; ctx bounds them.
func Start(ctx context.Context, dir string) (s *Stack, err error) {
	if m := Missing(); m != "" {
		return nil, errors.New(m)
	}
	java, _ := exec.LookPath("java")
	s = &Stack{Dir: dir, FilesDir: filepath.Join(dir, "files"), Java: java}
	defer func() {
		if err != nil {
			s.Stop()
		}
	}()
	for _, d := range []string{s.FilesDir, filepath.Join(dir, "data"), filepath.Join(dir, "plugins")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return s, err
		}
	}
	if s.Classpath, err = s.plugins(); err != nil {
		return s, err
	}
	if s.TLS, err = demo.WriteTLS(filepath.Join(dir, "tls")); err != nil {
		return s, err
	}
	ports, err := FreePorts(4)
	if err != nil {
		return s, err
	}
	s.Bootstrap = fmt.Sprintf("127.0.0.1:%d", ports[0])
	s.SecureBootstrap = fmt.Sprintf("127.0.0.1:%d", ports[2])
	s.ConnectURL = fmt.Sprintf("http://127.0.0.1:%d", ports[3])
	if err := s.writeConfigs(ports); err != nil {
		return s, err
	}
	if err := s.format(ctx); err != nil {
		return s, err
	}
	broker, err := s.start("broker", "kafka.Kafka", filepath.Join(dir, "server.properties"))
	if err != nil {
		return s, err
	}
	if err := s.waitBroker(ctx, broker); err != nil {
		return s, err
	}
	worker, err := s.start("worker", "org.apache.kafka.connect.cli.ConnectDistributed", filepath.Join(dir, "worker.properties"))
	if err != nil {
		return s, err
	}
	if err := s.waitWorker(ctx, worker); err != nil {
		return s, err
	}
	return s, nil
}

// plugins lays out plugin.path (connect-file, connect-mirror, the test
// connector and Debezium's PostgreSQL connector, each isolated in its own
// directory, as an operator installs them) and returns the classpath of the
// rest.
func (s *Stack) plugins() (string, error) {
	lib := filepath.Join(Dir(), "lib")
	jars, err := filepath.Glob(filepath.Join(lib, "*.jar"))
	if err != nil {
		return "", err
	}
	sort.Strings(jars)
	pluginOf := func(base string) string {
		switch {
		case strings.HasPrefix(base, "connect-file-"):
			return "file"
		case strings.HasPrefix(base, "connect-mirror-"):
			return "mirror"
		}
		return ""
	}
	var cp []string
	link := func(jar, plugin string) error {
		d := filepath.Join(s.Dir, "plugins", plugin)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		return os.Symlink(jar, filepath.Join(d, filepath.Base(jar)))
	}
	for _, j := range jars {
		if p := pluginOf(filepath.Base(j)); p != "" {
			if err := link(j, p); err != nil {
				return "", err
			}
			continue
		}
		cp = append(cp, j)
	}
	// fetch.sh's plugins (the test connector, Debezium), each in its own
	// directory as fetched.
	built, err := filepath.Glob(filepath.Join(Dir(), "plugins", "*", "*.jar"))
	if err != nil {
		return "", err
	}
	for _, j := range built {
		if err := link(j, filepath.Base(filepath.Dir(j))); err != nil {
			return "", err
		}
	}
	// kafka-tools' consumer-group command is on the classpath of the tools
	// the tests run; connect-mirror-client too, for nothing else needs it.
	return strings.Join(cp, string(os.PathListSeparator)), nil
}

func (s *Stack) writeConfigs(ports []int) error {
	keystore := filepath.Join(s.Dir, "tls", "broker-keystore.pem")
	if err := concat(keystore, s.TLS.Key, s.TLS.Cert); err != nil {
		return err
	}
	server := []string{
		"process.roles=broker,controller",
		"node.id=1",
		fmt.Sprintf("controller.quorum.voters=1@127.0.0.1:%d", ports[1]),
		fmt.Sprintf("listeners=PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d,SASL_SSL://127.0.0.1:%d", ports[0], ports[1], ports[2]),
		fmt.Sprintf("advertised.listeners=PLAINTEXT://127.0.0.1:%d,SASL_SSL://127.0.0.1:%d", ports[0], ports[2]),
		"controller.listener.names=CONTROLLER",
		"inter.broker.listener.name=PLAINTEXT",
		"listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL",
		"log.dirs=" + filepath.Join(s.Dir, "data"),
		"num.partitions=1",
		"offsets.topic.replication.factor=1",
		"offsets.topic.num.partitions=5",
		"transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1",
		"transaction.state.log.num.partitions=5",
		"group.initial.rebalance.delay.ms=0",
		"log.cleaner.dedupe.buffer.size=4194304",
		"log.cleaner.threads=1",
		"num.network.threads=2",
		"num.io.threads=2",
		// The SASL_SSL listener: SCRAM-SHA-512 and a client certificate.
		"sasl.enabled.mechanisms=SCRAM-SHA-512",
		"listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;",
		"listener.name.sasl_ssl.ssl.client.auth=required",
		"listener.name.sasl_ssl.ssl.keystore.type=PEM",
		"listener.name.sasl_ssl.ssl.keystore.location=" + keystore,
		"listener.name.sasl_ssl.ssl.truststore.type=PEM",
		"listener.name.sasl_ssl.ssl.truststore.location=" + s.TLS.CA,
	}
	worker := []string{
		"bootstrap.servers=" + s.Bootstrap,
		"group.id=koff-interop",
		"key.converter=org.apache.kafka.connect.json.JsonConverter",
		"value.converter=org.apache.kafka.connect.json.JsonConverter",
		"key.converter.schemas.enable=false",
		"value.converter.schemas.enable=false",
		"offset.storage.topic=connect-offsets",
		"offset.storage.partitions=25",
		"offset.storage.replication.factor=1",
		"config.storage.topic=connect-configs",
		"config.storage.replication.factor=1",
		"status.storage.topic=connect-status",
		"status.storage.partitions=1",
		"status.storage.replication.factor=1",
		"offset.flush.interval.ms=2000",
		"exactly.once.source.support=enabled",
		"connector.client.config.override.policy=All",
		"listeners=" + s.ConnectURL,
		"plugin.path=" + filepath.Join(s.Dir, "plugins"),
		"scheduled.rebalance.max.delay.ms=0",
	}
	log4j := []string{
		"status = warn",
		"appender.out.type = Console",
		"appender.out.name = out",
		"appender.out.layout.type = PatternLayout",
		"appender.out.layout.pattern = [%d] %p %m (%c)%n",
		"rootLogger.level = INFO",
		"rootLogger.appenderRef.out.ref = out",
		// Every client's config dump would be most of the log.
		"logger.config.name = org.apache.kafka.common.config.AbstractConfig",
		"logger.config.level = WARN",
		"logger.appinfo.name = org.apache.kafka.common.utils.AppInfoParser",
		"logger.appinfo.level = WARN",
	}
	for name, lines := range map[string][]string{"server.properties": server, "worker.properties": worker, "log4j2.properties": log4j} {
		if err := os.WriteFile(filepath.Join(s.Dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func concat(dst string, srcs ...string) error {
	var b []byte
	for _, s := range srcs {
		d, err := os.ReadFile(s)
		if err != nil {
			return err
		}
		b = append(b, d...)
	}
	return os.WriteFile(dst, b, 0o600)
}

// jvm is the command line of a small JVM: the machine is shared.
func (s *Stack) jvm(main string, args ...string) []string {
	a := []string{
		"-Xms64m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Djava.awt.headless=true",
		"-Dlog4j2.configurationFile=" + filepath.Join(s.Dir, "log4j2.properties"),
		"-cp", s.Classpath, main,
	}
	return append(a, args...)
}

// format is `kafka-storage format` (kafka.tools.StorageTool), with the
// SCRAM user of the SASL_SSL listener.
func (s *Stack) format(ctx context.Context) error {
	args := s.jvm("kafka.tools.StorageTool", "format",
		"--config", filepath.Join(s.Dir, "server.properties"),
		"--cluster-id", "a2FmLWludGVyb3AtMDAwMQ", // 22 base64url chars: a Kafka cluster id
		"--add-scram", fmt.Sprintf("SCRAM-SHA-512=[name=%s,password=%s]", SCRAMUser, SCRAMPassword),
		"--ignore-formatted")
	out, err := s.Tool(ctx, args...)
	if err != nil {
		return fmt.Errorf("kafka-storage format: %v\n%s", err, out)
	}
	return nil
}

// Tool runs java with args (built by JVM) and returns its combined output.
func (s *Stack) Tool(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, s.Java, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// JVM is the java command line running main with args on the stack's
// classpath: for Kafka's own tools.
func (s *Stack) JVM(main string, args ...string) []string { return s.jvm(main, args...) }

func (s *Stack) start(name, main, config string) (*process, error) {
	log := filepath.Join(s.Dir, name+".log")
	// Appended to: a restarted process's log follows its first run's.
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(s.Java, s.jvm(main, config)...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Dir = s.Dir
	// The JVMs die with the test binary, even when it is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, log: log, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	s.procs = append(s.procs, p)
	return p, nil
}

func (p *process) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited: %v (log %s)", p.name, p.err, p.log)
	default:
		return nil
	}
}

// lookup is a client on its own transport, closed by the returned func:
// kafka-go's transport keeps connections and the metadata it saw, which a
// broker restart makes stale.
func (s *Stack) lookup() (*kafka.Client, func()) {
	tr := &kafka.Transport{}
	return &kafka.Client{Addr: kafka.TCP(s.Bootstrap), Timeout: 5 * time.Second, Transport: tr}, tr.CloseIdleConnections
}

func (s *Stack) waitBroker(ctx context.Context, p *process) error {
	return poll(ctx, "broker "+s.Bootstrap, p, func() error {
		c, done := s.lookup()
		defer done()
		m, err := c.Metadata(ctx, &kafka.MetadataRequest{})
		if err != nil {
			return err
		}
		if m.Controller.ID < 0 || len(m.Brokers) == 0 {
			return errors.New("no controller yet")
		}
		return nil
	})
}

func (s *Stack) waitWorker(ctx context.Context, p *process) error {
	hc := &http.Client{Timeout: 5 * time.Second}
	// /health answers 200 only once the worker has joined its group and read
	// its config topic (KIP-1017).
	return poll(ctx, "Connect worker "+s.ConnectURL, p, func() error {
		resp, err := hc.Get(s.ConnectURL + "/health")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/health: %s", resp.Status)
		}
		return nil
	})
}

func poll(ctx context.Context, what string, p *process, ready func() error) error {
	var last error
	for {
		if err := p.exited(); err != nil {
			return err
		}
		if last = ready(); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready: %v (last: %v)", what, ctx.Err(), last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// Stop ends the worker (letting it leave its group), then the broker.
func (s *Stack) Stop() {
	for i := len(s.procs) - 1; i >= 0; i-- {
		s.procs[i].stop(15 * time.Second)
	}
	s.procs = nil
}

// stop sends SIGTERM and waits for the process to end, killing it after d.
func (p *process) stop(d time.Duration) { p.stopBy(syscall.SIGTERM, d) }

// stopBy is stop with the signal the server takes for its clean shutdown.
func (p *process) stopBy(sig os.Signal, d time.Duration) {
	if p.exited() != nil {
		return
	}
	p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(d):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// RestartBroker stops the broker cleanly and starts it again on the same
// data directory and ports, as an operator's rolling restart does. Every
// partition's leader epoch moves: at its controlled shutdown the controller
// takes leadership from the broker, and gives it back when the broker
// registers again (QuorumController's fencing and unfencing of the broker).
// It returns once every partition has a leader again and the worker,
// which stays up and reconnects by itself, answers /health and lists its
// connectors, so tests that run after it find the stack as it was.
func (s *Stack) RestartBroker(ctx context.Context) error {
	i := slices.IndexFunc(s.procs, func(p *process) bool { return p.name == "broker" })
	if i < 0 {
		return errors.New("no broker to restart")
	}
	s.procs[i].stop(60 * time.Second)
	broker, err := s.start("broker", "kafka.Kafka", filepath.Join(s.Dir, "server.properties"))
	if err != nil {
		return err
	}
	// In place: Stop still ends the worker before the broker.
	s.procs = slices.Delete(s.procs, len(s.procs)-1, len(s.procs))
	s.procs[i] = broker
	if err := s.waitBroker(ctx, broker); err != nil {
		return err
	}
	if err := s.waitAllLed(ctx, broker); err != nil {
		return err
	}
	worker := s.procs[slices.IndexFunc(s.procs, func(p *process) bool { return p.name == "worker" })]
	if err := s.waitWorker(ctx, worker); err != nil {
		return err
	}
	hc := &http.Client{Timeout: 5 * time.Second}
	err = poll(ctx, "Connect worker's REST API after the broker restart", worker, func() error {
		resp, err := hc.Get(s.ConnectURL + "/connectors")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/connectors: %s", resp.Status)
		}
		return nil
	})
	// The tests' kafka-go clients share the default transport: its
	// connections to the broker that stopped would fail their next request.
	kafka.DefaultTransport.(*kafka.Transport).CloseIdleConnections()
	return err
}

// waitAllLed waits until every partition of every topic has a leader.
func (s *Stack) waitAllLed(ctx context.Context, p *process) error {
	return poll(ctx, "leaders of every partition on "+s.Bootstrap, p, func() error {
		c, done := s.lookup()
		defer done()
		m, err := c.Metadata(ctx, &kafka.MetadataRequest{})
		if err != nil {
			return err
		}
		for _, t := range m.Topics {
			if t.Error != nil {
				return fmt.Errorf("%s: %w", t.Name, t.Error)
			}
			for _, pt := range t.Partitions {
				if pt.Error != nil || pt.Leader.Host == "" {
					return fmt.Errorf("%s/%d has no leader yet", t.Name, pt.ID)
				}
			}
		}
		return nil
	})
}

// Logs returns the last lines of each log, for a failed test to print.
func (s *Stack) Logs(lines int) string {
	var b strings.Builder
	for _, name := range []string{"broker", "worker"} {
		path := filepath.Join(s.Dir, name+".log")
		fmt.Fprintf(&b, "==== %s (last %d lines of %s)\n", name, lines, path)
		b.WriteString(tail(path, lines))
	}
	return b.String()
}

var tailMu sync.Mutex

func tail(path string, n int) string {
	tailMu.Lock()
	defer tailMu.Unlock()
	f, err := os.Open(path)
	if err != nil {
		return err.Error() + "\n"
	}
	defer f.Close()
	var ring []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		ring = append(ring, sc.Text())
		if len(ring) > n {
			ring = ring[1:]
		}
	}
	return strings.Join(ring, "\n") + "\n"
}

// SecondWorker is a second Connect cluster on the stack's broker: its own
// group and internal topics, its own REST port, the same plugins.
type SecondWorker struct {
	ConnectURL   string
	OffsetsTopic string
	ConfigTopic  string
	StatusTopic  string
	p            *process
}

// StartSecondWorker starts a second Connect worker group on the broker
// (group koff-interop-2, topics connect-2-offsets, -configs, -status), in
// a JVM of its own with a small heap, for a test that moves a connector
// from one Connect cluster to another. Stop it when the test is done.
func (s *Stack) StartSecondWorker(ctx context.Context) (*SecondWorker, error) {
	ports, err := FreePorts(1)
	if err != nil {
		return nil, err
	}
	w := &SecondWorker{ConnectURL: fmt.Sprintf("http://127.0.0.1:%d", ports[0]),
		OffsetsTopic: "connect-2-offsets", ConfigTopic: "connect-2-configs", StatusTopic: "connect-2-status"}
	props := []string{
		"bootstrap.servers=" + s.Bootstrap,
		"group.id=koff-interop-2",
		"key.converter=org.apache.kafka.connect.json.JsonConverter",
		"value.converter=org.apache.kafka.connect.json.JsonConverter",
		"key.converter.schemas.enable=false",
		"value.converter.schemas.enable=false",
		"offset.storage.topic=" + w.OffsetsTopic,
		"offset.storage.partitions=25",
		"offset.storage.replication.factor=1",
		"config.storage.topic=" + w.ConfigTopic,
		"config.storage.replication.factor=1",
		"status.storage.topic=" + w.StatusTopic,
		"status.storage.partitions=1",
		"status.storage.replication.factor=1",
		"offset.flush.interval.ms=2000",
		"connector.client.config.override.policy=All",
		"listeners=" + w.ConnectURL,
		"plugin.path=" + filepath.Join(s.Dir, "plugins"),
		"scheduled.rebalance.max.delay.ms=0",
	}
	config := filepath.Join(s.Dir, "worker-2.properties")
	if err := os.WriteFile(config, []byte(strings.Join(props, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	log := filepath.Join(s.Dir, "worker-2.log")
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	args := s.jvm("org.apache.kafka.connect.cli.ConnectDistributed", config)
	for i, a := range args {
		if a == "-Xmx512m" {
			args[i] = "-Xmx256m" // a second worker, for one test
		}
	}
	cmd := exec.Command(s.Java, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Dir = s.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start the second worker: %w", err)
	}
	w.p = &process{name: "worker-2", log: log, cmd: cmd, done: make(chan struct{})}
	go func() {
		w.p.err = cmd.Wait()
		f.Close()
		close(w.p.done)
	}()
	hc := &http.Client{Timeout: 5 * time.Second}
	if err := poll(ctx, "Connect worker "+w.ConnectURL, w.p, func() error {
		resp, err := hc.Get(w.ConnectURL + "/health")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/health: %s", resp.Status)
		}
		return nil
	}); err != nil {
		w.Stop()
		return nil, err
	}
	return w, nil
}

// Stop ends the second worker.
func (w *SecondWorker) Stop() { w.p.stop(15 * time.Second) }

// Log is the end of the second worker's log.
func (w *SecondWorker) Log(lines int) string { return tail(w.p.log, lines) }
