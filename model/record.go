package model

import (
	"fmt"
	"time"
)

// Record is one record read from an offsets topic. Key and Value are the raw
// bytes as stored; a nil Value is a tombstone.
type Record struct {
	Topic     string
	Partition int
	Offset    int64
	Key       []byte
	Value     []byte
	Time      time.Time
}

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
