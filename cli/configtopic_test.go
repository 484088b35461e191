package cli

import (
	"context"
	"errors"
	"io"
	"log"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"koff/demo"
	"koff/kafka"
	"koff/model"
	"koff/model/java"
)

// produceTo writes records to one partition of a topic, as a worker does
// (an empty value is a tombstone).
func produceTo(t *testing.T, addr, topic string, partition int, recs ...[2]string) {
	t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 10 * time.Second}
	for _, r := range recs {
		rec := kafkago.Record{Key: kafkago.NewBytes([]byte(r[0])), Time: time.Now()}
		if r[1] != "" {
			rec.Value = kafkago.NewBytes([]byte(r[1]))
		}
		p := partition
		if p < 0 {
			p = java.PartitionFor([]byte(r[0]), 25)
		}
		var err error
		// A topic just created can be missing from the first metadata
		// answer on a loaded machine: asked again, briefly.
		for try := 0; try < 50; try++ {
			var res *kafkago.ProduceResponse
			res, err = c.Produce(context.Background(), &kafkago.ProduceRequest{Topic: topic, Partition: p, RequiredAcks: kafkago.RequireAll, Records: kafkago.NewRecordReader(rec)})
			if err == nil {
				err = res.Error
			}
			if err == nil || !strings.Contains(err.Error(), "topic not found") && !errors.Is(err, kafkago.UnknownTopicOrPartition) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("produce %s to %s: %v", r[0], topic, err)
		}
	}
}

// configCluster is a broker with the workers' connect-offsets, a config
// topic as Apache Kafka 4.1.1's workers write it, and "files", a source
// with its own offsets.storage.topic files-offsets holding its offset (and
// a stale copy in connect-offsets), with the given target state.
func configCluster(t *testing.T, target string) string {
	t.Helper()
	b := broker(t)
	compact := map[string]string{"cleanup.policy": "compact"}
	for name, n := range map[string]int{"connect-offsets": 25, "files-offsets": 25, "connect-configs": 1} {
		if err := b.CreateTopic(name, n, compact); err != nil {
			t.Fatal(err)
		}
	}
	addr := b.Bootstrap()
	old := "PAUSED"
	if target == "STARTED" {
		old = target
	}
	produceTo(t, addr, "connect-configs", 0,
		[2]string{"connector-files", `{"properties":{"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","file":"/tmp/in.txt","topic":"lines","offsets.storage.topic":"files-offsets","name":"files"}}`},
		[2]string{"target-state-files", `{"state":"` + old + `","state.v2":"` + target + `"}`},
		[2]string{"task-files-0", `{"properties":{"file":"/tmp/in.txt"}}`},
		[2]string{"commit-files", `{"tasks":1}`})
	key := `["files",{"filename":"/tmp/in.txt"}]`
	produceTo(t, addr, "connect-offsets", -1, [2]string{key, `{"position":10}`})
	produceTo(t, addr, "files-offsets", -1, [2]string{key, `{"position":42}`})
	return addr
}

// Without --connect-url, the config topic names the connector's own
// offsets topic: get reads it, and reset tombstones the key there (and the
// stale copy in the workers' topic), verified.
func TestOwnOffsetsTopicFromTheConfigTopicWithoutREST(t *testing.T) {
	addr := configCluster(t, "STOPPED")
	out, errs, code := koff(t, "get", "files", "-b", addr, "-o", "json")
	if code != 0 || !strings.Contains(out, `"offset":{"position":42}`) {
		t.Fatalf("get files: exit %d %s\n%s", code, errs, out)
	}
	out, errs, code = koff(t, withAudit(t, "reset", "files", "-b", addr, "--yes")...)
	if code != 0 || !strings.Contains(out, "verified: reset 1 partition of files") {
		t.Fatalf("reset files: exit %d %s\n%s", code, errs, out)
	}
	p := java.PartitionFor([]byte(`["files",{"filename":"/tmp/in.txt"}]`), 25)
	for _, w := range []string{"state:  target state STOPPED (config topic connect-configs); no --connect-url for its status", "offsets topic files-offsets", "write files-offsets/" + strconv.Itoa(p), "write connect-offsets/" + strconv.Itoa(p)} {
		if !strings.Contains(out, w) {
			t.Errorf("plan lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "no --connect-url)") || strings.Contains(out, "unknown") {
		t.Errorf("the config topic said what koff needs, yet the plan says it does not know:\n%s", out)
	}
	out, _, _ = koff(t, "get", "files", "-b", addr, "-o", "json")
	if strings.Contains(out, "position") {
		t.Errorf("after the reset, get still shows an offset: %s", out)
	}
	// status: the target state, and the workers' topic is not the one
	// the task reads.
	out, errs, _ = koff(t, "status", "files", "-b", addr)
	if !strings.Contains(out, "target STOPPED") || !strings.Contains(out, "connect-offsets (secondary)") {
		t.Errorf("status without REST:\n%s%s", out, errs)
	}
}

// A connector whose target state is STARTED is meant to be running: koff
// knows it from the config topic and refuses, in its own words.
func TestTargetStateStartedRefusesWithoutREST(t *testing.T) {
	addr := configCluster(t, "STARTED")
	before := endOffsets(t, addr)
	out, errs, code := koff(t, withAudit(t, "set", "files", "-b", addr, "--yes", "--partition", `{"filename":"/tmp/in.txt"}`, "--offset", `{"position":1}`)...)
	if code != ExitFailed || !strings.Contains(errs, "files's target state is STARTED (config topic connect-configs)") || strings.Contains(errs, "Connectors must be") {
		t.Fatalf("set on a started connector: exit %d %q\n%s", code, errs, out)
	}
	if after := endOffsets(t, addr); after != before {
		t.Errorf("refused, yet something was written: %d → %d", before, after)
	}
}

// Without a config topic (and without REST) koff cannot know whether the
// connector has its own offsets topic: it says so, and does not claim the
// edit verified.
func TestNoConfigTopicSaysWhatKoffCannotKnow(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["src",{"server":"db"}]`, `{"lsn":1}`})
	out, errs, code := koff(t, withAudit(t, "set", "src", "-b", addr, "--yes", "--partition", `{"server":"db"}`, "--offset", `{"lsn":2}`)...)
	if code != 0 || strings.Contains(out, "verified:") || !strings.Contains(out, "NOT verified for the worker") ||
		!strings.Contains(out, "state:  unknown (no --connect-url, no config topic)") || !strings.Contains(out, "whether it has its own offsets topic") {
		t.Fatalf("set without REST or config topic: exit %d %s\n%s", code, errs, out)
	}
	// A config topic that was named must exist.
	_, errs, code = koff(t, "get", "src", "-b", addr, "--config-topic", "my-configs")
	if code != ExitFailed || !strings.Contains(errs, "config topic my-configs does not exist on "+addr) {
		t.Errorf("a named config topic that does not exist: exit %d %q", code, errs)
	}
}

// A sink's consumer.override.group.id, read from the config topic: get and
// set find its group without REST or --group.
func TestSinkGroupOverrideFromTheConfigTopic(t *testing.T) {
	b := broker(t)
	for name, n := range map[string]int{"connect-offsets": 25, "connect-configs": 1, "logs": 1} {
		if err := b.CreateTopic(name, n, nil); err != nil {
			t.Fatal(err)
		}
	}
	addr := b.Bootstrap()
	produceTo(t, addr, "logs", 0, [2]string{"a", "1"}, [2]string{"b", "2"}, [2]string{"c", "3"})
	produceTo(t, addr, "connect-configs", 0,
		[2]string{"connector-es", `{"properties":{"connector.class":"io.confluent.connect.elasticsearch.ElasticsearchSinkConnector","topics":"logs","consumer.override.group.id":"es-group","name":"es"}}`},
		[2]string{"target-state-es", `{"state":"PAUSED","state.v2":"STOPPED"}`})
	k := kafka.Config{Brokers: []string{addr}}
	if err := k.CommitGroupOffsets(context.Background(), "es-group", map[model.TopicPartition]int64{{Topic: "logs", Partition: 0}: 2}); err != nil {
		t.Fatal(err)
	}
	out, errs, code := koff(t, "get", "es", "-b", addr, "-o", "json")
	if code != 0 || !strings.Contains(out, `{"partition":{"kafka_partition":0,"kafka_topic":"logs"},"offset":{"kafka_offset":2}}`) {
		t.Fatalf("get es: exit %d %s\n%s", code, errs, out)
	}
	out, errs, code = koff(t, withAudit(t, "set", "es", "-b", addr, "--yes", "--shift-by", "-1", "--topic", "logs")...)
	if code != 0 || !strings.Contains(out, "via group es-group") || !strings.Contains(out, "verified") {
		t.Fatalf("set es: exit %d %s\n%s", code, errs, out)
	}
	out, _, _ = koff(t, "get", "es", "-b", addr, "-o", "json")
	if !strings.Contains(out, `"offset":{"kafka_offset":1}`) {
		t.Errorf("after shifting by -1: %s", out)
	}
}

// A STOPPED connector whose worker left reads UNASSIGNED: Connect decides
// by its target state, and so does koff (the demo's workers write the
// config topic as the real ones do).
func TestStoppedButUnassignedIsStopped(t *testing.T) {
	c := demoCluster(t)
	rest := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	if _, errs, code := koff(t, append([]string{"stop", "jdbc-shop"}, rest...)...); code != 0 {
		t.Fatal(errs)
	}
	if err := c.LeaveWorker("jdbc-shop"); err != nil {
		t.Fatal(err)
	}
	// koff stop of such a connector does not wait for a STOPPED status.
	out, errs, code := koff(t, append([]string{"stop", "jdbc-shop"}, rest...)...)
	if code != 0 || !strings.Contains(out, "jdbc-shop is STOPPED") {
		t.Fatalf("stop of a stopped, unassigned connector: exit %d %q %s", code, errs, out)
	}
	out, errs, code = koff(t, withAudit(t, append([]string{"set", "jdbc-shop", "--yes", "--partition", `{"protocol":"1","table":"shop.public.orders"}`, "--offset", `{"incrementing":7}`}, rest...)...)...)
	if code != 0 || !strings.Contains(out, "state:  UNASSIGNED (Connect REST), target state STOPPED (config topic connect-configs)") || !strings.Contains(out, "verified: set") {
		t.Fatalf("set on a stopped, unassigned connector: exit %d %q\n%s", code, errs, out)
	}
	// Without a config topic to read its target state, koff cannot tell:
	// it refuses in its own words, not Connect's.
	_, errs, code = koff(t, withAudit(t, append([]string{"set", "jdbc-shop", "--yes", "--config-topic", "", "--partition", `{"protocol":"1","table":"shop.public.orders"}`, "--offset", `{"incrementing":8}`}, rest...)...)...)
	if code != ExitFailed || !strings.Contains(errs, "jdbc-shop is UNASSIGNED (Connect REST status) and koff reads no config topic") || strings.Contains(errs, "Connectors must be") {
		t.Errorf("without a config topic: exit %d %q", code, errs)
	}
}

// "state: unknown (no --connect-url)" is never printed when --connect-url
// was given: not for a connector Connect does not list either.
func TestNoUnknownStateWordsWithConnectURL(t *testing.T) {
	c := demoCluster(t)
	rest := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	for _, cfg := range [][]string{nil, {"--config-topic", ""}} {
		args := append(append([]string{"set", demo.OrphanConnector, "--dry-run", "--partition", `{"x":1}`, "--offset", `{"y":1}`, "--create"}, rest...), cfg...)
		out, errs, _ := koff(t, withAudit(t, args...)...)
		if strings.Contains(out+errs, "no --connect-url") || !strings.Contains(out, "state:  not in Connect (Connect REST lists no such connector)") {
			t.Errorf("%v: plan of a connector Connect does not list:\n%s%s", cfg, out, errs)
		}
	}
}

// The dashboard's observer keeps the config topic live: a stop after koff
// started is seen as the target state STOPPED, and the Editor it gives the
// dashboard decides by it.
func TestObserverFollowsTargetStatesLive(t *testing.T) {
	c := demoCluster(t)
	g := &Globals{Bootstrap: []string{c.Bootstrap()}, OffsetsTopics: []string{"connect-offsets"}, Refresh: 200 * time.Millisecond,
		ConfigTopic: "connect-configs", logger: log.New(io.Discard, "", 0)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := observe(ctx, g, nil)
	defer o.stop()
	o.run()
	target := func() string { cc, _ := o.store.ConnectorConfig("jdbc-shop"); return cc.TargetState }
	waitUntil(t, "the config topic to be read", func() bool { return target() == "STARTED" })
	// jdbc-crm's own offsets topic, named only in the config topic, is tailed.
	waitUntil(t, "jdbc-crm's own offsets topic to be tailed", func() bool { return slices.Contains(o.tailer.Topics(), demo.CRMOffsetsTopic) })
	if err := c.StopConnector("jdbc-shop"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the stop to be read", func() bool { return target() == "STOPPED" })
	ed := g.newEditor(o.store, o.tailer.Topics, nil, "tester", filepath.Join(t.TempDir(), "audit.jsonl"))
	if ed.Configs == nil {
		t.Fatal("the dashboard's Editor does not read the config topic")
	}
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A default config topic koff may not read (an ACL) is a warning, not a
// failure: koff goes on as without one. A config topic named by the flag
// must be read.
func TestUnreadableConfigTopicIsAWarningUnlessNamed(t *testing.T) {
	fake, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(25, "connect-offsets"), kfake.SeedTopics(1, "connect-configs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	addr := fake.ListenAddrs()[0]
	produceConnect(t, addr, [2]string{`["src",{"server":"db"}]`, `{"lsn":1}`})
	produceTo(t, addr, "connect-configs", 0, [2]string{"connector-src", `{"properties":{"connector.class":"X"}}`})
	fake.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		fake.KeepControl()
		fr := req.(*kmsg.FetchRequest)
		if len(fr.Topics) == 0 || fr.Topics[0].Topic != "connect-configs" {
			return nil, nil, false
		}
		resp := fr.ResponseKind().(*kmsg.FetchResponse)
		rt := kmsg.NewFetchResponseTopic()
		rt.Topic = "connect-configs"
		for _, p := range fr.Topics[0].Partitions {
			rp := kmsg.NewFetchResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, kerr.TopicAuthorizationFailed.Code
			rp.HighWatermark, rp.LastStableOffset, rp.LogStartOffset = -1, -1, -1
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
		return resp, nil, true
	})
	out, errs, code := koff(t, "get", "src", "-b", addr)
	if code != 0 || !strings.Contains(out, `{"lsn":1}`) || !strings.Contains(errs, "koff: warning: cannot read config topic connect-configs") || strings.Count(errs, "\n") != 1 {
		t.Errorf("get with an unreadable default config topic: exit %d %q\n%s", code, errs, out)
	}
	_, errs, code = koff(t, "get", "src", "-b", addr, "--config-topic", "connect-configs")
	if code != ExitFailed || !strings.HasPrefix(errs, "koff: cannot read config topic connect-configs") || strings.Count(errs, "\n") != 1 {
		t.Errorf("get with an unreadable named config topic: exit %d %q", code, errs)
	}
}
