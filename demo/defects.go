package demo

import (
	"hash/crc32"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"koff/model/java"
)

// The defects seeded once on connect-offsets when the demo starts: the
// mistakes operators make by hand and koff exists to flag. They never change
// and no simulated task reads them.
const (
	// DefectNotJSON is a key that is not JSON at all (a stray test message).
	// Connect logs "Ignoring offset partition key with unknown
	// serialization. Expected json." and skips it.
	DefectNotJSON = `not json at all`
	// DefectOneElement is a key array without its partition map; Connect
	// logs "... unexpected number of elements. Expected: 2, actual: 1".
	DefectOneElement = `["only-one-element"]`
	// DefectHandEdited is a hand-edited file-logs offset: the key has
	// spaces, so its bytes differ from what the task looks up, and kcat's
	// default partitioner (consistent_random, CRC32) put it outside the key's
	// murmur2 partition. The task never sees it: file-logs keeps reading
	// app-1.log where it was, not from position 0.
	DefectHandEdited = `["file-logs", {"filename": "/var/log/app-1.log"}]`
)

// defectRecords returns the seeded defects with CreateTimes in the past (the
// edits were made days ago).
func defectRecords(topic string, partitions int, start time.Time) []*kgo.Record {
	rec := func(key, value string, partition int, age time.Duration) *kgo.Record {
		return &kgo.Record{
			Topic:     topic,
			Partition: int32(partition),
			Key:       []byte(key),
			Value:     []byte(value),
			Timestamp: start.Add(-age),
		}
	}
	return []*kgo.Record{
		// Produced by a Java client, so murmur2 placed them.
		rec(DefectNotJSON, `{"offset":1}`, java.PartitionFor([]byte(DefectNotJSON), partitions), 50*time.Hour),
		rec(DefectOneElement, `{"position":0}`, java.PartitionFor([]byte(DefectOneElement), partitions), 30*time.Hour),
		rec(DefectHandEdited, `{"position":0}`, kcatPartition([]byte(DefectHandEdited), partitions), 20*time.Hour),
	}
}

// kcatPartition is the partition librdkafka's default partitioner
// (consistent_random: CRC32 of the key) picks, which is what `kcat -P -K`
// does unless told otherwise. Should it agree with murmur2, the next
// partition is used, so the defect is always in the wrong place.
func kcatPartition(key []byte, partitions int) int {
	p := int(crc32.ChecksumIEEE(key) % uint32(partitions))
	if p == java.PartitionFor(key, partitions) {
		p = (p + 1) % partitions
	}
	return p
}
