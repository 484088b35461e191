package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/kafka"
	"koff/model"
)

// checkOut is the part of `koff check -o json` the tests read.
type checkOut struct {
	Checked    string `json:"checked"`
	State      string `json:"state"`
	Connectors []struct {
		Name       string         `json:"name"`
		Class      string         `json:"class"`
		Type       string         `json:"type"`
		State      string         `json:"state"`
		Reason     string         `json:"reason"`
		Note       string         `json:"note"`
		Counts     map[string]int `json:"counts"`
		Partitions []struct {
			Partition string `json:"partition"`
			Position  string `json:"position"`
			State     string `json:"state"`
			Lost      *struct {
				Records *int64 `json:"records"`
				Bytes   *int64 `json:"bytes"`
			} `json:"lost"`
			Replayed *struct {
				Records *int64 `json:"records"`
			} `json:"replayed"`
			ResumesAt string `json:"resumes_at"`
			Action    string `json:"action"`
			Reason    string `json:"reason"`
		} `json:"partitions"`
	} `json:"connectors"`
}

func koffCheckJSON(t *testing.T, args ...string) (checkOut, int) {
	t.Helper()
	out, errs, code := koff(t, append([]string{"check", "-o", "json"}, args...)...)
	var c checkOut
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("koff check -o json %v: exit %d %s: %v\n%s", args, code, errs, err, out)
	}
	return c, code
}

// checkBroker is an embedded broker with Connect's offsets and config
// topics and the given connectors' configs in the config topic.
func checkBroker(t *testing.T, configs map[string]string, topics map[string]int) string {
	t.Helper()
	b := broker(t)
	for name, n := range map[string]int{"connect-offsets": 25, "connect-configs": 1} {
		if err := b.CreateTopic(name, n, nil); err != nil {
			t.Fatal(err)
		}
	}
	for name, n := range topics {
		if err := b.CreateTopic(name, n, nil); err != nil {
			t.Fatal(err)
		}
	}
	var recs [][2]string
	for name, cfg := range configs {
		recs = append(recs, [2]string{"connector-" + name, `{"properties":` + cfg + `}`})
	}
	produceTo(t, b.Bootstrap(), "connect-configs", 0, recs...)
	return b.Bootstrap()
}

func records(t *testing.T, addr, topic string, partition, n int) {
	t.Helper()
	var recs [][2]string
	for i := range n {
		recs = append(recs, [2]string{fmt.Sprintf("k%d", i), fmt.Sprintf("v%d", i)})
	}
	produceTo(t, addr, topic, partition, recs...)
}

func commitGroup(t *testing.T, addr, group string, offsets map[model.TopicPartition]int64) {
	t.Helper()
	if err := (kafka.Config{Brokers: []string{addr}}).CommitGroupOffsets(context.Background(), group, offsets); err != nil {
		t.Fatal(err)
	}
}

// A sink whose committed offset fell below the log start (DeleteRecords,
// as retention does) has a gap of exactly the records deleted past it, and
// its consumer resets to the log start (Connect's earliest); one committed
// beyond the log end (a topic created again) replays what the log holds;
// a sink whose consumer.override.auto.offset.reset is latest skips to the
// end; koff check exits 6 then, 0 for a sink that resumes, 7 for a
// connector whose class koff cannot check.
func TestCheckSinksGapReplayAndExitCodes(t *testing.T) {
	sink := func(name, extra string) string {
		return `{"connector.class":"org.apache.kafka.connect.file.FileStreamSinkConnector","topics":"orders","name":"` + name + `"` + extra + `}`
	}
	addr := checkBroker(t, map[string]string{
		"gap-sink":    sink("gap-sink", ""),
		"replay-sink": sink("replay-sink", ""),
		"ok-sink":     sink("ok-sink", ""),
		"late-sink":   sink("late-sink", `,"consumer.override.auto.offset.reset":"latest","consumer.override.group.id":"late-group"`),
		"epoch-sink":  sink("epoch-sink", ""),
		"jdbc":        `{"connector.class":"io.confluent.connect.jdbc.JdbcSourceConnector","name":"jdbc"}`,
	}, map[string]int{"orders": 2})
	records(t, addr, "orders", 0, 10)
	records(t, addr, "orders", 1, 5)
	o0, o1 := model.TopicPartition{Topic: "orders", Partition: 0}, model.TopicPartition{Topic: "orders", Partition: 1}
	commitGroup(t, addr, "connect-gap-sink", map[model.TopicPartition]int64{o0: 2, o1: 5})
	commitGroup(t, addr, "connect-replay-sink", map[model.TopicPartition]int64{o1: 50})
	commitGroup(t, addr, "connect-ok-sink", map[model.TopicPartition]int64{o0: 8, o1: 0})
	commitGroup(t, addr, "late-group", map[model.TopicPartition]int64{o0: 2})
	// A consumer's own commit carries the leader epoch it read at (0
	// here, as kafka-go's OffsetCommit sends).
	kc := &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 10 * time.Second}
	if res, err := kc.OffsetCommit(context.Background(), &kafkago.OffsetCommitRequest{GroupID: "connect-epoch-sink", GenerationID: -1,
		Topics: map[string][]kafkago.OffsetCommit{"orders": {{Partition: 1, Offset: 50}}}}); err != nil || res.Topics["orders"][0].Error != nil {
		t.Fatalf("commit with an epoch: %v %+v", err, res)
	}
	produceConnect(t, addr, [2]string{`["jdbc",{"table":"shop.orders"}]`, `{"incrementing":41}`})
	deleteRecordsBefore(t, addr, "orders", 0, 6)

	out, errs, code := koff(t, "check", "-b", addr)
	if code != ExitResumeGap {
		t.Fatalf("koff check: exit %d, want %d: %s\n%s", code, ExitResumeGap, errs, out)
	}
	if !strings.Contains(errs, "koff: 4 connectors do not resume where their offsets say: epoch-sink (gap), gap-sink (gap), late-sink (gap), replay-sink (replay)") {
		t.Errorf("stderr: %q", errs)
	}
	for _, want := range []string{
		"gap-sink     FileStreamSinkConnector  sink    gap      gap 1, resumes 1  4 records",
		"ok-sink      FileStreamSinkConnector  sink    resumes  resumes 2",
		"jdbc         JdbcSourceConnector      source  unknown  -",
		"gap-sink     orders/0   offset 2   gap     4 records  -          offset 6",
		"replay-sink  orders/1   offset 50  replay  -          5 records  offset 0",
		"gap-sink orders/0: offset 2 is below the log start 6 (4 records deleted by retention or DeleteRecords): auto.offset.reset=earliest (Connect's default for sink tasks) moves it to the log start, offset 6, skipping the 4 records",
		"jdbc: koff cannot check io.confluent.connect.jdbc.JdbcSourceConnector's positions",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ok-sink      orders/") {
		t.Errorf("a partition that resumes is listed without --partitions:\n%s", out)
	}

	c, code := koffCheckJSON(t, "gap-sink", "late-sink", "-b", addr)
	if code != ExitResumeGap || c.State != "gap" || len(c.Connectors) != 2 {
		t.Fatalf("json: exit %d %+v", code, c)
	}
	for _, cn := range c.Connectors {
		p := cn.Partitions[0]
		switch cn.Name {
		case "gap-sink":
			if p.Partition != "orders/0" || p.State != "gap" || p.Lost == nil || *p.Lost.Records != 4 || p.ResumesAt != "offset 6" || cn.Counts["resumes"] != 1 {
				t.Errorf("gap-sink: %+v", cn)
			}
		case "late-sink":
			// latest skips the 4 deleted and the 4 still held: to the end.
			if p.State != "gap" || *p.Lost.Records != 8 || p.ResumesAt != "offset 10" || !strings.Contains(p.Action, "consumer.override.auto.offset.reset") {
				t.Errorf("late-sink: %+v", p)
			}
		}
	}
	// Beyond the end with a leader epoch: the consumer's validation finds
	// the epoch ends at the log end and moves there, skipping the log.
	c, _ = koffCheckJSON(t, "epoch-sink", "-b", addr)
	if p := c.Connectors[0].Partitions[0]; p.State != "gap" || p.Lost == nil || *p.Lost.Records != 5 || p.ResumesAt != "offset 5" || !strings.Contains(p.Action, "leader epoch 0 ends at offset 5") {
		t.Errorf("epoch-sink: %+v", p)
	}
	if _, errs, code := koff(t, "check", "ok-sink", "-b", addr); code != 0 {
		t.Errorf("a sink that resumes: exit %d %s", code, errs)
	}
	out, _, _ = koff(t, "check", "ok-sink", "--partitions", "-b", addr)
	if !strings.Contains(out, "ok-sink    orders/0   offset 8  resumes") {
		t.Errorf("--partitions lists the ones that resume:\n%s", out)
	}
	_, errs, code = koff(t, "check", "jdbc", "-b", addr)
	if code != ExitResumeUnknown || !strings.Contains(errs, "1 connector could not be checked: jdbc") {
		t.Errorf("a class koff cannot check: exit %d %q", code, errs)
	}
	// A sink whose group koff cannot learn (no REST, no config topic):
	// --group names it, as for get and status.
	bare := []string{"-b", addr, "--config-topic", ""}
	if _, errs, code := koff(t, append([]string{"check", "late-sink"}, bare...)...); code != ExitFailed || !strings.Contains(errs, "unknown connector late-sink") {
		t.Errorf("late-sink without its group: exit %d %q", code, errs)
	}
	if out, errs, code := koff(t, append([]string{"check", "late-sink", "--group", "late-group"}, bare...)...); code != ExitResumeGap || !strings.Contains(out, "late-sink  orders/0") {
		t.Errorf("late-sink --group late-group: exit %d %s\n%s", code, errs, out)
	}
	if _, errs, code := koff(t, "check", "--group", "g", "-b", addr); code != ExitUsage || !strings.Contains(errs, "name exactly one CONNECTOR") {
		t.Errorf("--group without a connector: exit %d %q", code, errs)
	}
	if _, errs, code := koff(t, "check", "nope", "-b", addr); code != ExitFailed || !strings.Contains(errs, "unknown connector nope") {
		t.Errorf("an unknown connector: exit %d %q", code, errs)
	}
	if _, errs, code := koff(t, "check", "-o", "yaml", "-b", addr); code != ExitUsage || !strings.Contains(errs, "-o must be table or json") {
		t.Errorf("-o yaml: exit %d %q", code, errs)
	}
}

// MirrorMaker 2's stored offset is the last record copied: koff judges
// offset+1 against the topic's log on the source cluster (a second
// broker), reached at the connector's source.cluster.bootstrap.servers, or
// with --source-cluster ALIAS=FILE when its config says it needs SASL; a
// source cluster that does not answer is unknown, in one line, fast.
func TestCheckMirrorMakerAgainstItsSourceCluster(t *testing.T) {
	src := broker(t)
	if err := src.CreateTopic("src-orders", 3, nil); err != nil {
		t.Fatal(err)
	}
	for p := range 3 {
		records(t, src.Bootstrap(), "src-orders", p, 10)
	}
	deleteRecordsBefore(t, src.Bootstrap(), "src-orders", 0, 6)
	mm2 := func(name, bootstrap, extra string) string {
		return `{"connector.class":"org.apache.kafka.connect.mirror.MirrorSourceConnector","name":"` + name + `","source.cluster.alias":"src","target.cluster.alias":"dst","source.cluster.bootstrap.servers":"` + bootstrap + `"` + extra + `}`
	}
	down := freeAddr(t)
	addr := checkBroker(t, map[string]string{
		"mm2":      mm2("mm2", src.Bootstrap(), ""),
		"mm2-down": mm2("mm2-down", down, ""),
		"mm2-sasl": mm2("mm2-sasl", "elsewhere:9093", `,"source.cluster.security.protocol":"SASL_SSL"`),
	}, nil)
	key := func(name string, p int) string {
		return fmt.Sprintf(`["%s",{"cluster":"src","partition":%d,"topic":"src-orders"}]`, name, p)
	}
	produceConnect(t, addr,
		[2]string{key("mm2", 0), `{"offset":3}`}, // next 4, below the log start 6: 2 records lost
		[2]string{key("mm2", 1), `{"offset":9}`}, // next 10: the log end
		[2]string{key("mm2", 2), `{"offset":40}`},
		[2]string{key("mm2-down", 0), `{"offset":3}`},
		[2]string{key("mm2-sasl", 0), `{"offset":3}`})

	c, code := koffCheckJSON(t, "mm2", "-b", addr)
	if code != ExitResumeGap || len(c.Connectors) != 1 {
		t.Fatalf("exit %d %+v", code, c)
	}
	got := map[string]string{}
	for _, p := range c.Connectors[0].Partitions {
		s := p.State + " " + p.Position
		if p.Lost != nil {
			s += fmt.Sprintf(" lost %d", *p.Lost.Records)
		}
		if p.Replayed != nil {
			s += fmt.Sprintf(" replayed %d", *p.Replayed.Records)
		}
		got[p.Partition] = s + " at " + p.ResumesAt
	}
	want := map[string]string{
		`{"cluster":"src","partition":0,"topic":"src-orders"}`: "gap offset 3 copied, next 4 lost 2 at offset 6",
		`{"cluster":"src","partition":1,"topic":"src-orders"}`: "resumes offset 9 copied, next 10 at ",
		`{"cluster":"src","partition":2,"topic":"src-orders"}`: "replay offset 40 copied, next 41 replayed 10 at offset 0",
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %q, want %q", p, got[p], w)
		}
	}

	start := time.Now()
	_, errs, code := koff(t, "check", "mm2-down", "-b", addr)
	if took := time.Since(start); code != ExitResumeUnknown || took > 20*time.Second {
		t.Errorf("a source cluster that does not answer: exit %d after %s: %s", code, took, errs)
	}
	c, _ = koffCheckJSON(t, "mm2-down", "-b", addr)
	if r := c.Connectors[0].Partitions[0].Reason; !strings.HasPrefix(r, "source cluster src at "+down+": ") || !strings.Contains(r, "connection refused") || strings.Contains(r, "\n") {
		t.Errorf("unreachable: %q", r)
	}

	c, code = koffCheckJSON(t, "mm2-sasl", "-b", addr)
	if r := c.Connectors[0].Partitions[0].Reason; code != ExitResumeUnknown || !strings.Contains(r, "source cluster src speaks SASL_SSL (source.cluster.security.protocol): give koff its client settings with --source-cluster src=CONTEXT") {
		t.Errorf("SASL source: exit %d %q", code, r)
	}
	props := filepath.Join(t.TempDir(), "src.properties")
	if err := os.WriteFile(props, []byte("bootstrap.servers="+src.Bootstrap()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, code = koffCheckJSON(t, "mm2-sasl", "-b", addr, "--source-cluster", "src="+props)
	if code != ExitResumeGap || c.Connectors[0].Partitions[0].State != "gap" {
		t.Errorf("--source-cluster src=FILE: exit %d %+v", code, c.Connectors[0])
	}
	// A context names the source cluster, by another context, for every
	// command run in it.
	env := writeContexts(t, `contexts:
  dr:
    bootstrap-servers: [`+addr+`]
    source-clusters:
      src: primary
  primary:
    bootstrap-servers: [`+src.Bootstrap()+`]
`)
	out, errs, code := koffEnv(t, env, "check", "mm2-sasl", "--context", "dr", "-o", "json")
	if code != ExitResumeGap || !strings.Contains(out, `"state":"gap"`) {
		t.Errorf("the context's source-clusters: exit %d %s\n%s", code, errs, out)
	}
	out, errs, code = koffEnv(t, env, "check", "mm2-sasl", "-b", addr, "--source-cluster", "src=primary", "-o", "json")
	if code != ExitResumeGap || !strings.Contains(out, `"state":"gap"`) {
		t.Errorf("--source-cluster src=primary (a context): exit %d %s\n%s", code, errs, out)
	}
	if _, errs, code := koff(t, "check", "-b", addr, "--source-cluster", "src"); code != ExitUsage || !strings.Contains(errs, "--source-cluster wants ALIAS=CONTEXT or ALIAS=FILE") {
		t.Errorf("--source-cluster src: exit %d %q", code, errs)
	}
	if _, errs, code := koff(t, "check", "-b", addr, "--source-cluster", "src=nowhere"); code != ExitUsage || !strings.Contains(errs, "nowhere is neither a context") {
		t.Errorf("--source-cluster src=nowhere: exit %d %q", code, errs)
	}
}

// A FileStreamSource's position against its file where koff runs: a file
// at least that long resumes; one truncated below it is a gap of the bytes
// (and lines) it holds, which the task never reads; a file missing here is
// unknown, saying to run koff on the worker's host.
func TestCheckFileStreamSourceAgainstItsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(path, []byte(strings.Repeat("line\n", 20)), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "gone.txt")
	fs := func(name, file string) string {
		b, _ := json.Marshal(map[string]string{"connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector", "name": name, "file": file, "topic": "lines"})
		return string(b)
	}
	addr := checkBroker(t, map[string]string{"fs": fs("fs", path), "fs-gone": fs("fs-gone", missing)}, nil)
	fk, _ := json.Marshal([]any{"fs", map[string]string{"filename": path}})
	gk, _ := json.Marshal([]any{"fs-gone", map[string]string{"filename": missing}})
	produceConnect(t, addr, [2]string{string(fk), `{"position":50}`}, [2]string{string(gk), `{"position":50}`})

	if _, errs, code := koff(t, "check", "fs", "-b", addr); code != 0 {
		t.Fatalf("a file longer than the position: exit %d %s", code, errs)
	}
	if err := os.Truncate(path, 10); err != nil {
		t.Fatal(err)
	}
	c, code := koffCheckJSON(t, "fs", "-b", addr)
	p := c.Connectors[0].Partitions[0]
	if code != ExitResumeGap || p.State != "gap" || p.Position != "byte 50" || *p.Lost.Bytes != 10 || *p.Lost.Records != 2 ||
		p.ResumesAt != "byte 50, once the file has grown by 40 bytes" {
		t.Errorf("a truncated file: exit %d %+v", code, p)
	}
	c, code = koffCheckJSON(t, "fs-gone", "-b", addr)
	if p := c.Connectors[0].Partitions[0]; code != ExitResumeUnknown || !strings.Contains(p.Reason, missing+" does not exist on ") {
		t.Errorf("a missing file: exit %d %+v", code, p)
	}
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
