package model

import "slices"

// A worker that starts (and, with exactly.once.source.support=enabled,
// every source task that starts: Worker.offsetStoreForExactlyOnceSourceTask
// builds it its own KafkaOffsetBackingStore) reads the offsets topic from
// the beginning with one consumer: KafkaBasedLog.start seeks to the
// beginning and readToLogEnd polls until every partition is at its end.
// KafkaBasedLog.poll hands the records of one poll to the callback in
// ConsumerRecords order, which iterates Fetch.records: a java.util.HashMap
// keyed by TopicPartition, filled (FetchCollector.collectFetch) with the
// partitions that handed over records, in the fetch response's order. So
// within a poll, records of different partitions come in that map's bucket
// order, not in the order they were written, and of the same key bytes in
// two partitions the copy in the partition iterated last is the one the
// task reads.
//
// The map is sized by the partitions that have records, not by the
// topic's partition count: 2 partitions with records of 25 are iterated
// in 16 buckets, 13 of them in 32. Partitions in one bucket follow the
// fetch response, which follows the request: AbstractFetch.fetchablePartitions
// copies the assignment into a HashSet of the topic's n partitions, whose
// own ties are in assignment order (partition number, as KafkaBasedLog
// assigns them). One poll hands over at most max.poll.records (500): a
// bigger topic takes several polls, whose order follows the fetch
// responses, and koff flags such copies either way.

// topicPartitionBucket is partition p's bucket in a java.util.HashMap of
// TopicPartition keys with the given table size.
func topicPartitionBucket(topic string, p int, capacity uint32) uint32 {
	// TopicPartition.hashCode: 31 * (31 + partition) + topic.hashCode().
	h := 31*(31+uint32(p)) + javaStringHash(topic)
	h ^= h >> 16 // HashMap.hash's spread
	return h & (capacity - 1)
}

// hashMapCapacity is the table size of a HashMap after k puts into a new
// one: 16, doubled each time the size passes three quarters of it.
func hashMapCapacity(k int) uint32 {
	c := uint32(16)
	for uint32(k) > c/4*3 {
		c *= 2
	}
	return c
}

// hashSetCapacity is the table size of new HashSet<>(collection of n) on
// Java 17: HashMap(max(n/.75f + 1, 16)), rounded up to a power of two.
// Java 19 and later size it from ceil(n/.75), which differs only where
// n/.75 is whole (24 partitions: 32 buckets, not 64; 25: 64 on both).
func hashSetCapacity(n int) uint32 {
	want := max(int(float32(n)/.75)+1, 16)
	c := uint32(1)
	for c < uint32(want) {
		c *= 2
	}
	return c
}

// ReadAfter reports whether a freshly started worker's poll hands over
// partition a of topic after partition b, when the topic has n partitions
// and withRecords of them (a and b among them) have records to hand over.
func ReadAfter(topic string, a, b, n, withRecords int) bool {
	if a == b {
		return false
	}
	for _, c := range [...]uint32{hashMapCapacity(withRecords), hashSetCapacity(n)} {
		if ra, rb := topicPartitionBucket(topic, a, c), topicPartitionBucket(topic, b, c); ra != rb {
			return ra > rb
		}
	}
	return a > b
}

// ReadOrder is the partitions of topic (of n) that have records, in the
// order a freshly started worker's poll hands them over (ReadAfter).
func ReadOrder(topic string, n int, withRecords []int) []int {
	order := slices.Clone(withRecords)
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case a == b:
			return 0
		case ReadAfter(topic, a, b, n, len(withRecords)):
			return 1
		}
		return -1
	})
	return order
}
