package store

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"koff/model"
	"koff/model/java"
)

// TestHistoriesSameAsPartitionDetail: the histories read together are the
// ones Partition gives one by one, and nil for a partition not stored.
func TestHistoriesSameAsPartitionDetail(t *testing.T) {
	s := NewStore(StoreOptions{History: 4})
	s.SetTopicPartitions("connect-offsets", 25)
	at := time.UnixMilli(1_796_000_000_000)
	var ids []model.PartitionID
	for k := range 5 {
		key := fmt.Sprintf(`["c",{"table":"t%d"}]`, k)
		p := java.PartitionFor([]byte(key), 25)
		ids = append(ids, model.PartitionID{TopicPartition: model.TopicPartition{Topic: "connect-offsets", Partition: p}, Key: key})
		for i := range k * 3 {
			rec := Record{Topic: "connect-offsets", Partition: p, Offset: s.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: p}),
				Key: []byte(key), Value: []byte(fmt.Sprintf(`{"id":%d}`, i)), Time: at.Add(time.Duration(i) * time.Second)}
			if i == 4 {
				rec.Value = nil // a tombstone stays in the history
			}
			s.Ingest([]Record{rec})
		}
	}
	ids = append(ids, model.PartitionID{TopicPartition: model.TopicPartition{Topic: "connect-offsets", Partition: 1}, Key: `["c",{"table":"none"}]`})
	got := s.Histories(ids)
	for i, id := range ids {
		d, ok := s.Partition(id)
		if !ok {
			if got[i] != nil {
				t.Fatalf("%s: history %v for a partition not stored", id.Key, got[i])
			}
			continue
		}
		if !slices.EqualFunc(got[i], d.History, func(a, b model.Update) bool {
			return a.Time.Equal(b.Time) && a.RecordOffset == b.RecordOffset && string(a.Value) == string(b.Value) && (a.Value == nil) == (b.Value == nil)
		}) {
			t.Fatalf("%s: Histories %v, Partition %v", id.Key, got[i], d.History)
		}
	}
}
