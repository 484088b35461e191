package demo

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"koff/demo/rest"
	"koff/model/java"
)

// latestIn returns the newest record of a key in one offsets topic.
func latestIn(t *testing.T, cl *kafka.Client, topic string, k []byte) (rec, bool) {
	t.Helper()
	rs := byKey(readTopic(t, cl, topic, OffsetsPartitions))[string(k)]
	if len(rs) == 0 {
		return rec{}, false
	}
	return rs[len(rs)-1], true
}

// TestOwnOffsetsTopic: jdbc-crm keeps its offsets in connect-offsets-crm,
// which is authoritative; the worker's topic gets secondary copies that no
// task reads, and REST sees and edits both, as Connect does.
func TestOwnOffsetsTopic(t *testing.T) {
	t.Parallel()
	c, api := startRESTCluster(t, testOptions(t))
	cl := kafkaClient(t, c.Bootstrap())
	if got := c.OffsetsTopics(); !slices.Equal(got, []string{OffsetsTopic, CRMOffsetsTopic}) {
		t.Errorf("OffsetsTopics() = %v", got)
	}
	for name, want := range map[string]string{"jdbc-crm": CRMOffsetsTopic, "jdbc-shop": OffsetsTopic, "s3-archive": ""} {
		if info, _ := c.Connector(name); info.OffsetsTopic != want {
			t.Errorf("Connector(%s).OffsetsTopic = %q, want %q", name, info.OffsetsTopic, want)
		}
	}
	checkOffsetsTopicConfig(t, cl, CRMOffsetsTopic)
	var cfg map[string]string
	api.json("GET", "/connectors/jdbc-crm/config", "", 200, &cfg)
	if cfg["offsets.storage.topic"] != CRMOffsetsTopic || cfg["topic.prefix"] != "crm." {
		t.Errorf("jdbc-crm config = %v", cfg)
	}

	contacts := key("jdbc-crm", "protocol", "1", "table", "crm.public.contacts")
	deals := key("jdbc-crm", "protocol", "1", "table", "crm.public.deals")
	leads := key("jdbc-crm", "protocol", "1", "table", "crm.public.leads")
	waitFor(t, 10*time.Second, "jdbc-crm to flush contacts", func() bool {
		return len(byKey(readTopic(t, cl, CRMOffsetsTopic, OffsetsPartitions))[string(contacts)]) >= 3
	})

	// The worker's topic holds copies of what reached the own topic.
	global := byKey(readTopic(t, cl, OffsetsTopic, OffsetsPartitions))
	own := readTopic(t, cl, CRMOffsetsTopic, OffsetsPartitions)
	values := map[string]bool{}
	for _, r := range own {
		if !bytes.HasPrefix(r.key, []byte(`["jdbc-crm",`)) || r.partition != java.PartitionFor(r.key, OffsetsPartitions) {
			t.Errorf("%s holds %s in partition %d", CRMOffsetsTopic, r.key, r.partition)
		}
		checkRecordShape(t, r)
		values[string(r.key)+string(r.value)] = true
	}
	if len(global[string(contacts)]) < 2 {
		t.Errorf("%s has %d copies of jdbc-crm's contacts offsets", OffsetsTopic, len(global[string(contacts)]))
	}
	for _, k := range [][]byte{contacts, deals} {
		for _, r := range global[string(k)] {
			if !values[string(k)+string(r.value)] {
				t.Errorf("%s has %s = %s, which %s never had", OffsetsTopic, k, r.value, CRMOffsetsTopic)
			}
		}
	}

	api.wantEmpty("PUT", "/connectors/jdbc-crm/stop", 204)
	last := func(topic string, k []byte) rec {
		t.Helper()
		r, ok := latestIn(t, cl, topic, k)
		if !ok {
			t.Fatalf("no record of %s in %s", k, topic)
		}
		return r
	}
	preContacts := first(t, last(CRMOffsetsTopic, contacts).value)
	preDeals := last(CRMOffsetsTopic, deals)

	// Edits to the worker's topic are not what jdbc-crm reads: a changed
	// copy, and a partition only the worker's topic has (GET lists it, as
	// it lists the union of both stores, with no offset).
	writeOffset(t, cl, deals, []byte(`{"incrementing":5}`))
	writeOffset(t, cl, leads, []byte(`{"incrementing":9}`))
	got := api.offsets("jdbc-crm")
	const contactsPart, dealsPart, leadsPart = `{"protocol":"1","table":"crm.public.contacts"}`,
		`{"protocol":"1","table":"crm.public.deals"}`, `{"protocol":"1","table":"crm.public.leads"}`
	if len(got) != 3 || got[dealsPart] != string(preDeals.value) || got[leadsPart] != "null" ||
		got[contactsPart] != string(last(CRMOffsetsTopic, contacts).value) {
		t.Errorf("GET offsets of jdbc-crm = %v; own topic has deals at %s", got, preDeals.value)
	}

	// PATCH writes to the own topic, and a copy to the worker's.
	api.message("PATCH", "/connectors/jdbc-crm/offsets",
		`{"offsets":[{"partition":`+contactsPart+`,"offset":{"incrementing":100}}]}`, rest.MsgFrameworkAltered)
	for _, topic := range []string{CRMOffsetsTopic, OffsetsTopic} {
		if r := last(topic, contacts); string(r.value) != `{"incrementing":100}` || r.partition != java.PartitionFor(contacts, OffsetsPartitions) {
			t.Errorf("after PATCH %s has contacts at %s in partition %d", topic, r.value, r.partition)
		}
	}

	// Resumed, contacts continues from 100 and deals from its own topic's
	// offset, not from the 5 in the worker's.
	api.wantEmpty("PUT", "/connectors/jdbc-crm/resume", 202)
	var next rec
	waitFor(t, 10*time.Second, "jdbc-crm to flush contacts after resume", func() bool {
		next = last(CRMOffsetsTopic, contacts)
		return string(next.value) != `{"incrementing":100}`
	})
	if n := first(t, next.value); n <= 100 || n >= preContacts {
		t.Errorf("after PATCH to 100 jdbc-crm continued contacts at %d (was at %d)", n, preContacts)
	}
	waitFor(t, 10*time.Second, "jdbc-crm to flush deals after resume", func() bool {
		next = last(CRMOffsetsTopic, deals)
		return !bytes.Equal(next.value, preDeals.value)
	})
	if n := first(t, next.value); n <= first(t, preDeals.value) {
		t.Errorf("jdbc-crm continued deals at %d, before its committed %s", n, preDeals.value)
	}

	// DELETE tombstones every partition either topic knows, in both.
	api.wantEmpty("PUT", "/connectors/jdbc-crm/stop", 204)
	api.message("DELETE", "/connectors/jdbc-crm/offsets", "", rest.MsgFrameworkReset)
	for _, topic := range []string{CRMOffsetsTopic, OffsetsTopic} {
		for _, k := range [][]byte{contacts, deals, leads} {
			if r := last(topic, k); r.value != nil {
				t.Errorf("after DELETE %s has %s = %s", topic, k, r.value)
			}
		}
	}
	if r := api.do("GET", "/connectors/jdbc-crm/offsets", ""); r.code != 200 || string(r.body) != `{"offsets":[]}` {
		t.Errorf("GET after DELETE = %d %s", r.code, r.body)
	}
}
