package store

import (
	"encoding/json"
	"testing"
	"time"

	"koff/model"
	"koff/model/java"
)

func TestOffsetsBodyIsConnectsGetBody(t *testing.T) {
	s := NewStore(StoreOptions{})
	s.SetTopicPartitions("connect-offsets", 25)
	good := `["inventory-connector",{"server":"dbserver1"}]` // murmur2 → 11
	spaced := `["inventory-connector", {"server": "dbserver1"}]`
	other := `["inventory-connector",{"server":"dbserver2","db":"x<y&z"}]`
	gone := `["inventory-connector",{"server":"old"}]`
	null := `["inventory-connector",null]`
	s.Ingest([]Record{
		rec(11, 0, good, `{"lsn":18446744073709551615,"ts":1.0E20}`, 0),
		rec(5, 0, spaced, `{"lsn":1}`, time.Hour), // newer, but misplaced: the worker never reads it
		rec(2, 0, other, `{"lsn":9007199254740993}`, 0),
		rec(3, 0, gone, `{"lsn":1}`, 0),
		rec(3, 1, gone, ``, time.Minute),
		rec(4, 0, null, `{"lsn":5}`, 0),
	})
	body := string(model.OffsetsBody(s.Partitions(model.ConnectorID{Topic: "connect-offsets", Name: "inventory-connector"})))
	want := `{"offsets":[` +
		`{"partition":{"server":"dbserver1"},"offset":{"lsn":18446744073709551615,"ts":1.0E20}},` +
		`{"partition":{"server":"dbserver2","db":"x<y&z"},"offset":{"lsn":9007199254740993}}]}`
	if body != want {
		t.Errorf("body\n got %s\nwant %s", body, want)
	}
	if got := string(model.OffsetsBody(nil)); got != `{"offsets":[]}` {
		t.Errorf("empty body = %s", got)
	}
}

func TestRESTKeyAndValueAreWhatTheWorkerWrites(t *testing.T) {
	p := java.Object{{Name: "table", Value: "t1"}, {Name: "database", Value: "db"}, {Name: "schema", Value: "public"}, {Name: "a", Value: json.Number("1")}}
	if got := string(model.RESTKey("my-connector", p)); got != `["my-connector",{"schema":"public","a":1,"database":"db","table":"t1"}]` {
		t.Errorf("RESTKey = %s", got)
	}
	v := java.Object{{Name: "position", Value: json.Number("1.50")}, {Name: "lsn", Value: json.Number("9223372036854775807")}}
	if got := string(model.RESTValue(v)); got != `{"lsn":9223372036854775807,"position":1.5}` && got != `{"position":1.5,"lsn":9223372036854775807}` {
		t.Errorf("RESTValue = %s", got)
	}
	if !model.SameJSON(p, java.Object{{Name: "a", Value: json.Number("1")}, {Name: "schema", Value: "public"}, {Name: "database", Value: "db"}, {Name: "table", Value: "t1"}}) {
		t.Error("SameJSON should ignore field order")
	}
	if model.SameJSON(p, java.Object{{Name: "a", Value: json.Number("2")}}) {
		t.Error("SameJSON matched different maps")
	}
}

func TestSinkOffsetsBodyIsConnectsSinkShape(t *testing.T) {
	rows := []model.SinkPartitionRow{
		{GroupPartition: model.GroupPartition{TopicPartition: model.TopicPartition{Topic: "logs.app", Partition: 1}, Committed: 42}},
		{GroupPartition: model.GroupPartition{TopicPartition: model.TopicPartition{Topic: "logs.app", Partition: 2}, Committed: -1}},
	}
	want := `{"offsets":[{"partition":{"kafka_partition":1,"kafka_topic":"logs.app"},"offset":{"kafka_offset":42}}]}`
	if got := string(model.SinkOffsetsBody(rows)); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
