package java

import "encoding/binary"

// Murmur2 is Kafka's Utils.murmur2: the hash the Java producer's default
// partitioner applies to the serialised key. Offsets-topic records must land
// in the partition the worker's producer would choose, or compaction and
// "latest wins" break (see CONNECT-OFFSETS.md, "Partition").
func Murmur2(b []byte) int32 {
	const (
		seed = 0x9747b28c
		m    = 0x5bd1e995
		r    = 24
	)
	n := len(b)
	h := uint32(seed) ^ uint32(n)
	for i := 0; i+4 <= n; i += 4 {
		k := binary.LittleEndian.Uint32(b[i : i+4])
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	// Tail bytes fall through like Java's switch (case 3 → 2 → 1).
	tail := b[n&^3:]
	switch len(tail) {
	case 3:
		h ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(tail[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// PartitionFor is the Java producer's BuiltInPartitioner.partitionForKey:
// toPositive(murmur2(key)) % n. It returns -1 when n <= 0.
func PartitionFor(key []byte, n int) int {
	if n <= 0 {
		return -1
	}
	return int(uint32(Murmur2(key))&0x7fffffff) % n
}
