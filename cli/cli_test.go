package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/demo"
	"koff/model/java"
)

// koff runs the command line in-process and returns stdout, stderr and the exit code.
func koff(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	return out.String(), errb.String(), code
}

func broker(t *testing.T) *demo.Broker {
	t.Helper()
	b, err := demo.StartBroker("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// produceConnect writes offset records the way a worker does: each key to
// its murmur2 partition of 25.
func produceConnect(t *testing.T, addr string, recs ...[2]string) {
	t.Helper()
	produceConnectTo(t, addr, "connect-offsets", recs...)
}

// produceConnectTo is produceConnect into another offsets topic of 25
// partitions (a connector's own offsets.storage.topic).
func produceConnectTo(t *testing.T, addr, topic string, recs ...[2]string) {
	t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 10 * time.Second}
	for _, r := range recs {
		rec := kafkago.Record{Key: kafkago.NewBytes([]byte(r[0])), Time: time.Now()}
		if r[1] != "" {
			rec.Value = kafkago.NewBytes([]byte(r[1]))
		}
		res, err := c.Produce(context.Background(), &kafkago.ProduceRequest{
			Topic: topic, Partition: java.PartitionFor([]byte(r[0]), 25),
			RequiredAcks: kafkago.RequireAll, Records: kafkago.NewRecordReader(rec),
		})
		if err == nil {
			err = res.Error
		}
		if err != nil {
			t.Fatalf("produce %s: %v", r[0], err)
		}
	}
}

func offsetsBroker(t *testing.T) string {
	b := broker(t)
	if err := b.CreateTopic("connect-offsets", 25, map[string]string{"cleanup.policy": "compact"}); err != nil {
		t.Fatal(err)
	}
	return b.Bootstrap()
}

func TestUsageErrorsExit2WithOneLine(t *testing.T) {
	cases := [][]string{
		{"frobnicate"},
		{"get", "--no-such-flag"},
		{"get", "-b", "127.0.0.1:1", "-o", "yaml"},
		{"get"}, // no bootstrap servers
		{"tail", "-b", "127.0.0.1:1", "-o", "xml"},
		{"--refresh", "0s", "get", "-b", "x:1"},
		{"version", "extra"},
	}
	for _, args := range cases {
		out, errs, code := koff(t, args...)
		if code != ExitUsage {
			t.Errorf("koff %v: exit %d, want 2 (stderr %q)", args, code, errs)
		}
		if out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "koff: ") {
			t.Errorf("koff %v: want one line on stderr and nothing on stdout, got out=%q err=%q", args, out, errs)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	out, _, code := koff(t, "--help")
	if code != 0 || !strings.Contains(out, "demo-cluster") || !strings.Contains(out, "--bootstrap-server") {
		t.Errorf("--help: exit %d, output %q", code, out)
	}
	out, _, code = koff(t, "get", "--help")
	if code != 0 || !strings.Contains(out, "Usage: koff get") || !strings.Contains(out, "--output") {
		t.Errorf("get --help: exit %d, output %q", code, out)
	}
	out, _, code = koff(t, "version")
	if code != 0 || !strings.HasPrefix(out, "koff ") {
		t.Errorf("version: exit %d, output %q", code, out)
	}
}

func TestGetFailsFastOnUnreachableBroker(t *testing.T) {
	start := time.Now()
	_, errs, code := koff(t, "get", "-b", "127.0.0.1:1")
	if code != ExitFailed || !strings.Contains(errs, "cannot read from Kafka at 127.0.0.1:1") || !strings.Contains(errs, "connection refused") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if strings.Count(errs, "\n") != 1 {
		t.Errorf("want one line, got %q", errs)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("took %s to give up", d)
	}
}

func TestGetReportsMissingTopic(t *testing.T) {
	addr := broker(t).Bootstrap()
	_, errs, code := koff(t, "get", "-b", addr, "--offsets-topic", "my-offsets")
	if code != ExitFailed || errs != fmt.Sprintf("koff: offsets topic my-offsets does not exist on %s\n", addr) {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

func TestGetPrintsConnectsOffsetsBody(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr,
		[2]string{`["inventory-connector",{"server":"dbserver1"}]`, `{"lsn":9223372036854775807,"txId":9007199254740993}`},
		[2]string{`["file-src",{"filename":"/var/log/a.log"}]`, `{"position":1}`},
		[2]string{`["file-src",{"filename":"/var/log/a.log"}]`, `{"position":2}`},
		[2]string{`["file-src",{"filename":"/var/log/b.log"}]`, `{"position":7}`},
		[2]string{`["file-src",{"filename":"/var/log/b.log"}]`, ``}, // reset
	)
	out, errs, code := koff(t, "get", "-b", addr, "inventory-connector", "-o", "json")
	want := `{"offsets":[{"partition":{"server":"dbserver1"},"offset":{"lsn":9223372036854775807,"txId":9007199254740993}}]}` + "\n"
	if code != 0 || out != want {
		t.Errorf("exit %d (%s)\n got %s\nwant %s", code, errs, out, want)
	}
	out, _, _ = koff(t, "get", "-b", addr, "-o", "json")
	want = `{"file-src":{"offsets":[{"partition":{"filename":"/var/log/a.log"},"offset":{"position":2}}]},` +
		`"inventory-connector":{"offsets":[{"partition":{"server":"dbserver1"},"offset":{"lsn":9223372036854775807,"txId":9007199254740993}}]}}` + "\n"
	if out != want {
		t.Errorf("all connectors\n got %s\nwant %s", out, want)
	}
	out, _, _ = koff(t, "get", "-b", addr, "file-src", "--deleted")
	if !strings.Contains(out, `{"filename":"/var/log/b.log"}  (deleted)`) || !strings.Contains(out, `{"position":2}`) {
		t.Errorf("table:\n%s", out)
	}
	_, errs, code = koff(t, "get", "-b", addr, "nosuch")
	if code != ExitFailed || !strings.Contains(errs, "unknown connector nosuch: no offsets in connect-offsets") {
		t.Errorf("unknown connector: exit %d, %q", code, errs)
	}
}

// needTool skips when an outside program is missing, except under CI=true,
// where .ci/run installs it and its absence is a failure.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required under CI=true: %v", name, err)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

// Records produced by kcat with Java's partitioner (as a worker writes
// them) read back exactly, including integers above 2^53.
func TestGetReadsWhatKcatWrote(t *testing.T) {
	kcat := needTool(t, "kcat")
	addr := offsetsBroker(t)
	input := `["jdbc-src",{"protocol":"1","table":"shop.public.orders"}]|{"incrementing":9007199254740993}
["jdbc-src",{"protocol":"1","table":"shop.public.customers"}]|{"incrementing":18446744073709551615}
["inventory-connector",{"server":"dbserver1"}]|{"lsn":1152921504606846977,"ts_usec":1700000000000000}
`
	cmd := exec.Command(kcat, "-P", "-b", addr, "-t", "connect-offsets", "-K", "|", "-X", "topic.partitioner=murmur2_random")
	cmd.Stdin = strings.NewReader(input)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kcat: %v\n%s", err, out)
	}
	out, errs, code := koff(t, "get", "-b", addr, "-o", "json")
	want := `{"inventory-connector":{"offsets":[{"partition":{"server":"dbserver1"},"offset":{"lsn":1152921504606846977,"ts_usec":1700000000000000}}]},` +
		`"jdbc-src":{"offsets":[{"partition":{"protocol":"1","table":"shop.public.customers"},"offset":{"incrementing":18446744073709551615}},` +
		`{"partition":{"protocol":"1","table":"shop.public.orders"},"offset":{"incrementing":9007199254740993}}]}}` + "\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d (%s)\n got %s\nwant %s", code, errs, out, want)
	}
	// kcat's murmur2_random is Java's partitioner: nothing is misplaced.
	table, _, _ := koff(t, "get", "-b", addr)
	if strings.Contains(table, "misplaced") || strings.Contains(table, "duplicate") {
		t.Errorf("keys written with murmur2 flagged as suspect:\n%s", table)
	}
	// And kcat's default partitioner is not: koff flags it.
	cmd = exec.Command(kcat, "-P", "-b", addr, "-t", "connect-offsets", "-K", "|", "-p", "0")
	cmd.Stdin = strings.NewReader(`["inventory-connector",{"server":"dbserver1"}]|{"lsn":1}` + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kcat: %v\n%s", err, out)
	}
	table, _, _ = koff(t, "get", "-b", addr, "inventory-connector")
	if !strings.Contains(table, "connect-offsets/0") || !strings.Contains(table, "duplicate,misplaced") {
		t.Errorf("a copy in the wrong partition is not flagged:\n%s", table)
	}
}

// syncBuffer is a bytes.Buffer safe to read while a command writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestTailPrintsLiveChanges(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["file-src",{"filename":"/a"}]`, `{"position":1}`})
	for _, format := range []string{"text", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			var out, errb syncBuffer
			done := make(chan int)
			go func() {
				done <- Main([]string{"tail", "-b", addr, "-o", format, "file-src"}, Env{Context: ctx, Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
			}()
			// Records already in the topic are not printed; new ones are.
			time.Sleep(time.Second)
			produceConnect(t, addr,
				[2]string{`["other",{"x":"y"}]`, `{"o":1}`},
				[2]string{`["file-src",{"filename":"/a"}]`, `{"position":9007199254740993}`},
				[2]string{`["file-src",{"filename":"/a"}]`, ``})
			deadline := time.Now().Add(10 * time.Second)
			for strings.Count(out.String(), "\n") < 2 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			cancel()
			if code := <-done; code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != 2 {
				t.Fatalf("want 2 changes of file-src, got %q", out.String())
			}
			p := java.PartitionFor([]byte(`["file-src",{"filename":"/a"}]`), 25)
			if format == "text" {
				if !strings.Contains(lines[0], `  file-src  {"filename":"/a"}  {"position":9007199254740993}  connect-offsets/`+fmt.Sprint(p)+"@") ||
					!strings.Contains(lines[1], `  file-src  {"filename":"/a"}  deleted  connect-offsets/`) {
					t.Errorf("text lines:\n%s", out.String())
				}
			} else {
				want0 := fmt.Sprintf(`"connector":"file-src","partition":{"filename":"/a"},"offset":{"position":9007199254740993},"topic":"connect-offsets","topic_partition":%d,"record_offset":`, p)
				if !strings.HasPrefix(lines[0], `{"time":"`) || !strings.Contains(lines[0], want0) || !strings.Contains(lines[1], `"offset":null`) {
					t.Errorf("jsonl lines:\n%s", out.String())
				}
			}
		})
	}
}
