package demo

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"koff/demo/rest"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Connect's messages for a sink whose group still has members.
const (
	msgZombieAlter = "Failed to alter consumer group offsets for connector es-search either because its tasks haven't stopped completely yet " +
		"or the connector was resumed before the request to alter its offsets could be successfully completed. If the connector is in a " +
		"stopped state, this operation can be safely retried. If it doesn't eventually succeed, the Connect cluster may need to be " +
		"restarted to get rid of the zombie sink tasks."
	msgZombieReset = "Failed to reset consumer group offsets for connector es-search either because its tasks haven't stopped completely yet " +
		"or the connector was resumed before the request to reset its offsets could be successfully completed. If the connector is in a " +
		"stopped state, this operation can be safely retried. If it doesn't eventually succeed, the Connect cluster may need to be " +
		"restarted to get rid of the zombie sink tasks."
)

var (
	sinkPartitionRE = regexp.MustCompile(`^\{"kafka_partition":[0-9]+,"kafka_topic":"(logs\.app|inventory\.public\.orders)"\}$`)
	sinkOffsetRE    = regexp.MustCompile(`^\{"kafka_offset":[0-9]+\}$`)
)

// sinkPartition is a sink partition as GET offsets serialises it.
func sinkPartition(tp topicPartition) string {
	return fmt.Sprintf(`{"kafka_partition":%d,"kafka_topic":"%s"}`, tp.partition, tp.topic)
}

// offsetsBody is a PATCH body of one entry.
func offsetsBody(partition, offset string) string {
	return `{"offsets":[{"partition":` + partition + `,"offset":` + offset + `}]}`
}

func TestRESTSinkOffsets(t *testing.T) {
	t.Parallel()
	c, api := startRESTCluster(t, testOptions(t))
	cl := kafkaClient(t, c.Bootstrap())
	const path = "/connectors/es-search/offsets"
	es, topics := c.SinkGroup("es-search"), sinkTopics["es-search"]
	notStopped := strings.ReplaceAll(msgNotStopped, "%s", "es-search")

	api.checkStatus("es-search", "RUNNING", 1)
	var cfg map[string]string
	api.json("GET", "/connectors/es-search/config", "", 200, &cfg)
	if cfg["consumer.override.group.id"] != "es-search-v2" || cfg["topics"] != "logs.app,inventory.public.orders" ||
		cfg["connector.class"] != classElasticsearch || cfg["tasks.max"] != "1" {
		t.Errorf("es-search config = %v", cfg)
	}
	waitFor(t, 10*time.Second, "es-search to consume both topics", func() bool {
		var got map[string]map[string][]string
		api.json("GET", "/connectors/es-search/topics", "", 200, &got)
		return slices.Equal(got["es-search"]["topics"], []string{"inventory.public.orders", "logs.app"})
	})

	// GET in any state: the group's committed offsets, in Connect's shape.
	waitFor(t, 10*time.Second, "es-search to commit", func() bool { return len(api.offsets("es-search")) > 0 })
	for p, o := range api.offsets("es-search") {
		if !sinkPartitionRE.MatchString(p) || !sinkOffsetRE.MatchString(o) {
			t.Errorf("GET offsets entry %s: %s", p, o)
		}
	}

	// Not STOPPED: refused, PAUSED included.
	patch := offsetsBody(`{"kafka_topic":"logs.app","kafka_partition":0}`, `{"kafka_offset":1}`)
	api.wantError("PATCH", path, patch, 400, notStopped)
	api.wantError("DELETE", path, "", 400, notStopped)
	api.wantEmpty("PUT", "/connectors/es-search/pause", 202)
	api.checkStatus("es-search", "PAUSED", 1)
	api.wantError("PATCH", path, patch, 400, notStopped)
	api.wantEmpty("PUT", "/connectors/es-search/stop", 204)
	api.checkStatus("es-search", "STOPPED", 0)
	if s, n := describe(t, cl, es); s != "Empty" || n != 0 {
		t.Errorf("group of the stopped es-search: %s with %d members", s, n)
	}

	// GET is exactly what the group committed.
	before := committed(t, cl, es, topics)
	got := api.offsets("es-search")
	n := 0
	for tp, off := range before {
		if off < 0 {
			continue
		}
		n++
		if want := fmt.Sprintf(`{"kafka_offset":%d}`, off); got[sinkPartition(tp)] != want {
			t.Errorf("GET offsets: %s = %s, group has %s", sinkPartition(tp), got[sinkPartition(tp)], want)
		}
	}
	if len(got) != n {
		t.Errorf("GET offsets lists %d partitions, the group %d: %v", len(got), n, got)
	}

	// SinkUtils.parseSinkConnectorOffsets, word for word.
	p0 := `{"kafka_topic":"logs.app","kafka_partition":0}`
	badPartition := "Failed to parse the following Kafka partition value in the provided offsets: '%s'. Partition values for sink connectors need to be integers."
	badOffset := "Failed to parse the following Kafka offset value in the provided offsets: '%s'. Offset values for sink connectors need to be integers."
	for body, msg := range map[string]string{
		`{"offsets":[{"offset":{"kafka_offset":1}}]}`:                                               "The partition for a sink connector offset cannot be null or missing",
		offsetsBody("null", "null"):                                                                 "The partition for a sink connector offset cannot be null or missing",
		offsetsBody(`{}`, "null"):                                                                   "The partition for a sink connector offset must contain the keys 'kafka_topic' and 'kafka_partition'",
		offsetsBody(`{"kafka_topic":"logs.app"}`, `{"kafka_offset":1}`):                             "The partition for a sink connector offset must contain the keys 'kafka_topic' and 'kafka_partition'",
		offsetsBody(`{"kafka_topic":null,"kafka_partition":0}`, "null"):                             "Kafka topic names must be valid strings and may not be null",
		offsetsBody(`{"kafka_topic":"logs.app","kafka_partition":null}`, "null"):                    "Kafka partitions must be valid numbers and may not be null",
		offsetsBody(`{"kafka_topic":"logs.app","kafka_partition":"not a number"}`, "null"):          fmt.Sprintf(badPartition, "not a number"),
		offsetsBody(`{"kafka_topic":"logs.app","kafka_partition":1.5}`, "null"):                     fmt.Sprintf(badPartition, "1.5"),
		offsetsBody(`{"kafka_topic":"logs.app","kafka_partition":1e0}`, "null"):                     fmt.Sprintf(badPartition, "1.0"),
		offsetsBody(`{"kafka_topic":"logs.app","kafka_partition":2147483648}`, "null"):              fmt.Sprintf(badPartition, "2147483648"),
		offsetsBody(`{"kafka_topic":"logs.app","kafka_partition":{"a":1,"b":[true,null]}}`, "null"): fmt.Sprintf(badPartition, "{a=1, b=[true, null]}"),
		offsetsBody(p0, `{}`):                                    "The offset for a sink connector should either be null or contain the key 'kafka_offset'",
		offsetsBody(p0, `{"offset":1}`):                          "The offset for a sink connector should either be null or contain the key 'kafka_offset'",
		offsetsBody(p0, `{"kafka_offset":"x"}`):                  fmt.Sprintf(badOffset, "x"),
		offsetsBody(p0, `{"kafka_offset":null}`):                 fmt.Sprintf(badOffset, "null"),
		offsetsBody(p0, `{"kafka_offset":2.5}`):                  fmt.Sprintf(badOffset, "2.5"),
		offsetsBody(p0, `{"kafka_offset":99999999999999999999}`): fmt.Sprintf(badOffset, "99999999999999999999"),
	} {
		api.wantError("PATCH", path, body, 400, msg)
	}
	// Past the parser: a negative offset (OffsetAndMetadata refuses it)
	// and a topic the broker does not know are 500s.
	api.wantError("PATCH", path, offsetsBody(p0, `{"kafka_offset":-1}`), 500, "Failed to modify offsets for sink connector es-search")
	api.wantError("PATCH", path, offsetsBody(`{"kafka_topic":"no.such.topic","kafka_partition":0}`, `{"kafka_offset":1}`),
		500, "Failed to alter consumer group offsets for connector es-search")

	// Skip the backlog: logs.app to its end (numbers or numeric strings),
	// inventory.public.orders reset with null, which deletes its offset.
	end := ends(t, cl, topics)
	var entries []string
	for p := range 3 {
		tp := topicPartition{"logs.app", int32(p)}
		if p == 0 {
			entries = append(entries, fmt.Sprintf(`{"partition":{"kafka_topic":"logs.app","kafka_partition":"0"},"offset":{"kafka_offset":"%d"}}`, end[tp]))
		} else {
			entries = append(entries, fmt.Sprintf(`{"partition":%s,"offset":{"kafka_offset":%d}}`, sinkPartition(tp), end[tp]))
		}
	}
	entries = append(entries, `{"partition":{"kafka_topic":"inventory.public.orders","kafka_partition":0},"offset":null}`)
	skip := `{"offsets":[` + strings.Join(entries, ",") + `]}`

	// A zombie member in the group: Kafka refuses commits and deletes
	// from outside, and Connect says why.
	zombie, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()), kgo.ConsumerGroup(es), kgo.ConsumeTopics("logs.app"), kgo.DisableAutoCommit())
	if err != nil {
		t.Fatal(err)
	}
	waitGroup(t, cl, es, "Stable", 1)
	api.wantError("PATCH", path, skip, 500, msgZombieAlter)
	api.wantError("PATCH", path, offsetsBody(p0, "null"), 500, msgZombieAlter)
	api.wantError("DELETE", path, "", 500, msgZombieReset)
	zombie.Close()
	waitGroup(t, cl, es, "Empty", 0)

	api.message("PATCH", path, skip, rest.MsgFrameworkAltered)
	patched := committed(t, cl, es, topics)
	for tp, off := range patched {
		want := end[tp]
		if tp.topic == "inventory.public.orders" {
			want = -1
		}
		if off != want {
			t.Errorf("after PATCH %s[%d] committed at %d, want %d", tp.topic, tp.partition, off, want)
		}
	}
	if got := api.offsets("es-search"); len(got) != 3 || got[sinkPartition(topicPartition{"logs.app", 0})] != fmt.Sprintf(`{"kafka_offset":%d}`, end[topicPartition{"logs.app", 0}]) {
		t.Errorf("GET after PATCH = %v", got)
	}

	// Resumed, it continues from the patched offsets: no logs.app
	// partition goes back to where it was before.
	api.wantEmpty("PUT", "/connectors/es-search/resume", 202)
	api.checkStatus("es-search", "RUNNING", 1)
	waitFor(t, 15*time.Second, "es-search to commit past the patched offsets", func() bool {
		for tp, off := range committed(t, cl, es, topics) {
			if tp.topic == "logs.app" && off > patched[tp] {
				return true
			}
		}
		return false
	})
	for tp, off := range committed(t, cl, es, topics) {
		if tp.topic == "logs.app" && off < patched[tp] {
			t.Errorf("resumed es-search committed %s[%d] at %d, below the patched %d", tp.topic, tp.partition, off, patched[tp])
		}
	}

	// DELETE deletes the group; a group already gone is reset too.
	api.wantEmpty("PUT", "/connectors/es-search/stop", 204)
	api.message("DELETE", path, "", rest.MsgFrameworkReset)
	if s, n := describe(t, cl, es); s != "Dead" || n != 0 {
		t.Errorf("group after DELETE: %s with %d members", s, n)
	}
	for tp, off := range committed(t, cl, es, topics) {
		if off != -1 {
			t.Errorf("after DELETE %s[%d] still committed at %d", tp.topic, tp.partition, off)
		}
	}
	if r := api.do("GET", path, ""); r.code != 200 || string(r.body) != `{"offsets":[]}` {
		t.Errorf("GET after DELETE = %d %s", r.code, r.body)
	}
	api.message("DELETE", path, "", rest.MsgFrameworkReset)
	// Deleting one partition's offset of a group that does not exist fails
	// in the broker (GROUP_ID_NOT_FOUND), as with Connect.
	api.wantError("PATCH", path, offsetsBody(p0, "null"), 500, "Failed to alter consumer group offsets for connector es-search")
}

// TestRESTSinkListing: sinks are listed with the sources, as type sink.
func TestRESTSinkListing(t *testing.T) {
	t.Parallel()
	c, api := startRESTCluster(t, testOptions(t))
	var names []string
	api.json("GET", "/connectors", "", 200, &names)
	for _, name := range []string{"es-search", "s3-archive"} {
		if !slices.Contains(names, name) {
			t.Errorf("GET /connectors = %v, without %s", names, name)
		}
	}
	api.checkStatus("s3-archive", "RUNNING", 2)
	var info struct {
		Type  string
		Tasks []struct {
			Connector string
			Task      int
		}
	}
	api.json("GET", "/connectors/s3-archive", "", 200, &info)
	if info.Type != "sink" || len(info.Tasks) != 2 {
		t.Errorf("GET /connectors/s3-archive = %+v", info)
	}
	var cfg map[string]string
	api.json("GET", "/connectors/s3-archive/config", "", 200, &cfg)
	if cfg["topics"] != "shop.orders,shop.payments" || cfg["connector.class"] != classS3 || cfg["consumer.override.group.id"] != "" {
		t.Errorf("s3-archive config = %v", cfg)
	}
	waitFor(t, 10*time.Second, "s3-archive's topics", func() bool {
		var got map[string]map[string][]string
		api.json("GET", "/connectors/s3-archive/topics", "", 200, &got)
		return slices.Equal(got["s3-archive"]["topics"], []string{"shop.orders", "shop.payments"})
	})
	if g := c.SinkGroup("s3-archive"); g != "connect-s3-archive" {
		t.Errorf("SinkGroup(s3-archive) = %q", g)
	}
}
