package store

import (
	"math/rand/v2"
	"testing"
)

// plainKeyFacts with one keyShapes for a whole read (as the Store and
// each Latest have), whose last shape and each shape's facts are kept
// from key to key, says what it says with a fresh one: keys in random
// order, field orders alternating, and parsed keys (names with NUL among
// them) numbering shapes in between.
func TestPlainKeyFactsWithSharedShapes(t *testing.T) {
	keys := append(append([]string{}, keyFactsCases...), keySeeds...)
	keys = append(keys, `["c",{"a\u0000b":1,"c":2}]`, `["c",{"a":1,"b\u0000c":2}]`, `["c",{"b":1,"a":2}]`, `["c",{"a":1,"b":2}]`)
	r := rand.New(rand.NewPCG(3, 4))
	var shared keyShapes
	var keep arena
	for range 20_000 {
		key := keys[r.IntN(len(keys))]
		if r.IntN(4) == 0 {
			parsedKeyFacts(key, &shared)
			continue
		}
		var fresh keyShapes
		want, wok := plainKeyFacts(key, &fresh, &arena{})
		got, ok := plainKeyFacts(key, &shared, &keep)
		if ok != wok {
			t.Fatalf("%q: plain %v with shared shapes, %v with fresh ones", key, ok, wok)
		}
		if !ok {
			continue
		}
		if (got.shape < 0) != (want.shape < 0) || got.shape >= 0 && shared.list[got.shape] != fresh.list[want.shape] {
			t.Fatalf("%q: shape %d with shared shapes, %d with fresh ones", key, got.shape, want.shape)
		}
		got.shape, want.shape = 0, 0
		if got != want {
			t.Fatalf("%q: with shared shapes\n%+v\nwith fresh ones\n%+v", key, got, want)
		}
	}
}
