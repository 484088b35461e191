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
	kafkaListen string
	stallAfter  time.Duration
}

func init() {
	register(&command{
		name:    "demo-cluster",
		args:    "[--kafka-listen ADDR]",
		summary: "run the embedded demo Kafka cluster and simulated Connect workers, headless, until interrupted",
		flags: func(fs *pflag.FlagSet) any {
			o := &demoClusterOptions{}
			fs.StringVar(&o.kafkaListen, "kafka-listen", "127.0.0.1:9092", "address the embedded broker listens on")
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
	c, err := startDemo(ctx, g, o.kafkaListen, o.stallAfter)
	if err != nil {
		return err
	}
	defer c.Close()
	flush := g.FlushInterval
	if flush == 0 {
		flush = demoFlushInterval
	}
	fmt.Fprintf(env.Stdout, "koff demo cluster\n  kafka:       %s\n  offsets:     %s (25 partitions, compacted)\n  connectors:  %s\n  flush:       every %s\n\ntry:  koff -b %s\n      koff get -b %s -o json\n      kcat -b %s -C -t %s -f '%%p %%k %%s\\n' -e\n\nPress Ctrl+C to stop.\n",
		c.Bootstrap(), c.OffsetsTopic(), strings.Join(c.Connectors(), ", "), flush,
		c.Bootstrap(), c.Bootstrap(), c.Bootstrap(), c.OffsetsTopic())
	<-ctx.Done()
	return nil
}

const demoFlushInterval = 5 * time.Second

func startDemo(ctx context.Context, g *Globals, listen string, stallAfter time.Duration) (*demo.Cluster, error) {
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := demo.Start(sctx, demo.Options{
		KafkaListen:   listen,
		FlushInterval: g.FlushInterval,
		StallAfter:    stallAfter,
		Logf:          g.logf,
	})
	if err != nil {
		return nil, fmt.Errorf("start demo cluster: %w", err)
	}
	return c, nil
}
