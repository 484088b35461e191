package demo

import (
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"koff/model/java"
)

// historyRecords returns the offsets the connectors committed "before the
// demo started": one record per source partition with an initial offset,
// CreateTime now-age, in the connector's offsets topic (topic, the
// worker's, unless it has its own; then also a secondary copy in the
// worker's, as its commits made). The tasks then start by reading these
// back, exactly as after a restart, and idle partitions show old offsets
// from the first second.
func historyRecords(specs []connectorSpec, topic string, partitions int, start time.Time) []*kgo.Record {
	var recs []*kgo.Record
	for _, c := range specs {
		topics := []string{topic}
		if c.offsetsTopic != "" && c.offsetsTopic != topic {
			topics = []string{c.offsetsTopic, topic}
		}
		for _, parts := range c.tasks {
			for _, p := range parts {
				if p.initial == nil {
					continue
				}
				key := java.EncodeKey(c.name, p.partition)
				for _, t := range topics {
					recs = append(recs, &kgo.Record{
						Topic:     t,
						Partition: int32(java.PartitionFor(key, partitions)),
						Key:       key,
						Value:     java.AppendJackson(nil, p.initial),
						Timestamp: start.Add(-p.age),
					})
				}
			}
		}
	}
	return recs
}

// byTime orders seed records oldest first, so each partition's timestamps
// grow with its offsets, as a real history's do.
func byTime(recs []*kgo.Record) []*kgo.Record {
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Timestamp.Before(recs[j].Timestamp) })
	return recs
}
