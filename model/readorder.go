package model

import (
	"slices"
	"sort"

	"koff/model/java"
)

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
	h := 31*(31+uint32(p)) + java.JavaStringHash(topic)
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

// Connect's KafkaBasedLog consumer keeps the consumer defaults that decide
// how a fresh read is cut into polls.
const (
	maxPollRecords        = 500     // max.poll.records
	maxPartitionFetchSize = 1 << 20 // max.partition.fetch.bytes
)

// FreshRead is how a fresh read of one offsets topic hands its records
// over, worked out from the records each partition holds. The first fetch
// response holds every partition's records, in the fetch request's order
// (AbstractFetch.fetchablePartitions: a HashSet of the topic's n
// partitions); polls take max.poll.records of them at a time in that order
// (FetchCollector.collectFetch), and each poll's records come out in the
// HashMap order of the partitions in it (ReadAfter). Exact is false when a
// partition holds more than max.partition.fetch.bytes: its records then
// take several fetches, whose timing decides the order.
type FreshRead struct {
	topic string
	n     int
	order []int       // partitions with records, in the fetch response's order
	place map[int]int // partition → its index in order
	start []int64     // records before order[i] in the response
	count []int64     // records of order[i]
	Exact bool
}

// NewFreshRead works out a fresh read of topic (n partitions) from the
// records and bytes each partition holds.
func NewFreshRead(topic string, n int, records, bytes map[int]int64) *FreshRead {
	f := &FreshRead{topic: topic, n: n, place: map[int]int{}, Exact: true}
	for p, c := range records {
		if c > 0 {
			f.order = append(f.order, p)
		}
		if bytes[p] > maxPartitionFetchSize {
			f.Exact = false
		}
	}
	capacity := hashSetCapacity(n)
	slices.SortFunc(f.order, func(a, b int) int {
		if ra, rb := topicPartitionBucket(topic, a, capacity), topicPartitionBucket(topic, b, capacity); ra != rb {
			return int(ra) - int(rb)
		}
		return a - b
	})
	var sum int64
	for i, p := range f.order {
		f.place[p] = i
		f.start = append(f.start, sum)
		f.count = append(f.count, records[p])
		sum += records[p]
	}
	return f
}

// OnePoll reports whether the whole topic comes in one poll.
func (f *FreshRead) OnePoll() bool {
	n := len(f.count)
	return n == 0 || f.start[n-1]+f.count[n-1] <= maxPollRecords
}

// ReadAfter reports whether the record at ordinal oa (0 for a partition's
// first record) of partition a is handed over after the one at ordinal ob
// of partition b.
func (f *FreshRead) ReadAfter(a int, oa int64, b int, ob int64) bool {
	ia, aok := f.place[a]
	ib, bok := f.place[b]
	if !aok || !bok {
		return a > b // not a partition of the read: nothing to go by
	}
	if a == b {
		return oa > ob
	}
	pa, pb := (f.start[ia]+oa)/maxPollRecords, (f.start[ib]+ob)/maxPollRecords
	if pa != pb {
		return pa > pb
	}
	// One poll: the HashMap of the partitions with records in it.
	return ReadAfter(f.topic, a, b, f.n, f.inPoll(pa))
}

// inPoll counts the partitions with records in poll j.
func (f *FreshRead) inPoll(j int64) int {
	from, to := j*maxPollRecords, (j+1)*maxPollRecords
	// The first partition ending after from, and the first starting at or after to.
	first := sort.Search(len(f.order), func(i int) bool { return f.start[i]+f.count[i] > from })
	last := sort.Search(len(f.order), func(i int) bool { return f.start[i] >= to })
	return last - first
}

// Records is the number of records the read hands over.
func (f *FreshRead) Records() int64 {
	n := len(f.count)
	if n == 0 {
		return 0
	}
	return f.start[n-1] + f.count[n-1]
}
