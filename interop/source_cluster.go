package interop

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/segmentio/kafka-go"
)

// SourceCluster is a second Apache Kafka broker, apart from the stack's:
// one KRaft node with a PLAINTEXT listener, its own ports, log directory
// and cluster id, a small heap. MirrorMaker 2 copies from it into the
// stack's broker, as it copies from a primary data centre.
type SourceCluster struct {
	Dir       string
	Bootstrap string
	proc      *process
}

// StartSourceCluster formats and starts the second broker beside the
// stack, on the stack's classpath, and waits until it answers. Stop (or
// the stack's Stop) ends it.
func (s *Stack) StartSourceCluster(ctx context.Context) (c *SourceCluster, err error) {
	c = &SourceCluster{Dir: filepath.Join(s.Dir, "source-cluster")}
	if err := os.MkdirAll(filepath.Join(c.Dir, "data"), 0o755); err != nil {
		return nil, err
	}
	ports, err := FreePorts(2)
	if err != nil {
		return nil, err
	}
	c.Bootstrap = fmt.Sprintf("127.0.0.1:%d", ports[0])
	config := filepath.Join(c.Dir, "server.properties")
	server := []string{
		"process.roles=broker,controller",
		"node.id=1",
		fmt.Sprintf("controller.quorum.voters=1@127.0.0.1:%d", ports[1]),
		fmt.Sprintf("listeners=PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", ports[0], ports[1]),
		"advertised.listeners=PLAINTEXT://" + c.Bootstrap,
		"controller.listener.names=CONTROLLER",
		"inter.broker.listener.name=PLAINTEXT",
		"listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"log.dirs=" + filepath.Join(c.Dir, "data"),
		"num.partitions=1",
		"auto.create.topics.enable=false",
		"offsets.topic.replication.factor=1",
		"offsets.topic.num.partitions=1",
		"transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1",
		"transaction.state.log.num.partitions=1",
		"group.initial.rebalance.delay.ms=0",
		"log.cleaner.enable=false",
		"num.network.threads=1",
		"num.io.threads=1",
		"num.recovery.threads.per.data.dir=1",
		"background.threads=2",
	}
	if err := os.WriteFile(config, []byte(strings.Join(server, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	// A smaller JVM than the stack's: it holds a few test topics.
	jvm := func(main string, args ...string) []string {
		a := []string{"-Xms32m", "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1",
			"-Djava.awt.headless=true", "-Dlog4j2.configurationFile=" + filepath.Join(s.Dir, "log4j2.properties"),
			"-cp", s.Classpath, main}
		return append(a, args...)
	}
	out, err := s.Tool(ctx, jvm("kafka.tools.StorageTool", "format", "--config", config,
		"--cluster-id", "a2FmLWludGVyb3Atc3JjMQ", "--ignore-formatted")...)
	if err != nil {
		return nil, fmt.Errorf("kafka-storage format (source cluster): %v\n%s", err, out)
	}
	log := filepath.Join(c.Dir, "broker.log")
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(s.Java, jvm("kafka.Kafka", config)...)
	cmd.Stdout, cmd.Stderr, cmd.Dir = f, f, c.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start the source cluster's broker: %w", err)
	}
	c.proc = &process{name: "source-cluster broker", log: log, cmd: cmd, done: make(chan struct{})}
	go func() {
		c.proc.err = cmd.Wait()
		f.Close()
		close(c.proc.done)
	}()
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	err = poll(ctx, "source cluster broker "+c.Bootstrap, c.proc, func() error {
		tr := &kafka.Transport{}
		defer tr.CloseIdleConnections()
		cl := &kafka.Client{Addr: kafka.TCP(c.Bootstrap), Timeout: 5 * time.Second, Transport: tr}
		m, err := cl.Metadata(ctx, &kafka.MetadataRequest{})
		if err != nil {
			return err
		}
		if m.Controller.ID < 0 || len(m.Brokers) == 0 {
			return fmt.Errorf("no controller yet")
		}
		return nil
	})
	return c, err
}

// Stop ends the source cluster's broker.
func (c *SourceCluster) Stop() {
	if c != nil && c.proc != nil {
		c.proc.stop(15 * time.Second)
	}
}

// Log is the end of the source cluster broker's log.
func (c *SourceCluster) Log(lines int) string { return tail(c.proc.log, lines) }
