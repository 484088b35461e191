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
	secondConnect string // a second Connect cluster's REST address; "" = none
	// Connector classes the second Connect cluster's workers lack.
	secondWithout []string
	stallAfter    time.Duration
	sasl          string // mechanism; "" = no SASL
	saslUser      string
	tlsDir        string
	tlsClientAuth bool
	fs            *pflag.FlagSet // to refuse client-only security flags
}

func init() {
	register(&command{
		name:    "demo-cluster",
		args:    "[--kafka-listen ADDR] [--connect-listen ADDR] [--second-connect-listen ADDR [--second-connect-without CLASS]] [--sasl MECH --sasl-user U --sasl-password-file F] [--tls-dir DIR [--tls-client-auth]]",
		summary: "run the embedded demo Kafka cluster and simulated Connect workers, headless, until interrupted",
		flags: func(fs *pflag.FlagSet) any {
			o := &demoClusterOptions{fs: fs}
			fs.StringVar(&o.kafkaListen, "kafka-listen", "127.0.0.1:9092", "address the embedded broker listens on")
			fs.StringVar(&o.connectListen, "connect-listen", "127.0.0.1:8083", "address the Connect REST emulator listens on (empty: none)")
			fs.StringVar(&o.secondConnect, "second-connect-listen", "", "also run a second Connect cluster on the same broker (group "+demo.SecondGroup+", its own offsets, config and status topics, no connectors) with its REST emulator here, e.g. 127.0.0.1:8084")
			// The shorter name reads as the flag's purpose; help shows one.
			fs.StringVar(&o.secondConnect, "second-connect", "", "the same as --second-connect-listen")
			_ = fs.MarkHidden("second-connect")
			fs.StringArrayVar(&o.secondWithout, "second-connect-without", nil, "a connector class the second Connect cluster's workers lack (repeatable): GET /connector-plugins does not list it, so a move of such a connector there is refused")
			fs.DurationVar(&o.stallAfter, "stall-after", time.Minute, "when the jdbc-legacy connector stops flushing")
			fs.StringVar(&o.sasl, "sasl", "", "require SASL on the broker: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (password from --sasl-password-file or env KOFF_SASL_PASSWORD)")
			fs.StringVar(&o.saslUser, "sasl-user", "koff", "the SASL user the broker accepts (a superuser)")
			fs.StringVar(&o.tlsDir, "tls-dir", "", "serve Kafka and the REST emulator over TLS with a CA and certificates made in DIR (ca.pem, server.pem, client.pem; kept if already there)")
			fs.BoolVar(&o.tlsClientAuth, "tls-client-auth", false, "with --tls-dir, require client certificates (client.pem) on Kafka and REST")
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
	if o.stallAfter < 0 {
		return usagef("--stall-after must not be negative, got %s", o.stallAfter)
	}
	if len(o.secondWithout) > 0 && o.secondConnect == "" {
		return usagef("--second-connect-without needs --second-connect-listen")
	}
	sec, err := o.security(g)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(env.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	c, err := startDemoWith(ctx, g, demo.Options{
		KafkaListen: o.kafkaListen, ConnectListen: o.connectListen, StallAfter: o.stallAfter,
		SASL: sec.sasl, TLSDir: o.tlsDir, TLSClientAuth: o.tlsClientAuth, ConnectAuth: sec.rest,
	})
	if err != nil {
		return err
	}
	defer c.Close()
	var second *demo.Cluster
	if o.secondConnect != "" {
		if c.ConnectURL() == "" {
			return usagef("--second-connect-listen needs the first cluster's --connect-listen")
		}
		if second, err = c.StartSecondConnect(o.secondConnect, o.secondWithout...); err != nil {
			return fmt.Errorf("start the second Connect cluster: %w", err)
		}
	}
	fmt.Fprint(env.Stdout, demoBanner(g, c, second, sec))
	<-ctx.Done()
	return nil
}

const demoFlushInterval = 5 * time.Second

func startDemo(ctx context.Context, g *Globals, listen, connectListen string, stallAfter time.Duration) (*demo.Cluster, error) {
	return startDemoWith(ctx, g, demo.Options{KafkaListen: listen, ConnectListen: connectListen, StallAfter: stallAfter})
}

func startDemoWith(ctx context.Context, g *Globals, o demo.Options) (*demo.Cluster, error) {
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	o.FlushInterval, o.Logf = g.FlushInterval, g.logf
	c, err := demo.Start(sctx, o)
	if err != nil {
		return nil, fmt.Errorf("start demo cluster: %w", err)
	}
	return c, nil
}

// demoBanner says where everything is and how to connect koff and kcat,
// naming the password file (never the password).
func demoBanner(g *Globals, c, second *demo.Cluster, sec demoSecurity) string {
	flush := g.FlushInterval
	if flush == 0 {
		flush = demoFlushInterval
	}
	var b strings.Builder
	fmt.Fprintf(&b, "koff demo cluster\n  kafka:       %s", c.Bootstrap())
	if sec.desc != "" {
		fmt.Fprintf(&b, " (%s)", sec.desc)
	}
	b.WriteString("\n")
	if u := c.ConnectURL(); u != "" {
		fmt.Fprintf(&b, "  connect:     %s (REST emulator%s)\n", u, sec.restDesc)
	}
	if second != nil {
		fmt.Fprintf(&b, "  connect 2:   %s (REST emulator of a second Connect cluster, group %s: offsets %s, configs %s, status %s)\n",
			second.ConnectURL(), demo.SecondGroup, second.OffsetsTopic(), second.ConfigTopic(), demo.SecondStatusTopic)
		if w := second.Without(); len(w) > 0 {
			fmt.Fprintf(&b, "               its workers lack %s\n", strings.Join(w, ", "))
		}
	}
	if f := c.TLS(); f != nil {
		fmt.Fprintf(&b, "  tls:         %s (ca.pem, server.pem, client.pem)\n", f.Dir)
	}
	fmt.Fprintf(&b, "  offsets:     %s (25 partitions, compacted)\n  connectors:  %s\n  flush:       every %s\n\n", c.OffsetsTopic(), strings.Join(c.Connectors(), ", "), intervalText(flush))
	flags := strings.Join(append(sec.koffFlags(), sec.connectFlags(c.ConnectURL())...), " ")
	if flags != "" {
		flags = " " + flags
	}
	kcat := strings.Join(sec.kcatFlags(), " ")
	if kcat != "" {
		kcat = " " + kcat
	}
	fmt.Fprintf(&b, "try:  koff -b %s%s\n      koff get -b %s%s -o json\n      kcat -b %s%s -C -t %s -f '%%p %%k %%s\\n' -e\n",
		c.Bootstrap(), flags, c.Bootstrap(), flags, c.Bootstrap(), kcat, c.OffsetsTopic())
	if second != nil {
		flags2 := strings.Join(append(sec.koffFlags(), sec.connectFlags(second.ConnectURL())...), " ")
		fmt.Fprintf(&b, "      koff -b %s %s --offsets-topic %s --config-topic %s\n", c.Bootstrap(), flags2, second.OffsetsTopic(), second.ConfigTopic())
	}
	b.WriteString("\nPress Ctrl+C to stop.\n")
	return b.String()
}

// useDemo starts the embedded demo cluster (free loopback ports) and points
// this run at it: for `koff --demo` and `koff serve --demo`.
func (g *Globals) useDemo(ctx context.Context) (func(), error) {
	c, err := startDemo(ctx, g, "127.0.0.1:0", "127.0.0.1:0", time.Minute)
	if err != nil {
		return nil, err
	}
	g.Bootstrap = []string{c.Bootstrap()}
	g.OffsetsTopics = []string{c.OffsetsTopic()}
	g.ConnectURL = c.ConnectURL()
	return c.Close, nil
}
