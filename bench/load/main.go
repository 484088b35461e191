// Command load writes a Connect offsets topic the way a Java worker writes
// it (see package workload), at benchmark sizes, into a 25-partition
// compacted topic.
//
//	go run ./bench/load -serve 127.0.0.1:19092 -workload debezium -records 1000000 -keys 7000
//	go run ./bench/load -b 127.0.0.1:9092 -workload mm2 -records 1000000 -keys 1000000
//	go run ./bench/load -serve 127.0.0.1:19092 -records 600000 -flush 1s   # debezium-00 goes on committing
//
// With -serve it starts an embedded kfake broker, loads it, prints
// "ready ADDR" and serves until stdin closes or SIGINT; with -b it loads
// an existing broker (a real Apache Kafka) and exits.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"koff/bench/workload"
	"koff/demo"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		serve      = flag.String("serve", "", "start an embedded kfake broker listening here, load it and serve until stdin closes")
		bootstrap  = flag.String("b", "", "load an existing broker instead")
		topic      = flag.String("topic", "connect-offsets", "offsets topic")
		partitions = flag.Int("partitions", 25, "partitions of the offsets topic (Connect's default is 25)")
		kind       = flag.String("workload", "debezium", "debezium (few keys, big LSN offsets) or mm2 (MirrorMaker partitions, {\"offset\":N})")
		records    = flag.Int("records", 1_000_000, "records to write")
		keys       = flag.Int("keys", 7_000, "distinct source partitions")
		connectors = flag.Int("connectors", 70, "connectors the keys are spread over")
		configs    = flag.String("config", "", "extra topic configs, k=v,k=v")
		sinkParts  = flag.Int("sink-partitions", 0, "also make sink connector bench-sink: group connect-bench-sink committed on every partition of a topic bench-sink-topic of this many partitions")
		mm2Source  = flag.String("mm2-source", "", "with -workload mm2: also write each connector's config (MirrorSourceConnector) into connect-configs, its source cluster at this address (\"self\": the broker loaded)")
		flush      = flag.Duration("flush", 0, "with -serve: write an offset of each of the first connector's partitions this often, as its worker's flush does (0: never)")
	)
	flag.Parse()
	if (*serve == "") == (*bootstrap == "") {
		return fmt.Errorf("give one of -serve ADDR or -b ADDR")
	}
	if *records < *keys {
		return fmt.Errorf("need records >= keys")
	}
	addr := *bootstrap
	var broker *demo.Broker
	if *serve != "" {
		var err error
		if broker, err = demo.StartBroker(*serve); err != nil {
			return err
		}
		defer broker.Close()
		addr = broker.Bootstrap()
	}
	cfg := map[string]string{"cleanup.policy": "compact"}
	for _, kv := range strings.Split(*configs, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			cfg[k] = v
		}
	}
	w := workload.Spec{Kind: *kind, Keys: *keys, Connectors: *connectors}
	if err := w.Validate(); err != nil {
		return err
	}
	start := time.Now()
	if err := workload.CreateTopic(addr, *topic, *partitions, cfg); err != nil {
		return err
	}
	if err := workload.Load(addr, *topic, *partitions, *records, w); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "load: %d records, %d keys (%s) into %s/%s in %s\n", *records, *keys, w.Kind, addr, *topic, time.Since(start).Round(time.Millisecond))
	if *sinkParts > 0 {
		start = time.Now()
		if err := workload.LoadSink(addr, "bench-sink", "bench-sink-topic", *sinkParts); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "load: group connect-bench-sink committed on %d partitions in %s\n", *sinkParts, time.Since(start).Round(time.Millisecond))
	}
	if *mm2Source != "" {
		src := *mm2Source
		if src == "self" {
			src = addr
		}
		if err := workload.MirrorConfigs(addr, "connect-configs", src, w); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "load: %d MirrorSourceConnector configs, source cluster %s\n", w.Connectors, src)
	}
	if broker == nil {
		return nil
	}
	fmt.Printf("ready %s\n", addr)
	done := make(chan struct{})
	if *flush > 0 {
		go func() {
			t := time.NewTicker(*flush)
			defer t.Stop()
			for n := (*records + *keys - 1) / *keys; ; n++ {
				select {
				case <-done:
					return
				case <-t.C:
				}
				if err := workload.Flush(addr, *topic, *partitions, 0, n, w); err != nil {
					fmt.Fprintln(os.Stderr, "load: flush:", err)
				}
			}
		}()
	}
	// Serve until stdin closes (the script's pipe) or a signal.
	go func() { io.Copy(io.Discard, bufio.NewReader(os.Stdin)); close(done) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	select {
	case <-done:
	case <-sig:
	}
	return nil
}
