package store

import (
	"testing"
	"time"

	"koff/model"
)

// Records koff announced (a REST edit the worker writes) or that carry its
// header (a direct write) are kept as updates but are no flush events, and
// no gap between a partition's updates; the connector's own records are.
func TestKoffRecordsAreNoFlushes(t *testing.T) {
	s := NewStore(StoreOptions{})
	t0 := time.Unix(1_000_000, 0)
	key := []byte(`["c",{"t":1}]`)
	rec := func(off int64, at time.Duration, value string) Record {
		return Record{Topic: "connect-offsets", Partition: 3, Offset: off, Key: key, Value: []byte(value), Time: t0.Add(at)}
	}
	s.Ingest([]Record{rec(0, 0, `{"o":1}`)})
	s.Ingest([]Record{rec(1, time.Minute, `{"o":2}`)})
	// koff's edits: one announced with no topic-partition (REST), one with
	// its header, then the connector's next commit.
	s.KoffWrites([]Record{{Key: key, Value: []byte(`{"o":9}`)}}, t0)
	s.Ingest([]Record{rec(2, 70*time.Second, `{"o":9}`)})
	h := rec(3, 80*time.Second, `{"o":8}`)
	h.Koff = true
	s.Ingest([]Record{h})
	s.Ingest([]Record{rec(4, 2*time.Minute, `{"o":10}`)})

	row := s.Connectors()[0]
	if len(row.Flushes) != 3 || !row.Flushes[2].End.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("flushes %+v, want the connector's three commits", row.Flushes)
	}
	if row.PartitionInterval != time.Minute {
		t.Errorf("interval %s, want 1m: koff's records are no gaps", row.PartitionInterval)
	}
	if d, _ := s.Partition(model.PartitionID{TopicPartition: model.TopicPartition{Topic: "connect-offsets", Partition: 3}, Key: string(key)}); len(d.History) != 5 {
		t.Errorf("history %d updates, want all 5", len(d.History))
	}
	// An announced record is taken once: the same bytes again are a commit.
	s.KoffWrites([]Record{{Topic: "connect-offsets", Partition: 3, Key: key, Value: []byte(`{"o":11}`)}}, t0)
	s.Ingest([]Record{rec(5, 3*time.Minute, `{"o":11}`), rec(6, 4*time.Minute, `{"o":11}`)})
	if n := len(s.Connectors()[0].Flushes); n != 4 {
		t.Errorf("%d flushes, want 4", n)
	}
}

// A connector whose every offset is deleted is not "ok: flushing", however
// recent its tombstones.
func TestDeletedConnectorIsNotFlushing(t *testing.T) {
	s := NewStore(StoreOptions{})
	now := time.Now()
	key := []byte(`["gone",{"t":1}]`)
	s.Ingest([]Record{{Topic: "connect-offsets", Offset: 0, Key: key, Value: []byte(`{"o":1}`), Time: now.Add(-time.Minute)}})
	s.Ingest([]Record{{Topic: "connect-offsets", Offset: 1, Key: key, Time: now}})
	rep := s.Connectors()[0].Flush(now, time.Minute)
	if rep.Status == model.FlushOK {
		t.Errorf("flush %s (%s), want not ok", rep.Status, rep.Reason)
	}
}
