package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"koff/model"
	"koff/model/java"
)

// shape is what a connector's keys and values look like: field names in
// the order the connector writes them.
type shape struct {
	partition []string
	offset    []string
}

var shapes = map[string]shape{
	"debezium-inventory": {[]string{"server"}, []string{"lsn_proc", "lsn_commit", "lsn", "txId", "ts_usec"}},
	"file-logs":          {[]string{"filename"}, []string{"position"}},
	"jdbc-billing":       {[]string{"protocol", "table"}, []string{"timestamp_nanos", "incrementing", "timestamp"}},
	"jdbc-crm":           {[]string{"protocol", "table"}, []string{"incrementing"}}, // secondary copies
	"jdbc-old-orders":    {[]string{"protocol", "table"}, []string{"incrementing"}}, // the orphan
	"jdbc-legacy":        {[]string{"protocol", "table"}, []string{"incrementing"}},
	"jdbc-shop":          {[]string{"protocol", "table"}, []string{"incrementing"}},
	"mm2-primary":        {[]string{"cluster", "partition", "topic"}, []string{"offset"}},
}

var integer = regexp.MustCompile(`^-?[0-9]+$`)

func names(o java.Object) []string {
	var out []string
	for _, f := range o {
		out = append(out, f.Name)
	}
	return out
}

func mustNumber(t *testing.T, o java.Object, name string) int64 {
	t.Helper()
	n, err := intField(o, name)
	if err != nil {
		t.Fatalf("%v in %v", err, o)
	}
	return n
}

// first returns the first field of an offset: the position in all the
// shapes checked for progress here.
func first(t *testing.T, raw []byte) int64 {
	t.Helper()
	off, err := model.ParseOffset(raw)
	if err != nil || len(off) == 0 {
		t.Fatalf("offset %s: %v", raw, err)
	}
	return mustNumber(t, off, off[0].Name)
}

func key(connector string, kv ...any) []byte { return java.EncodeKey(connector, obj(kv...)) }

func TestOffsetsTopic(t *testing.T) {
	opts := testOptions(t)
	c := startCluster(t, opts)
	started := time.Now()
	if got := c.Connectors(); !slices.Equal(got, []string{
		"debezium-inventory", "es-search", "file-logs", "jdbc-billing", "jdbc-crm", "jdbc-legacy", "jdbc-shop", "mm2-primary", "s3-archive",
	}) {
		t.Fatalf("Connectors() = %v", got)
	}
	cl := kafkaClient(t, c.Bootstrap())
	checkOffsetsTopicConfig(t, cl, c.OffsetsTopic())

	time.Sleep(opts.StallAfter + 6*opts.FlushInterval)
	recs := readTopic(t, cl, OffsetsTopic, OffsetsPartitions)
	legacyData := endOffsets(t, cl, "legacy.accounts", 3) + endOffsets(t, cl, "legacy.audit_log", 3)

	defects := map[string]bool{DefectNotJSON: false, DefectOneElement: false, DefectHandEdited: false}
	seen := map[string]bool{} // key + CreateTime: one record per partition per flush
	for _, r := range recs {
		if r.headers != 0 {
			t.Errorf("%s: %d headers, want none", r.key, r.headers)
		}
		if r.value == nil {
			t.Errorf("%s: unexpected tombstone", r.key)
			continue
		}
		murmur := java.PartitionFor(r.key, OffsetsPartitions)
		if _, ok := defects[string(r.key)]; ok {
			defects[string(r.key)] = true
			wrong := string(r.key) == DefectHandEdited
			if (r.partition != murmur) != wrong {
				t.Errorf("defect %s in partition %d, murmur2 %d", r.key, r.partition, murmur)
			}
			continue
		}
		if r.partition != murmur {
			t.Errorf("%s in partition %d, want murmur2 partition %d", r.key, r.partition, murmur)
		}
		id := fmt.Sprintf("%s@%d", r.key, r.time.UnixMilli())
		if seen[id] {
			t.Errorf("two records for %s in one flush", id)
		}
		seen[id] = true
		checkRecordShape(t, r)
	}
	for k, found := range defects {
		if !found {
			t.Errorf("seeded defect %s missing", k)
		}
	}

	groups := byKey(recs)
	// Idle partitions keep only the offset committed before the demo.
	for _, k := range [][]byte{
		key("jdbc-shop", "protocol", "1", "table", "shop.public.customers"),
		key("mm2-primary", "cluster", "primary", "partition", num(5), "topic", "payments"),
	} {
		if rs := groups[string(k)]; len(rs) != 1 || time.Since(rs[0].time) < 30*time.Minute {
			t.Errorf("idle partition %s: %d records, want only the old seeded one", k, len(rs))
		}
	}
	// Busy partitions are flushed repeatedly, each flush at least one
	// interval after the end of the previous one, and only move forward.
	for _, k := range [][]byte{
		key("jdbc-shop", "protocol", "1", "table", "shop.public.order_items"),
		key("file-logs", "filename", "/var/log/app-1.log"),
		key("debezium-inventory", "server", "inventory"),
	} {
		rs := groups[string(k)]
		if len(rs) < 4 {
			t.Errorf("busy partition %s: only %d records", k, len(rs))
			continue
		}
		for i := 2; i < len(rs); i++ { // rs[0] is the seeded history
			if gap := rs[i].time.Sub(rs[i-1].time); gap < opts.FlushInterval-2*time.Millisecond {
				t.Errorf("%s: flushes %s apart, interval %s", k, gap, opts.FlushInterval)
			}
			if first(t, rs[i].value) <= first(t, rs[i-1].value) {
				t.Errorf("%s: offset went from %s to %s", k, rs[i-1].value, rs[i].value)
			}
		}
	}
	// The hand-edited record (position 0) is not what file-logs reads.
	app1 := groups[string(key("file-logs", "filename", "/var/log/app-1.log"))]
	if last := app1[len(app1)-1]; !bytes.HasPrefix(last.value, []byte(`{"position":18`)) {
		t.Errorf("file-logs app-1.log continued from %s; the hand-edited defect must not be read", last.value)
	}

	// jdbc-legacy flushed at first, then stalled while producing data.
	var legacy []rec
	for _, r := range recs {
		if bytes.HasPrefix(r.key, []byte(`["jdbc-legacy",`)) && r.time.After(started.Add(-time.Second)) {
			legacy = append(legacy, r)
		}
	}
	if len(legacy) == 0 {
		t.Fatal("jdbc-legacy never flushed")
	}
	for _, r := range legacy {
		if r.time.After(started.Add(opts.StallAfter + opts.FlushInterval)) {
			t.Errorf("jdbc-legacy flushed at +%s, after StallAfter %s", r.time.Sub(started), opts.StallAfter)
		}
	}
	time.Sleep(4 * opts.FlushInterval)
	after := readTopic(t, cl, OffsetsTopic, OffsetsPartitions)
	var legacyAfter int
	for _, r := range after {
		if bytes.HasPrefix(r.key, []byte(`["jdbc-legacy",`)) && r.time.After(started.Add(-time.Second)) {
			legacyAfter++
		}
	}
	if legacyAfter != len(legacy) {
		t.Errorf("stalled jdbc-legacy wrote %d more offset records", legacyAfter-len(legacy))
	}
	if len(after) <= len(recs) {
		t.Errorf("other connectors stopped flushing too (%d then %d records)", len(recs), len(after))
	}
	if n := endOffsets(t, cl, "legacy.accounts", 3) + endOffsets(t, cl, "legacy.audit_log", 3); n <= legacyData {
		t.Errorf("stalled jdbc-legacy stopped producing data (%d then %d)", legacyData, n)
	}
}

func checkOffsetsTopicConfig(t *testing.T, cl *kafka.Client, topic string) {
	t.Helper()
	ctx := context.Background()
	md, err := cl.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{topic}})
	if err != nil {
		t.Fatal(err)
	}
	if len(md.Topics) != 1 || len(md.Topics[0].Partitions) != OffsetsPartitions {
		t.Fatalf("metadata for %s: %+v", topic, md.Topics)
	}
	dc, err := cl.DescribeConfigs(ctx, &kafka.DescribeConfigsRequest{Resources: []kafka.DescribeConfigRequestResource{{
		ResourceType: kafka.ResourceTypeTopic, ResourceName: topic, ConfigNames: []string{"cleanup.policy"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	var policy string
	for _, r := range dc.Resources {
		for _, e := range r.ConfigEntries {
			if e.ConfigName == "cleanup.policy" {
				policy = e.ConfigValue
			}
		}
	}
	if policy != "compact" {
		t.Errorf("%s cleanup.policy = %q, want compact", topic, policy)
	}
}

// checkRecordShape checks that a record is what the named connector writes:
// compact Jackson key and value, field order, integral numbers.
func checkRecordShape(t *testing.T, r rec) {
	t.Helper()
	k, err := model.ParseKey(r.key)
	if err != nil {
		t.Errorf("key %s: %v", r.key, err)
		return
	}
	sh, ok := shapes[k.Connector]
	if !ok {
		t.Errorf("key %s: unknown connector %q", r.key, k.Connector)
		return
	}
	if !slices.Equal(names(k.Partition), sh.partition) {
		t.Errorf("key %s: partition fields %v, want %v", r.key, names(k.Partition), sh.partition)
	}
	// Every demo connector builds its partition in a HashMap, so its keys
	// are also what a REST edit writes.
	if !bytes.Equal(r.key, java.EncodeKey(k.Connector, k.Partition)) || !model.IsRESTCanonical(k, r.key) {
		t.Errorf("key %s is not compact Jackson in HashMap order", r.key)
	}
	off, err := model.ParseOffset(r.value)
	if err != nil {
		t.Errorf("value %s of %s: %v", r.value, r.key, err)
		return
	}
	if !slices.Equal(names(off), sh.offset) {
		t.Errorf("value %s: fields %v, want %v", r.value, names(off), sh.offset)
	}
	if !bytes.Equal(r.value, java.AppendJackson(nil, off)) {
		t.Errorf("value %s is not compact Jackson", r.value)
	}
	for _, f := range off {
		if n, ok := f.Value.(json.Number); !ok || !integer.MatchString(string(n)) {
			t.Errorf("value %s: %s = %v is not an integer", r.value, f.Name, f.Value)
		}
	}
	switch k.Connector {
	case "jdbc-shop", "jdbc-billing", "jdbc-legacy", "jdbc-crm", "jdbc-old-orders":
		if v, _ := k.Partition.Get("protocol"); v != "1" {
			t.Errorf("key %s: protocol %v", r.key, v)
		}
		table, _ := k.Partition.Get("table")
		prefix := map[string]string{"jdbc-shop": "shop.public.", "jdbc-billing": "billing.public.", "jdbc-legacy": "legacy.public.",
			"jdbc-crm": "crm.public.", "jdbc-old-orders": "orders.public."}
		if s, _ := table.(string); !strings.HasPrefix(s, prefix[k.Connector]) {
			t.Errorf("key %s: table %v", r.key, table)
		}
	case "debezium-inventory":
		checkLSNs(t, r.value, off)
	case "mm2-primary":
		p := mustNumber(t, k.Partition, "partition")
		topic, _ := k.Partition.Get("topic")
		if p < 0 || p > 7 || !slices.Contains([]any{"orders", "payments", "clicks"}, topic) {
			t.Errorf("key %s: not a mirrored partition", r.key)
		}
	case "file-logs":
		if f, _ := k.Partition.Get("filename"); f != "/var/log/app-1.log" {
			t.Errorf("key %s: unknown file", r.key)
		}
	}
}

// checkLSNs checks that Debezium's LSNs are beyond float64's exact range and
// written digit for digit in the raw bytes.
func checkLSNs(t *testing.T, raw []byte, off java.Object) {
	t.Helper()
	limit := new(big.Int).Lsh(big.NewInt(1), 53)
	for _, f := range []string{"lsn", "lsn_proc", "lsn_commit"} {
		v, _ := off.Get(f)
		digits := string(v.(json.Number))
		n, ok := new(big.Int).SetString(digits, 10)
		if !ok || n.Cmp(limit) <= 0 {
			t.Errorf("%s = %s, want an integer above 2^53", f, digits)
		}
		if !bytes.Contains(raw, []byte(`"`+f+`":`+digits+`,`)) {
			t.Errorf("%s = %s not written exactly in %s", f, digits, raw)
		}
	}
}
