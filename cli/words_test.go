package cli

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/spf13/pflag"

	"koff/kafka"
	"koff/model"
	"koff/model/java"
)

func TestAgeTextIsTwoHumanUnits(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{-2 * time.Second, "0s"},
		{0, "0s"},
		{900 * time.Millisecond, "0s"},
		{3 * time.Second, "3s"},
		{59 * time.Second, "59s"},
		{62 * time.Second, "1m 2s"},
		{time.Hour, "1h"},
		{2*time.Hour + 5*time.Minute + 9*time.Second, "2h 5m"},
		{777952 * time.Second, "9d"},
		{9*24*time.Hour + 2*time.Hour + 3*time.Minute, "9d 2h"},
	} {
		if got := ageText(tt.d); got != tt.want {
			t.Errorf("ageText(%s) = %q, want %q", tt.d, got, tt.want)
		}
	}
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{5 * time.Second, "5s"},
		{5300 * time.Millisecond, "5.3s"},
		{40 * time.Second, "40s"},
		{90 * time.Second, "1m 30s"},
	} {
		if got := intervalText(tt.d); got != tt.want {
			t.Errorf("intervalText(%s) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// produceAt writes one offset record with the given CreateTime.
func produceAt(t *testing.T, addr, key, value string, at time.Time) {
	t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 10 * time.Second}
	res, err := c.Produce(context.Background(), &kafkago.ProduceRequest{
		Topic: "connect-offsets", Partition: java.PartitionFor([]byte(key), 25), RequiredAcks: kafkago.RequireAll,
		Records: kafkago.NewRecordReader(kafkago.Record{Key: kafkago.NewBytes([]byte(key)), Value: kafkago.NewBytes([]byte(value)), Time: at}),
	})
	if err == nil {
		err = res.Error
	}
	if err != nil {
		t.Fatal(err)
	}
}

// koff status shows ages in human units in its table, and seconds in -o json.
func TestStatusPrintsAgesInHumanUnitsAndJSONInSeconds(t *testing.T) {
	addr := offsetsBroker(t)
	old := time.Now().Add(-(9*24*time.Hour + 2*time.Hour + 10*time.Minute))
	produceAt(t, addr, `["jdbc-old",{"table":"a"}]`, `{"incrementing":1}`, old)
	produceAt(t, addr, `["jdbc-old",{"table":"b"}]`, `{"incrementing":2}`, old.Add(40*time.Second))

	// Nine days without a flush and no state to say why: unknown, exit 4.
	out, errs, code := koff(t, "status", "-b", addr)
	if code != ExitFlushUnknown {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "AGE") {
		t.Fatalf("status table:\n%s", out)
	}
	if !strings.Contains(lines[1], "  9d 2h  ") {
		t.Errorf("age not shown as 9d 2h:\n%s", out)
	}
	if regexp.MustCompile(`\b\d{3,}s\b`).MatchString(out) {
		t.Errorf("raw seconds in the table:\n%s", out)
	}

	out, _, _ = koff(t, "status", "-b", addr, "-o", "json")
	var st struct {
		Connectors []statusJSON `json:"connectors"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || len(st.Connectors) != 1 || st.Connectors[0].Flush == nil || st.Connectors[0].Flush.AgeSeconds == nil {
		t.Fatalf("status -o json: %v\n%s", err, out)
	}
	want := time.Since(old.Add(40 * time.Second)).Seconds()
	if got := *st.Connectors[0].Flush.AgeSeconds; got < want-60 || got > want+60 {
		t.Errorf("age_seconds = %f, want about %f", got, want)
	}
}

// Every command's --help, and koff help, shows no made-up default and no
// "[=true|false]" on switches; koff help CMD prints what CMD --help does.
func TestHelpCommandAndFlagDefaults(t *testing.T) {
	top, _, code := koff(t, "--help")
	if h, _, c := koff(t, "help"); c != 0 || code != 0 || h != top {
		t.Errorf("koff help (exit %d) differs from koff --help (exit %d)", c, code)
	}
	for _, name := range commandOrder {
		want, _, code := koff(t, name, "--help")
		got, _, c := koff(t, "help", name)
		if code != 0 || c != 0 || got != want || !strings.HasPrefix(got, "Usage: koff "+name) {
			t.Errorf("koff help %s (exit %d):\n%s\nkoff %s --help (exit %d):\n%s", name, c, got, name, code, want)
		}
		for _, bad := range []string{"(default -1)", "[=true|false]", "0s)", "1m0s", "1h0m0s"} {
			if strings.Contains(got, bad) {
				t.Errorf("koff help %s shows %q:\n%s", name, bad, got)
			}
		}
	}
	if _, errs, code := koff(t, "help", "nosuch"); code != ExitUsage || errs != "koff: unknown command \"nosuch\" (koff help lists the commands)\n" {
		t.Errorf("koff help nosuch: exit %d %q", code, errs)
	}
	// A command's help lists the global flags it uses, not the others.
	tail, _, _ := koff(t, "help", "tail")
	if !strings.Contains(tail, "--bootstrap-server") || strings.Contains(tail, "--connect-url") || strings.Contains(tail, "--fps") {
		t.Errorf("koff help tail lists the wrong global flags:\n%s", tail)
	}
	// stop asks Kafka only its cluster id, for its audit line.
	stop, _, _ := koff(t, "help", "stop")
	if !strings.Contains(stop, "--connect-url") || !strings.Contains(stop, "--audit-log") || !strings.Contains(stop, "--bootstrap-server") ||
		strings.Contains(stop, "--offsets-topic") || strings.Contains(stop, "--fps") {
		t.Errorf("koff help stop lists the wrong global flags:\n%s", stop)
	}
	// --to-offset has no default, and a negative one is refused.
	if _, errs, code := koff(t, "set", "s", "-b", "127.0.0.1:1", "--to-offset", "-1"); code != ExitUsage || !strings.Contains(errs, "--to-offset must not be negative") {
		t.Errorf("--to-offset -1: exit %d %q", code, errs)
	}
}

func TestConnectURLWithoutSchemeIsRefusedClearly(t *testing.T) {
	for _, u := range []string{"127.0.0.1:8083", "connect:8083", "localhost"} {
		_, errs, code := koff(t, "get", "-b", "127.0.0.1:1", "--connect-url", u)
		want := "koff: --connect-url: " + u + " has no scheme; use http://" + u + " or https://" + u + "\n"
		if code != ExitUsage || errs != want {
			t.Errorf("--connect-url %s: exit %d %q, want %q", u, code, errs, want)
		}
	}
	// From the environment or a context, the message names where it came from.
	cfg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfg, "koff"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "koff", "config.yaml"), []byte("contexts:\n  prod:\n    connect-url: connect:8083\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"KOFF_CONNECT_URL": "127.0.0.1:8083", "XDG_CONFIG_HOME": cfg}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "-b", "127.0.0.1:1"}, "koff: KOFF_CONNECT_URL: 127.0.0.1:8083 has no scheme; use http://127.0.0.1:8083 or https://127.0.0.1:8083\n"},
		{[]string{"get", "-b", "127.0.0.1:1", "--context", "prod"}, "koff: connect-url of context prod in " + filepath.Join(cfg, "koff", "config.yaml") + ": connect:8083 has no scheme; use http://connect:8083 or https://connect:8083\n"},
	} {
		var out, errb strings.Builder
		code := Main(tt.args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
		if code != ExitUsage || errb.String() != tt.want {
			t.Errorf("koff %v: exit %d %q, want %q", tt.args, code, errb.String(), tt.want)
		}
	}
}

// A timeout says how long koff really waited.
func TestTimeoutSaysTheTimeWaited(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	_, errs, code := koff(t, "get", "-b", ln.Addr().String(), "--timeout", "1500ms")
	if code != ExitFailed || !regexp.MustCompile(`^koff: timed out after 1\.[5-9]s reading connect-offsets \(`).MatchString(errs) {
		t.Errorf("exit %d %q", code, errs)
	}
	// The Connect call is cut by get's own deadline: it says so, and how long.
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["a",{"f":"x"}]`, `{"p":1}`})
	_, errs, code = koff(t, "get", "-b", addr, "--connect-url", "http://"+ln.Addr().String(), "--timeout", "1s")
	if code != ExitFailed || !regexp.MustCompile(`^koff: timed out after 1(\.\d)?s: cannot reach Kafka Connect at http://\S+: no answer before the command's time limit\n$`).MatchString(errs) {
		t.Errorf("exit %d %q", code, errs)
	}
}

// tail NAME for a name with no offsets says so once, names the close
// match, and keeps waiting: the connector's first offsets still print.
func TestTailSaysOnceThatANameHasNoOffsets(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["jdbc-shop",{"table":"a"}]`, `{"incrementing":1}`})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- Main([]string{"tail", "-b", addr, "jdbc-shopp"}, Env{Context: ctx, Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for errb.String() == "" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	produceConnect(t, addr, [2]string{`["jdbc-shopp",{"table":"a"}]`, `{"incrementing":7}`})
	for !strings.Contains(out.String(), `{"incrementing":7}`) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := "koff: connector jdbc-shopp has no offsets in connect-offsets yet (did you mean jdbc-shop?); waiting for them\n"
	if errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
	if !strings.Contains(out.String(), `jdbc-shopp  {"table":"a"}  {"incrementing":7}`) {
		t.Errorf("the connector's first offset was not printed: %q", out.String())
	}
}

// import --dry-run lists the partitions that change and counts the rest.
func TestImportListsOnlyWhatChanges(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr,
		[2]string{`["files",{"filename":"/a"}]`, `{"position":1}`},
		[2]string{`["files",{"filename":"/b"}]`, `{"position":2}`},
		[2]string{`["files",{"filename":"/c"}]`, `{"position":3}`})
	file := filepath.Join(t.TempDir(), "offsets.json")
	body := `{"files":{"offsets":[` +
		`{"partition":{"filename":"/a"},"offset":{"position":1}},` +
		`{"partition":{"filename":"/b"},"offset":{"position":20}},` +
		`{"partition":{"filename":"/c"},"offset":{"position":3}}]}}`
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := koff(t, "import", file, "-b", addr, "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	if !strings.HasPrefix(out, "2 partitions unchanged (not listed)\nPlan: import 1 partition of files\n") ||
		!strings.Contains(out, `{"position":2} → {"position":20}`) || strings.Contains(out, `"/a"`) || strings.Contains(out, `"/c"`) {
		t.Errorf("import --dry-run:\n%s", out)
	}
	if err := os.WriteFile(file, []byte(`{"files":{"offsets":[{"partition":{"filename":"/a"},"offset":{"position":1}}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code = koff(t, "import", file, "-b", addr, "--dry-run")
	if code != 0 || out != "1 partition unchanged (not listed)\nnothing to change: every offset in the file is already in force\n" {
		t.Errorf("import of what is in force: exit %d\n%s", code, out)
	}
}

func TestUnknownConnectorHasOneWordingAndSuggestions(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["jdbc-shop",{"table":"a"}]`, `{"incrementing":1}`})
	want := "koff: unknown connector jdbc-shopp: no offsets in connect-offsets, no consumer group connect-jdbc-shopp with committed offsets; did you mean jdbc-shop?\n"
	for _, cmd := range []string{"get", "status", "export"} {
		if _, errs, code := koff(t, cmd, "-b", addr, "jdbc-shopp"); code != ExitFailed || errs != want {
			t.Errorf("%s: exit %d %q, want %q", cmd, code, errs, want)
		}
	}
}

// Help on an 80-column terminal wraps between words, under the text's column.
func TestHelpWrapsToTheTerminalWidth(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	addGlobals(fs, Env{Getenv: func(string) string { return "" }})
	out := flagUsagesWrapped(fs, 80)
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if len([]rune(l)) > 80 {
			t.Errorf("line longer than 80 columns: %q", l)
		}
	}
	if !strings.Contains(out, "      --connect-url string") || !regexp.MustCompile(`\n {39}\S`).MatchString(out) {
		t.Errorf("continuation lines not under the usage column:\n%s", out)
	}
	if got := wrapText("a b c", 0, 4); got != "a b c" {
		t.Errorf("width 0 wraps: %q", got)
	}
}

// --demo on a command that has no demo of its own says what to do instead.
func TestDemoFlagOnACommandSaysWhatToDo(t *testing.T) {
	_, errs, code := koff(t, "get", "--demo")
	if code != ExitUsage || errs != "koff: --demo runs the dashboard, koff serve or koff metrics on a demo of their own; for koff get, start koff demo-cluster and pass -b 127.0.0.1:9092\n" {
		t.Errorf("get --demo: exit %d %q", code, errs)
	}
}

// tail of a sink's name says once where its offsets are instead of waiting.
func TestTailOfASinkSaysWhereItsOffsetsAre(t *testing.T) {
	b := broker(t)
	if err := b.CreateTopic("connect-offsets", 25, map[string]string{"cleanup.policy": "compact"}); err != nil {
		t.Fatal(err)
	}
	if err := b.CreateTopic("orders", 1, nil); err != nil {
		t.Fatal(err)
	}
	addr := b.Bootstrap()
	k := kafka.Config{Brokers: []string{addr}, ClientID: "test"}
	if err := k.CommitGroupOffsets(context.Background(), "connect-archive", map[model.TopicPartition]int64{{Topic: "orders", Partition: 0}: 0}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- Main([]string{"tail", "-b", addr, "archive"}, Env{Context: ctx, Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for errb.String() == "" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := "koff: archive is a sink: its offsets are consumer group connect-archive's, which tail does not follow (koff status archive shows them)\n"
	if errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
}
