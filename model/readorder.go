package model

import "slices"

// A worker that starts (and, with exactly.once.source.support=enabled,
// every source task that starts: Worker.offsetStoreForExactlyOnceSourceTask
// builds it its own KafkaOffsetBackingStore) reads the offsets topic from
// the beginning with one consumer: KafkaBasedLog.start seeks to the
// beginning and readToLogEnd polls until every partition is at its end.
// KafkaBasedLog.poll hands the records of one poll to the callback in
// ConsumerRecords order, which iterates Fetch.records: a java.util.HashMap
// keyed by TopicPartition. So within a poll, records of different
// partitions come in that map's bucket order, not in the order they were
// written, and of the same key bytes in two partitions the copy in the
// partition iterated last is the one the task reads.
//
// freshReadRank is partition p's place in that order when all n partitions
// of topic have records in one poll, as a small offsets topic on one broker
// is read. Larger topics take several polls, whose order follows the fetch
// responses; koff flags such copies either way.
func freshReadRank(topic string, p, n int) uint32 {
	// TopicPartition.hashCode: 31 * (31 + partition) + topic.hashCode().
	h := 31*(31+uint32(p)) + javaStringHash(topic)
	h ^= h >> 16 // HashMap.hash's spread
	// HashMap starts at 16 buckets and doubles past 3/4 full.
	capacity := uint32(16)
	for uint32(n) > capacity/4*3 {
		capacity *= 2
	}
	return h & (capacity - 1)
}

// ReadAfter reports whether a freshly started worker reads partition a of
// topic after partition b (both of n): bucket order, then insertion, which
// follows the fetch request's partition order; taken here as partition id.
func ReadAfter(topic string, a, b, n int) bool {
	ra, rb := freshReadRank(topic, a, n), freshReadRank(topic, b, n)
	if ra != rb {
		return ra > rb
	}
	return a > b
}

// ReadOrder is the n partitions of topic in the order a freshly started
// worker's poll hands them over (ReadAfter).
func ReadOrder(topic string, n int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case a == b:
			return 0
		case ReadAfter(topic, a, b, n):
			return 1
		}
		return -1
	})
	return order
}
