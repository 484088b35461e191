package cli

import (
	"context"
	"fmt"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"koff/demo"
)

type demoClusterOptions struct {
	kafkaListen   string
	connectListen string
	stallAfter    time.Duration
}

func init() {
	register(&command{
		name:    "demo-cluster",
		args:    "[--kafka-listen ADDR] [--connect-listen ADDR]",
		summary: "run the embedded demo Kafka cluster and simulated Connect workers, headless, until interrupted",
		flags: func(fs *pflag.FlagSet) any {
			o := &demoClusterOptions{}
			fs.StringVar(&o.kafkaListen, "kafka-listen", "127.0.0.1:9092", "address the embedded broker listens on")
			fs.StringVar(&o.connectListen, "connect-listen", "127.0.0.1:8083", "address the Connect REST emulator listens on (empty: none)")
			fs.DurationVar(&o.stallAfter, "stall-after", time.Minute, "when the jdbc-legacy connector stops flushing")
			return o
		},
		run: runDemoCluster,
	})
}

func runDemoCluster(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*demoClusterOptions)
	if len(args) > 0 {
		return usagef("demo-cluster takes no arguments, got %q", args[0])
	}
	ctx, stop := signal.NotifyContext(env.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	c, err := startDemo(ctx, g, o.kafkaListen, o.connectListen, o.stallAfter)
	if err != nil {
		return err
	}
	defer c.Close()
	flush := g.FlushInterval
	if flush == 0 {
		flush = demoFlushInterval
	}
	var b strings.Builder
	fmt.Fprintf(&b, "koff demo cluster\n  kafka:       %s\n", c.Bootstrap())
	if u := c.ConnectURL(); u != "" {
		fmt.Fprintf(&b, "  connect:     %s (REST emulator)\n", u)
	}
	fmt.Fprintf(&b, "  offsets:     %s (25 partitions, compacted)\n  connectors:  %s\n  flush:       every %s\n\n", c.OffsetsTopic(), strings.Join(c.Connectors(), ", "), flush)
	connectFlag := ""
	if u := c.ConnectURL(); u != "" {
		connectFlag = " --connect-url " + u
	}
	fmt.Fprintf(&b, "try:  koff -b %s%s\n      koff get -b %s -o json\n      kcat -b %s -C -t %s -f '%%p %%k %%s\\n' -e\n\nPress Ctrl+C to stop.\n",
		c.Bootstrap(), connectFlag, c.Bootstrap(), c.Bootstrap(), c.OffsetsTopic())
	fmt.Fprint(env.Stdout, b.String())
	<-ctx.Done()
	return nil
}

const demoFlushInterval = 5 * time.Second

func startDemo(ctx context.Context, g *Globals, listen, connectListen string, stallAfter time.Duration) (*demo.Cluster, error) {
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := demo.Start(sctx, demo.Options{
		KafkaListen:   listen,
		ConnectListen: connectListen,
		FlushInterval: g.FlushInterval,
		StallAfter:    stallAfter,
		Logf:          g.logf,
	})
	if err != nil {
		return nil, fmt.Errorf("start demo cluster: %w", err)
	}
	return c, nil
}
