package model

import (
	"fmt"
)

// TopicPartition names one partition of a Kafka topic.
type TopicPartition struct {
	Topic     string
	Partition int
}

func (tp TopicPartition) String() string { return fmt.Sprintf("%s/%d", tp.Topic, tp.Partition) }

// ConnectorID names a connector within one offsets topic (one Connect cluster).
type ConnectorID struct {
	Topic string
	Name  string
}

// PartitionID names one stored source partition: its raw key bytes in the
// topic-partition they live in. The same key in two topic-partitions is two
// entries, because compaction and "latest wins" work per topic-partition.
type PartitionID struct {
	TopicPartition
	Key string // raw key bytes
}
