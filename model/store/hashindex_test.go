package store

import (
	"math/rand/v2"
	"testing"
)

// TestHashIndexIsAMapOfTags checks hashIndex against a Go map of the
// hashes' top 32 bits, through its growth: every hash put is found with its
// number, every other is not, hashes of the same top bits are one, and
// tags crowded into one stretch of slots (and wrapping past its end) probe
// on.
func TestHashIndexIsAMapOfTags(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, gen := range []struct {
		name string
		hash func(i int) uint64
	}{
		{"random", func(int) uint64 { return rng.Uint64() }},
		{"crowded", func(i int) uint64 { return uint64(0xffff_fff0+i%32)<<32 | rng.Uint64()>>32 }},
		{"few bits", func(int) uint64 { return uint64(rng.IntN(3000))<<32 | uint64(rng.Uint32()) }},
	} {
		var ix hashIndex
		want := map[uint64]uint32{}
		for i := range 20_000 {
			h := gen.hash(i)
			ref, ok := want[h>>32]
			if got := ix.get(h); got != ref {
				t.Fatalf("%s: get(%#x) before put %d = %d, want %d", gen.name, h, i, got, ref)
			}
			if ok {
				continue
			}
			ref = uint32(i + 1)
			if i%4999 == 0 { // grown ahead, as Store.reserve does
				ix.reserve(len(want) + rng.IntN(8000))
			}
			ix.Put(h, ref)
			want[h>>32] = ref
			if i%997 == 0 {
				for tag, ref := range want {
					if got := ix.get(tag<<32 | uint64(rng.Uint32())); got != ref {
						t.Fatalf("%s: after %d puts get(tag %#x) = %d, want %d", gen.name, i, tag, got, ref)
					}
				}
			}
		}
		if ix.used != len(want) || 2*ix.used > len(ix.slots) {
			t.Errorf("%s: %d used of %d slots, want %d at most half", gen.name, ix.used, len(ix.slots), len(want))
		}
		for range 10_000 {
			h := rng.Uint64()
			if got := ix.get(h); got != want[h>>32] {
				t.Fatalf("%s: get(%#x) = %d, want %d", gen.name, h, got, want[h>>32])
			}
		}
	}
	var empty hashIndex
	if got := empty.get(42); got != 0 {
		t.Errorf("empty index: get = %d, want 0", got)
	}
}
