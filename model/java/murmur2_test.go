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

// TestMurmur2ReadsBlocksAsBytes: Murmur2 equals the byte-wise form of
// Kafka's Utils.murmur2 on keys of every length mod 4.
func TestMurmur2ReadsBlocksAsBytes(t *testing.T) {
	bytewise := func(b []byte) int32 {
		const m = 0x5bd1e995
		n := len(b)
		h := uint32(0x9747b28c) ^ uint32(n)
		for i := 0; i+4 <= n; i += 4 {
			k := uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24
			k *= m
			k ^= k >> 24
			k *= m
			h = h*m ^ k
		}
		switch t := b[n&^3:]; len(t) {
		case 3:
			h ^= uint32(t[2]) << 16
			fallthrough
		case 2:
			h ^= uint32(t[1]) << 8
			fallthrough
		case 1:
			h ^= uint32(t[0])
			h *= m
		}
		h ^= h >> 13
		h *= m
		h ^= h >> 15
		return int32(h)
	}
	b := make([]byte, 300)
	for i := range b {
		b[i] = byte(i*131 + i>>3)
	}
	for n := range len(b) {
		if got, want := Murmur2(b[:n]), bytewise(b[:n]); got != want {
			t.Fatalf("Murmur2 of %d bytes = %d, byte-wise %d", n, got, want)
		}
	}
}
