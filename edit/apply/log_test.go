package apply

import (
	"testing"

	"koff/edit/plan"
	"koff/model"
	"koff/model/store"
)

// A worker answering Connect's DELETE or PATCH writes a partition's
// records in the order of its own map (OffsetStorageWriter.doFlush
// iterates a HashMap), not the plan's: its records are found in any
// order, among others. koff's own produce request writes them in the
// batch's order, and only that order is its batch.
func TestBatchInFindsAWorkersRecordsInItsOrder(t *testing.T) {
	tp := model.TopicPartition{Topic: "connect-offsets", Partition: 8}
	keys := []string{`["mm",{"topic":"a.heartbeats"}]`, `["mm",{"topic":"a.a.a.heartbeats"}]`}
	p := &plan.Plan{}
	for _, k := range keys {
		p.Changes = append(p.Changes, plan.Change{Writes: []plan.Write{{TopicPartition: tp, Key: []byte(k)}}})
	}
	b := batches(p)[0]
	// The worker's order: the plan's second key first, another
	// connector's record between them.
	recs := []store.Record{
		{Topic: tp.Topic, Partition: tp.Partition, Offset: 40, Key: []byte(`["mm",{"topic":"x"}]`), Value: []byte(`{"offset":1}`)},
		{Topic: tp.Topic, Partition: tp.Partition, Offset: 41, Key: []byte(keys[1])},
		{Topic: tp.Topic, Partition: tp.Partition, Offset: 42, Key: []byte(`["other",{"f":1}]`), Value: []byte(`{"offset":2}`)},
		{Topic: tp.Topic, Partition: tp.Partition, Offset: 43, Key: []byte(keys[0])},
	}
	p.Path = plan.PathREST
	if at, ok := batchIn(p, b, recs); !ok || at != 41 {
		t.Errorf("REST: batchIn = %d, %v; want the worker's records found from offset 41", at, ok)
	}
	p.Path = plan.PathTopic
	if at, ok := batchIn(p, b, recs); ok {
		t.Errorf("offsets topic: batchIn = %d, found; koff writes its batch in order, and this is not it", at)
	}
	recs[1].Key, recs[3].Key = []byte(keys[0]), []byte(keys[1])
	if at, ok := batchIn(p, b, recs); !ok || at != 41 {
		t.Errorf("offsets topic, in order: batchIn = %d, %v; want 41", at, ok)
	}
	// A record of the batch missing: not found, whatever the path.
	p.Path = plan.PathREST
	if _, ok := batchIn(p, b, recs[:2]); ok {
		t.Error("REST: found with a record missing")
	}
}
