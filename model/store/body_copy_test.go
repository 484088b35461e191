package store

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"koff/model"
)

// TestBodyCopiesWriteAsWithout: a body whose sort and writing read the
// copies of its texts and offsets (bodyCopy) is the body made from the
// texts and offsets where they are stored, byte for byte and in its
// printable ASCII verdict: connectors of thousands of partitions (more
// copies than a block holds), keys in the workers' form and others (the
// way through partsOf), offsets to compact, texts longer than a quarter
// of a block (read where they are), a connector in two topics, and bodies
// made one after another in the same picks (blocks reused), and bodies
// past the bound on the copies (the rest read where they are).
func TestBodyCopiesWriteAsWithout(t *testing.T) {
	defer func(n int) { bodyCopies, bodyCopyBlocks = true, n }(bodyCopyBlocks)
	for seed := range uint64(6) {
		bodyCopyBlocks = []int{128, 2}[seed%2]
		r := rand.New(rand.NewPCG(seed, 9))
		s := NewStore(StoreOptions{OneShot: seed%2 == 0})
		var batch []Record
		for _, topic := range []string{"connect-offsets", "other-offsets"} {
			s.SetTopicPartitions(topic, 4)
			for off := range int64(6000) {
				c := r.IntN(3)
				var key string
				switch r.IntN(20) {
				case 0:
					key = fmt.Sprintf(`[ "c%d", { "table" : "t%d" } ]`, c, r.IntN(500))
				case 1:
					key = fmt.Sprintf(`["c%d",{"file":"%s%d"}]`, c, strings.Repeat("x", bodyCopyBlock/4), r.IntN(3))
				case 2:
					key = fmt.Sprintf(`["c%d",{"s":"é%d"}]`, c, r.IntN(50))
				default:
					key = fmt.Sprintf(`["c%d",{"cluster":"primary","partition":%d,"topic":"t-%d"}]`, c, r.IntN(100), r.IntN(300))
				}
				value := fmt.Sprintf(`{"offset":%d}`, r.IntN(100000))
				switch r.IntN(10) {
				case 0:
					value = fmt.Sprintf(`{ "offset" : %d.0 }`, r.IntN(1000))
				case 1:
					value = ""
				}
				part := int(off % 4)
				if seed%3 == 1 {
					part = r.IntN(4) // copies in several partitions
				}
				rec := rec(part, off, key, value, 0)
				rec.Topic = topic
				batch = append(batch, rec)
			}
		}
		s.Ingest(batch)
		var ids [][]model.ConnectorID
		for _, c := range s.ConnectorList() {
			ids = append(ids, []model.ConnectorID{c.ID})
		}
		for c := range 3 {
			name := fmt.Sprintf("c%d", c)
			ids = append(ids, []model.ConnectorID{{Topic: "connect-offsets", Name: name}, {Topic: "other-offsets", Name: name}})
		}
		copied := 0
		for _, id := range ids {
			var bodies [2]string
			var printables [2]bool
			for j := range bodies {
				bodyCopies = j == 1
				b, printable := s.AppendOffsetsBodyChecked([]byte("before"), id)
				bodies[j], printables[j] = string(b), printable
			}
			if bodies[0] != bodies[1] || printables[0] != printables[1] {
				t.Fatalf("seed %d: %v: with copies (printable %v)\n%.2000s\nwithout (printable %v)\n%.2000s", seed, id, printables[1], bodies[1], printables[0], bodies[0])
			}
			copied += len(bodies[1])
		}
		if copied < 2*bodyCopyBlock {
			t.Fatalf("seed %d: bodies of %d bytes: not past a block of copies", seed, copied)
		}
	}
}
