package cli

import (
	"cmp"
	"context"
	"io"
	"os"
	"strconv"
	"testing"

	"koff/bench/workload"
	"koff/demo"
)

// BenchmarkGetJSON runs `koff get -o json` end to end (tail to the end,
// model, print) against an offsets topic written as a Java worker writes
// it. KOFF_BENCH_BOOTSTRAP points it at a loaded broker (then the profile
// holds koff alone, not the embedded broker); otherwise it loads
// KOFF_BENCH_RECORDS records of KOFF_BENCH_KEYS keys (default 50,000 of
// 7,000 Debezium-shaped keys) into an embedded broker first.
// KOFF_BENCH_TOPIC names the offsets topic (compare.sh's
// bench-KIND-RECORDS-KEYS on a real broker).
//
//	go run ./bench/load -serve 127.0.0.1:0 -records 1000000 -keys 7000   # prints: ready ADDR
//	KOFF_BENCH_BOOTSTRAP=ADDR go test ./cli -run XXX -bench GetJSON -benchtime 3x -cpuprofile cpu.out -memprofile mem.out
func BenchmarkGetJSON(b *testing.B) { benchmarkGet(b, "-o", "json") }

// BenchmarkGetTable is BenchmarkGetJSON for the table koff get prints.
func BenchmarkGetTable(b *testing.B) { benchmarkGet(b) }

func benchmarkGet(b *testing.B, flags ...string) {
	addr := os.Getenv("KOFF_BENCH_BOOTSTRAP")
	topic := cmp.Or(os.Getenv("KOFF_BENCH_TOPIC"), "connect-offsets")
	if addr == "" {
		records, keys := envInt("KOFF_BENCH_RECORDS", 50_000), envInt("KOFF_BENCH_KEYS", 7_000)
		br, err := demo.StartBroker("")
		if err != nil {
			b.Fatal(err)
		}
		defer br.Close()
		addr = br.Bootstrap()
		w := workload.Spec{Kind: "debezium", Keys: keys, Connectors: 70}
		if err := workload.CreateTopic(addr, "connect-offsets", 25, nil); err != nil {
			b.Fatal(err)
		}
		if err := workload.Load(addr, "connect-offsets", 25, records, w); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		code := Main(append([]string{"get", "-b", addr, "--offsets-topic", topic}, flags...), Env{Context: context.Background(), Stdout: io.Discard, Stderr: os.Stderr,
			Getenv: func(string) string { return "" }})
		if code != 0 {
			b.Fatalf("koff get: exit %d", code)
		}
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
