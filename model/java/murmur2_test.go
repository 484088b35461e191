package java

import "testing"

// Vectors from Kafka's UtilsTest#testMurmur2.
func TestMurmur2KafkaVectors(t *testing.T) {
	tests := []struct {
		in   string
		want int32
	}{
		{"21", -973932308},
		{"foobar", -790332482},
		{"a-little-bit-long-string", -985981536},
		{"a-little-bit-longer-string", -1486304829},
		{"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971},
		{"abc", 479470107},
	}
	for _, tt := range tests {
		if got := Murmur2([]byte(tt.in)); got != tt.want {
			t.Errorf("Murmur2(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestPartitionFor(t *testing.T) {
	tests := []struct {
		name string
		key  string
		n    int
		want int
	}{
		{"debezium faq key", `["inventory-connector",{"server":"dbserver1"}]`, 25, 11},
		{"same key with spaces", `["inventory-connector", {"server": "dbserver1"}]`, 25, 17},
		{"linked hash map order", `["my-connector",{"table":"t1","database":"db","schema":"public","a":1}]`, 25, 22},
		{"hash map order", `["my-connector",{"schema":"public","a":1,"database":"db","table":"t1"}]`, 25, 3},
		{"one partition", `anything`, 1, 0},
		{"zero partitions", `anything`, 0, -1},
		{"negative partitions", `anything`, -3, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PartitionFor([]byte(tt.key), tt.n); got != tt.want {
				t.Errorf("PartitionFor(%s, %d) = %d, want %d", tt.key, tt.n, got, tt.want)
			}
		})
	}
}

// TestPartitionForNonNegative covers hashes whose sign bit is set: toPositive
// masks the bit rather than negating, so the result is never negative.
func TestPartitionForNonNegative(t *testing.T) {
	for _, s := range []string{"21", "foobar", "a-little-bit-long-string"} {
		h := Murmur2([]byte(s))
		if h >= 0 {
			t.Fatalf("vector %q is expected to hash negative", s)
		}
		want := int(h&0x7fffffff) % 7
		if got := PartitionFor([]byte(s), 7); got != want || got < 0 {
			t.Errorf("PartitionFor(%q, 7) = %d, want %d", s, got, want)
		}
	}
}

func TestMurmur2Empty(t *testing.T) {
	// No tail and no blocks: only the final mix of seed^0 runs.
	h := uint32(0x9747b28c)
	h ^= h >> 13
	h *= 0x5bd1e995
	h ^= h >> 15
	if got := Murmur2(nil); got != int32(h) {
		t.Errorf("Murmur2(nil) = %d, want %d", got, int32(h))
	}
}
