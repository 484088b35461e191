package demo

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"koff/demo/rest"
	"koff/model"
	"koff/model/java"
)

// offsets returns GET /connectors/NAME/offsets as partition (compact JSON,
// as served) → offset (compact JSON, "null" for null), checking the shape.
func (c *restClient) offsets(name string) map[string]string {
	c.t.Helper()
	r := c.do("GET", "/connectors/"+name+"/offsets", "")
	var body struct {
		Offsets []struct {
			Partition json.RawMessage `json:"partition"`
			Offset    json.RawMessage `json:"offset"`
		} `json:"offsets"`
	}
	if r.code != 200 || r.ct != "application/json" || !bytes.HasPrefix(r.body, []byte(`{"offsets":[`)) {
		c.t.Fatalf("GET offsets of %s = %d %q %s", name, r.code, r.ct, r.body)
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		c.t.Fatalf("GET offsets of %s: %v in %s", name, err, r.body)
	}
	out := map[string]string{}
	for _, o := range body.Offsets {
		if o.Partition == nil || o.Offset == nil {
			c.t.Fatalf("GET offsets of %s: entry without partition or offset in %s", name, r.body)
		}
		out[string(o.Partition)] = string(o.Offset)
	}
	return out
}

// message checks a 200 answer {"message": msg}.
func (c *restClient) message(method, path, body, msg string) {
	c.t.Helper()
	var m map[string]string
	c.json(method, path, body, 200, &m)
	if m["message"] != msg || len(m) != 1 {
		c.t.Errorf("%s %s = %v, want message %q", method, path, m, msg)
	}
}

// flushedAfter waits for the connector's next record of a key whose value
// differs from skip, and returns that value.
func flushedAfter(t *testing.T, c *Cluster, k []byte, skip string) []byte {
	t.Helper()
	cl := kafkaClient(t, c.Bootstrap())
	var got []byte
	waitFor(t, 10*time.Second, "a flush of "+string(k), func() bool {
		r, ok := latest(t, cl, k)
		if ok && r.value != nil && string(r.value) != skip {
			got = r.value
			return true
		}
		return false
	})
	return got
}

// TestRESTAlterThenResume: stop, PATCH an offset back, resume; the
// connector continues from the patched position.
func TestRESTAlterThenResume(t *testing.T) {
	t.Parallel()
	c, api := startRESTCluster(t, testOptions(t))
	cl := kafkaClient(t, c.Bootstrap())
	orders := []byte(`["jdbc-shop",{"protocol":"1","table":"shop.public.orders"}]`)
	if k, err := model.ParseKey(orders); err != nil || !model.IsRESTCanonical(k, orders) {
		t.Fatalf("jdbc keys are expected in HashMap order (%v)", err)
	}
	waitFor(t, 10*time.Second, "jdbc-shop to flush orders", func() bool {
		return len(byKey(readTopic(t, cl, OffsetsTopic, OffsetsPartitions))[string(orders)]) >= 3
	})

	api.wantEmpty("PUT", "/connectors/jdbc-shop/stop", 204)
	api.checkStatus("jdbc-shop", "STOPPED", 0)
	var info struct{ Tasks []any }
	api.json("GET", "/connectors/jdbc-shop", "", 200, &info)
	if len(info.Tasks) != 0 {
		t.Errorf("info of a stopped connector lists tasks %v", info.Tasks)
	}

	// GET shows what the tasks committed, partitions in HashMap order.
	before, _ := latest(t, cl, orders)
	preEdit := first(t, before.value)
	got := api.offsets("jdbc-shop")
	if len(got) != 4 {
		t.Errorf("jdbc-shop offsets = %v, want 4 partitions", got)
	}
	const ordersPart = `{"protocol":"1","table":"shop.public.orders"}`
	if got[ordersPart] != string(before.value) {
		t.Errorf("GET offsets: orders at %s, topic has %s", got[ordersPart], before.value)
	}

	// PATCH the orders table back to 100, in the request's field order.
	const edited = 100
	api.message("PATCH", "/connectors/jdbc-shop/offsets",
		`{"offsets":[{"partition":{"table":"shop.public.orders","protocol":"1"},"offset":{"incrementing":100}}]}`,
		rest.MsgFrameworkAltered)
	recs := byKey(readTopic(t, cl, OffsetsTopic, OffsetsPartitions))[string(orders)]
	last := recs[len(recs)-1]
	if string(last.value) != `{"incrementing":100}` || last.partition != java.PartitionFor(orders, OffsetsPartitions) {
		t.Errorf("PATCH wrote %s to partition %d, want {\"incrementing\":100} in %d", last.value, last.partition, java.PartitionFor(orders, OffsetsPartitions))
	}
	if got := api.offsets("jdbc-shop")[ordersPart]; got != `{"incrementing":100}` {
		t.Errorf("GET after PATCH: orders at %s", got)
	}

	api.wantEmpty("PUT", "/connectors/jdbc-shop/resume", 202)
	api.checkStatus("jdbc-shop", "RUNNING", 2)
	next := first(t, flushedAfter(t, c, orders, `{"incrementing":100}`))
	if next <= edited || next >= preEdit {
		t.Errorf("after PATCH to %d jdbc-shop continued at %d (was at %d)", edited, next, preEdit)
	}
}

// TestRESTPauseKeepsOffsets: a paused connector flushes nothing, and on
// resume continues from the offsets its tasks held, not from the topic.
func TestRESTPauseKeepsOffsets(t *testing.T) {
	t.Parallel()
	opts := testOptions(t)
	c, api := startRESTCluster(t, opts)
	cl := kafkaClient(t, c.Bootstrap())
	orders := key("jdbc-shop", "protocol", "1", "table", "shop.public.orders")
	waitFor(t, 10*time.Second, "jdbc-shop to flush orders", func() bool {
		return len(byKey(readTopic(t, cl, OffsetsTopic, OffsetsPartitions))[string(orders)]) >= 2
	})

	api.wantEmpty("PUT", "/connectors/jdbc-shop/pause", 202)
	api.checkStatus("jdbc-shop", "PAUSED", 2)
	shopRecords := func() int {
		n := 0
		for _, r := range readTopic(t, cl, OffsetsTopic, OffsetsPartitions) {
			if bytes.HasPrefix(r.key, []byte(`["jdbc-shop",`)) {
				n++
			}
		}
		return n
	}
	n := shopRecords()
	paused, _ := latest(t, cl, orders)
	held := first(t, paused.value)
	time.Sleep(3 * opts.FlushInterval)
	if m := shopRecords(); m != n {
		t.Errorf("paused jdbc-shop wrote %d offset records", m-n)
	}

	// An edit straight to the topic while paused is not what it resumes from.
	writeOffset(t, cl, orders, []byte(`{"incrementing":100}`))
	api.wantEmpty("PUT", "/connectors/jdbc-shop/resume", 202)
	if next := first(t, flushedAfter(t, c, orders, `{"incrementing":100}`)); next <= held {
		t.Errorf("resumed from PAUSED at %d; its tasks held %d", next, held)
	}

	// Paused, then stopped: a resume reads the topic again.
	api.wantEmpty("PUT", "/connectors/jdbc-shop/pause", 202)
	api.wantEmpty("PUT", "/connectors/jdbc-shop/stop", 204)
	api.checkStatus("jdbc-shop", "STOPPED", 0)
	api.message("PATCH", "/connectors/jdbc-shop/offsets",
		`{"offsets":[{"partition":{"protocol":"1","table":"shop.public.orders"},"offset":{"incrementing":200}}]}`, rest.MsgFrameworkAltered)
	api.wantEmpty("PUT", "/connectors/jdbc-shop/resume", 202)
	if next := first(t, flushedAfter(t, c, orders, `{"incrementing":200}`)); next <= 200 || next >= held {
		t.Errorf("resumed from STOPPED after PATCH to 200 at %d", next)
	}
}

// TestRESTReset: DELETE tombstones every partition; a partition stored
// under non-HashMap-order key bytes reads as "offset":null and survives a
// reset, Connect's own pitfall.
func TestRESTReset(t *testing.T) {
	t.Parallel()
	c, api := startRESTCluster(t, testOptions(t))
	cl := kafkaClient(t, c.Bootstrap())

	api.wantEmpty("PUT", "/connectors/debezium-inventory/stop", 204)
	if got := api.offsets("debezium-inventory"); len(got) != 1 || !strings.Contains(got[`{"server":"inventory"}`], `"lsn":`) {
		t.Errorf("debezium-inventory offsets = %v", got)
	}
	api.message("DELETE", "/connectors/debezium-inventory/offsets", "", rest.MsgFrameworkReset)
	if r := api.do("GET", "/connectors/debezium-inventory/offsets", ""); r.code != 200 || string(r.body) != `{"offsets":[]}` {
		t.Errorf("GET after DELETE = %d %s", r.code, r.body)
	}
	api.message("DELETE", "/connectors/debezium-inventory/offsets", "", rest.MsgFrameworkReset) // nothing left: still fine

	// A hand-written key with the fields in another order than HashMap's.
	api.wantEmpty("PUT", "/connectors/jdbc-billing/stop", 204)
	hand := []byte(`["jdbc-billing",{"table":"billing.public.refunds","protocol":"1"}]`)
	restKey := []byte(`["jdbc-billing",{"protocol":"1","table":"billing.public.refunds"}]`)
	if k, _ := model.ParseKey(hand); model.IsRESTCanonical(k, hand) || !bytes.Equal(model.RESTKey(k.Connector, k.Partition), restKey) {
		t.Fatal("test key is in HashMap order")
	}
	writeOffset(t, cl, hand, []byte(`{"incrementing":7}`))
	got := api.offsets("jdbc-billing")
	if len(got) != 3 || got[`{"protocol":"1","table":"billing.public.refunds"}`] != "null" ||
		!strings.Contains(got[`{"protocol":"1","table":"billing.public.invoices"}`], `"incrementing":`) {
		t.Errorf("jdbc-billing offsets with a hand-written key = %v", got)
	}

	api.message("DELETE", "/connectors/jdbc-billing/offsets", "", rest.MsgFrameworkReset)
	recs := byKey(readTopic(t, cl, OffsetsTopic, OffsetsPartitions))
	if rs := recs[string(hand)]; len(rs) == 0 || rs[len(rs)-1].value == nil {
		t.Error("the hand-written key did not survive DELETE")
	}
	if rs := recs[string(restKey)]; len(rs) != 1 || rs[0].value != nil || rs[0].partition != java.PartitionFor(restKey, OffsetsPartitions) {
		t.Errorf("DELETE wrote %+v under the HashMap-order key, want one tombstone in its murmur2 partition", rs)
	}
	// Whether the survivor is listed depends on read order (a tombstone
	// removes its partition by content); if it is, it has no offset.
	for p, o := range api.offsets("jdbc-billing") {
		if p != `{"protocol":"1","table":"billing.public.refunds"}` || o != "null" {
			t.Errorf("after DELETE, GET lists %s: %s", p, o)
		}
	}
}

// TestRESTConnectorValidation: FileStream and MirrorMaker connectors check
// offsets in alterOffsets (500 with their messages) and say so on success.
func TestRESTConnectorValidation(t *testing.T) {
	t.Parallel()
	c, api := startRESTCluster(t, testOptions(t))
	cl := kafkaClient(t, c.Bootstrap())

	api.wantEmpty("PUT", "/connectors/file-logs/stop", 204)
	const file = `{"offsets":[{"partition":{"filename":"/var/log/app-1.log"},"offset":%s}]}`
	patch := func(offset string) string { return strings.Replace(file, "%s", offset, 1) }
	for offset, msg := range map[string]string{
		`{"position":-1}`:  "The value for the 'position' key in the offset should be a non-negative value",
		`{"position":"1"}`: "The value for the 'position' key in the offset is expected to be a Long value",
		`{"position":1.0}`: "The value for the 'position' key in the offset is expected to be a Long value",
		`{}`:               "Offset objects should either be null or contain the key 'position'",
	} {
		api.wantError("PATCH", "/connectors/file-logs/offsets", patch(offset), 500, msg)
	}
	api.wantError("PATCH", "/connectors/file-logs/offsets", `{"offsets":[{"partition":{"file":"x"},"offset":{"position":1}}]}`,
		500, "Partition objects should contain the key 'filename'")
	api.message("PATCH", "/connectors/file-logs/offsets", patch(`{"position":42}`), rest.MsgAltered)
	api.message("DELETE", "/connectors/file-logs/offsets", "", rest.MsgReset)

	api.wantEmpty("PUT", "/connectors/mm2-primary/stop", 204)
	api.wantError("PATCH", "/connectors/mm2-primary/offsets", `{"offsets":[{"partition":{"topic":"orders","partition":2},"offset":{"offset":5}}]}`,
		500, "Source partition {partition=2, topic=orders} is missing the 'cluster' key, which is required")
	api.wantError("PATCH", "/connectors/mm2-primary/offsets", `{"offsets":[{"partition":{"topic":"orders","partition":2,"cluster":"primary"},"offset":{"offset":-1}}]}`,
		500, "Source offset {offset=-1} for source partition {cluster=primary, partition=2, topic=orders} has an invalid value -1 for the 'offset' key, which cannot be negative")
	// Tombstones are never validated.
	api.message("PATCH", "/connectors/mm2-primary/offsets", `{"offsets":[{"partition":{"junk":true},"offset":null}]}`, rest.MsgAltered)

	// Numbers normalised, fields in HashMap order, murmur2 partition.
	api.message("PATCH", "/connectors/mm2-primary/offsets",
		`{"offsets":[{"partition":{"topic":"orders","partition":2,"cluster":"primary"},"offset":{"offset":5}}]}`, rest.MsgAltered)
	want := []byte(`["mm2-primary",{"cluster":"primary","partition":2,"topic":"orders"}]`)
	rs := byKey(readTopic(t, cl, OffsetsTopic, OffsetsPartitions))[string(want)]
	if len(rs) == 0 || string(rs[len(rs)-1].value) != `{"offset":5}` || rs[len(rs)-1].partition != java.PartitionFor(want, OffsetsPartitions) {
		t.Errorf("PATCH of mm2-primary wrote %+v", rs)
	}
}
