package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sinkCommitted reads a sink's committed offsets as `koff get -o json`
// prints them: "topic/partition" → offset. Any other partition shape
// (a source key written by mistake) is reported under its JSON.
func sinkCommitted(t *testing.T, args ...string) map[string]int64 {
	t.Helper()
	out, errs, code := koff(t, append([]string{"get", "-o", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("koff get %v: exit %d %s", args, code, errs)
	}
	var got struct {
		Offsets []struct {
			Partition map[string]any `json:"partition"`
			Offset    map[string]any `json:"offset"`
		} `json:"offsets"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("koff get: %v\n%s", err, out)
	}
	m := map[string]int64{}
	for _, o := range got.Offsets {
		topic, ok := o.Partition["kafka_topic"].(string)
		n, _ := o.Partition["kafka_partition"].(json.Number)
		if !ok || n == "" || len(o.Partition) != 2 {
			b, _ := json.Marshal(o.Partition)
			m[string(b)] = -1
			continue
		}
		off, _ := o.Offset["kafka_offset"].(json.Number).Int64()
		m[topic+"/"+string(n)] = off
	}
	return m
}

// Issue 20 (OffsetsApiIntegrationTest's invalid sink bodies): the bodies
// Connect's SinkUtils refuses are refused by koff first, in Connect's
// words, with and without REST; without REST a sink known from the config
// topic (topics in its config) or its group is never given a source key in
// the offsets topic. The forms Connect accepts ("0", "2") koff accepts.
func TestSinkBodiesConnectRefusesAreRefusedFirst(t *testing.T) {
	c := demoCluster(t)
	stoppedSink(t, c)
	plain := []string{"-b", c.Bootstrap()}
	rest := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	for _, b := range []struct{ partition, offset, says string }{
		{`{}`, `{"kafka_offset":1}`, "The partition for a sink connector offset must contain the keys 'kafka_topic' and 'kafka_partition'"},
		{`{"kafka_topic":"shop.orders","kafka_partition":"not a number"}`, `{"kafka_offset":1}`, "Partition values for sink connectors need to be integers"},
		{`{"kafka_topic":"shop.orders","kafka_partition":0}`, `{}`, "should either be null or contain the key 'kafka_offset'"},
		{`{"kafka_topic":"shop.orders","kafka_partition":0}`, `{"kafka_offset":"not a number"}`, "Offset values for sink connectors need to be integers"},
	} {
		for _, how := range [][]string{plain, rest} {
			args := withAudit(t, append([]string{"set", "s3-archive", "--partition", b.partition, "--offset", b.offset, "--yes"}, how...)...)
			out, errs, code := koff(t, args...)
			if code == 0 || !strings.Contains(errs, b.says) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
				t.Errorf("koff %s: exit %d, want one line saying %q\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, b.says, out, errs)
			}
		}
	}
	for k := range sinkCommitted(t, append([]string{"s3-archive"}, plain...)...) {
		if strings.HasPrefix(k, "{") {
			t.Errorf("a refused sink body left %s among s3-archive's offsets", k)
		}
	}
	for _, how := range [][]string{plain, rest} {
		args := withAudit(t, append([]string{"set", "s3-archive", "--partition", `{"kafka_topic":"shop.orders","kafka_partition":"0"}`, "--offset", `{"kafka_offset":"2"}`, "--yes"}, how...)...)
		if out, errs, code := koff(t, args...); code != 0 || !strings.Contains(out, "verified") {
			t.Fatalf("numbers as strings, as Connect takes them: exit %d %s\n%s", code, errs, out)
		}
		if got := sinkCommitted(t, append([]string{"s3-archive"}, plain...)...); got["shop.orders/0"] != 2 {
			t.Errorf("after set with \"0\" and \"2\": %v", got)
		}
	}
}

// stoppedSink stops s3-archive once it has committed past offset 1 on
// every partition it reads, so that its log has records to move within.
func stoppedSink(t *testing.T, c interface {
	Bootstrap() string
	StopConnector(string) error
}) {
	t.Helper()
	waitFor(t, "s3-archive commits past offset 1 on its six partitions", func() bool {
		out, _, code := koff(t, "get", "s3-archive", "-o", "json", "-b", c.Bootstrap())
		return code == 0 && strings.Count(out, `"kafka_offset":`) == 6 && !regexp.MustCompile(`"kafka_offset":[01]}`).MatchString(out)
	})
	if err := c.StopConnector("s3-archive"); err != nil {
		t.Fatal(err)
	}
}

var negativeLag = regexp.MustCompile(`lag after -`)

// Issue 21: an offset outside the log is clamped to its start or end as
// kafka-consumer-groups --reset-offsets does, and the CLI plan says so and
// shows what the dashboard's review shows: old → new, records skipped or
// replayed, lag after (never negative).
func TestSinkPlanClampsLikeKafkaConsumerGroups(t *testing.T) {
	c := demoCluster(t)
	stoppedSink(t, c)
	plain := []string{"-b", c.Bootstrap()}
	if _, errs, code := koff(t, withAudit(t, append([]string{"set", "s3-archive", "--to-offset", "1", "--topic", "shop.orders:0", "--yes"}, plain...)...)...); code != 0 {
		t.Fatal(errs)
	}
	before := sinkCommitted(t, append([]string{"s3-archive"}, plain...)...)
	out, errs, code := koff(t, withAudit(t, append([]string{"set", "s3-archive", "--shift-by", "1000000", "--topic", "shop.orders:0", "--yes"}, plain...)...)...)
	if code != 0 || !regexp.MustCompile(`offset \d+ is above the log end \d+: clamped to \d+, as kafka-consumer-groups does`).MatchString(out) ||
		!regexp.MustCompile(`skips \d+ records? · lag after 0`).MatchString(out) || strings.Contains(out, "replays the partition") {
		t.Fatalf("shift past the end: exit %d %s\n%s", code, errs, out)
	}
	after := sinkCommitted(t, append([]string{"s3-archive"}, plain...)...)
	if after["shop.orders/0"] >= 1000000 || after["shop.orders/0"] < before["shop.orders/0"] {
		t.Errorf("shop.orders/0 committed %d after a clamped shift from %d", after["shop.orders/0"], before["shop.orders/0"])
	}
	out, errs, code = koff(t, append([]string{"set", "s3-archive", "--shift-by", "-1000000", "--dry-run"}, plain...)...)
	if code != 0 || !strings.Contains(out, "is below the log start 0: clamped to 0, as kafka-consumer-groups does") || !strings.Contains(out, "replays") || negativeLag.MatchString(out) {
		t.Errorf("shift before the start: exit %d %s\n%s", code, errs, out)
	}
	// Connect's own shape past the end is clamped too: the plan is true.
	out, errs, code = koff(t, append([]string{"set", "s3-archive", "--partition", `{"kafka_topic":"shop.payments","kafka_partition":1}`, "--offset", `{"kafka_offset":99999999}`, "--dry-run"}, plain...)...)
	if code != 0 || !strings.Contains(out, "offset 99999999 is above the log end") || strings.Contains(out, `{"kafka_offset":99999999}`) {
		t.Errorf("Connect's shape past the end: exit %d %s\n%s", code, errs, out)
	}
}

// Issue 21: kafka-consumer-groups' forms --from-file (its CSV),
// --by-duration and --topic t:0,1 pick the offsets it picks.
func TestSinkKafkaConsumerGroupsForms(t *testing.T) {
	c := demoCluster(t)
	stoppedSink(t, c)
	plain := []string{"-b", c.Bootstrap()}
	csv := filepath.Join(t.TempDir(), "plan.csv")
	if err := os.WriteFile(csv, []byte("shop.orders,0,1\nshop.orders,2,987654321\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := koff(t, withAudit(t, append([]string{"set", "s3-archive", "--from-file", csv, "--yes"}, plain...)...)...)
	if code != 0 || !strings.Contains(out, "offset 987654321 is above the log end") || !strings.Contains(out, "verified") {
		t.Fatalf("--from-file: exit %d %s\n%s", code, errs, out)
	}
	got := sinkCommitted(t, append([]string{"s3-archive"}, plain...)...)
	if got["shop.orders/0"] != 1 || got["shop.orders/2"] <= 1 || got["shop.orders/2"] >= 987654321 {
		t.Errorf("after --from-file: %v", got)
	}
	// A day ago is before every record: the log start, 0.
	out, errs, code = koff(t, withAudit(t, append([]string{"set", "s3-archive", "--by-duration", "P1D", "--topic", "shop.payments:1,2", "--yes"}, plain...)...)...)
	if code != 0 || !strings.Contains(out, "--to-datetime") || !strings.Contains(out, "--topic shop.payments:1,2") {
		t.Fatalf("--by-duration: exit %d %s\n%s", code, errs, out)
	}
	after := sinkCommitted(t, append([]string{"s3-archive"}, plain...)...)
	if after["shop.payments/1"] != 0 || after["shop.payments/2"] != 0 || after["shop.payments/0"] != got["shop.payments/0"] {
		t.Errorf("after --by-duration P1D on shop.payments:1,2: %v (before %v)", after, got)
	}
	for _, bad := range [][]string{
		{"--by-duration", "1h"},
		{"--to-earliest", "--topic", "shop.orders:x"},
		{"--from-file", csv, "--topic", "shop.orders"},
	} {
		if _, errs, code := koff(t, append(append([]string{"set", "s3-archive"}, bad...), plain...)...); code != ExitUsage || errs == "" {
			t.Errorf("set %v: exit %d %q", bad, code, errs)
		}
	}
}

// A connector the config topic shows with topics or topics.regex is a sink
// (without REST, koff cannot load its class), except MirrorMaker 2's
// source connectors, which have a topics setting too.
func TestConfigTopicTellsSinksFromMirrorSources(t *testing.T) {
	b := broker(t)
	for name, n := range map[string]int{"connect-offsets": 25, "connect-configs": 1} {
		if err := b.CreateTopic(name, n, nil); err != nil {
			t.Fatal(err)
		}
	}
	addr := b.Bootstrap()
	produceTo(t, addr, "connect-configs", 0,
		[2]string{"connector-mm2", `{"properties":{"connector.class":"org.apache.kafka.connect.mirror.MirrorSourceConnector","topics":"orders.*","source.cluster.alias":"a","name":"mm2"}}`},
		[2]string{"target-state-mm2", `{"state":"PAUSED","state.v2":"STOPPED"}`},
		[2]string{"connector-es", `{"properties":{"connector.class":"com.example.EsSink","topics.regex":"logs.*","name":"es"}}`},
		[2]string{"target-state-es", `{"state":"PAUSED","state.v2":"STOPPED"}`})
	out, errs, code := koff(t, "set", "mm2", "--create", "--partition", `{"cluster":"a","partition":0,"topic":"orders"}`, "--offset", `{"offset":5}`, "--dry-run", "-b", addr)
	if code != 0 || !strings.Contains(out, "offsets topic") {
		t.Errorf("a MirrorSourceConnector's partition: exit %d %s\n%s", code, errs, out)
	}
	if _, errs, code := koff(t, "set", "es", "--create", "--partition", `{}`, "--offset", `{"kafka_offset":1}`, "--dry-run", "-b", addr); code == 0 || !strings.Contains(errs, "must contain the keys 'kafka_topic' and 'kafka_partition'") {
		t.Errorf("a sink known by topics.regex: exit %d %q", code, errs)
	}
}
