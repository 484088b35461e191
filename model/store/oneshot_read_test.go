package store

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"koff/model/text"
)

// plainSortedKey tells what plainKeyFacts tells of every key it reads
// (connector, partition text, identity, null), and reads every plain key
// whose partition's field names are in increasing order; what it reads is
// printable ASCII, as a OneShotRead's bodies take it to be.
func TestPlainSortedKeyIsPlainKeyFacts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	names := []string{"a", "b", "cluster", "partition", "topic", "server", "database", "a\\\\", "é"}
	values := []string{`1`, `-7`, `"x"`, `"é"`, `null`, `true`, `1.5`, `007`, `{"n":1}`, `[1]`, `98765432109876543210`, "\"\x7f\""}
	conns := []string{"mm2", "c", "", "a\\\"b", "café"}
	read := 0
	for range 20000 {
		var part string
		switch rng.IntN(6) {
		case 0:
			part = "null"
		case 1:
			part = fmt.Sprintf(`{"x":%d}`, rng.IntN(9))
		default:
			part = "{"
			for i := range rng.IntN(4) {
				if i > 0 {
					part += ","
				}
				part += fmt.Sprintf(`"%s":%s`, names[rng.IntN(len(names))], values[rng.IntN(len(values))])
			}
			part += "}"
		}
		key := fmt.Sprintf(`["%s",%s]`, conns[rng.IntN(len(conns))], part)
		if rng.IntN(10) == 0 {
			key = key[:rng.IntN(len(key))]
		}
		var shapes keyShapes
		var keep arena
		want, wantOK := plainKeyFacts(key, &shapes, &keep)
		got, ok := plainSortedKey(key)
		if !ok {
			if wantOK && want.identity == want.partition && (want.null || want.fields < 2 || shapes.factsOf(want.shape).sorted) {
				t.Errorf("%s: not read, its identity is its text: %+v", key, want)
			}
			continue
		}
		read++
		if !wantOK || got.connector != want.connector || got.partition != want.partition || got.identity != want.identity || got.null != want.null {
			t.Errorf("%s: %+v, plainKeyFacts: %+v (%v)", key, got, want, wantOK)
		}
		if !text.PrintableASCII([]byte(key)) {
			t.Errorf("%q read, not printable ASCII", key)
		}
	}
	if read < 5000 {
		t.Errorf("read only %d keys", read)
	}
}

// A record a OneShotRead keeps is 48 bytes: a million of them are its
// biggest allocation after the fetched bytes.
func TestOneShotRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(osRec{}); n != 48 {
		t.Errorf("osRec is %d bytes", n)
	}
}
