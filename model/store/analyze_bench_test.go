package store

import (
	"fmt"
	"testing"
)

// mm2Keys are n keys of MirrorMaker 2 partitions as bench/load writes them:
// 70 connectors taking turns, as a partition of the offsets topic holds
// them.
func mm2Keys(n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, `["mm2-%02d.MirrorSourceConnector",{"cluster":"primary","partition":%d,"topic":"orders.region-%d.topic-%d"}]`, i%70, i/70%100, i%70, i/7000)
	}
	return keys
}

// BenchmarkAnalyzePlain measures what a Latest works out of each key new
// to its partition (analyzePlain): at a million new keys it is most of
// the readers' work.
//
//	go test ./model/store -run XXX -bench AnalyzePlain
func BenchmarkAnalyzePlain(b *testing.B) {
	keys := mm2Keys(1 << 16)
	var keep arena
	var shapes keyShapes
	var k keptKey
	b.ResetTimer()
	for i := range b.N {
		if !analyzePlain(keys[i&(len(keys)-1)], &keep, &shapes, &k) {
			b.Fatal("not plain")
		}
	}
}
