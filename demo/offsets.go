package demo

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"koff/model"
)

// readOffsetsTimeout bounds reading a connector's offsets back on start.
const readOffsetsTimeout = 15 * time.Second

// readOffsets returns the committed offset (raw value bytes) of each key, as a
// task's OffsetStorageReader finds it: by the exact key bytes, the latest
// record winning and a tombstone deleting. A key with no entry has no offset,
// and its task starts from scratch.
//
// Connect reads every partition of the topic; we read only each key's own
// murmur2 partition, which is where a worker writes it. A copy of the same
// key bytes in another partition (a kcat write with the wrong partitioner)
// is therefore ignored here, where Connect's choice would depend on read
// order; koff flags such copies either way.
func (w *worker) readOffsets(ctx context.Context, topic string, keys [][]byte) (map[string][]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, readOffsetsTimeout)
	defer cancel()

	want := make(map[string]int32, len(keys))
	var parts []int32
	seen := map[int32]bool{}
	for _, k := range keys {
		p := int32(model.PartitionFor(k, w.offsetsPartitions))
		want[string(k)] = p
		if !seen[p] {
			seen[p] = true
			parts = append(parts, p)
		}
	}
	found := map[string][]byte{}
	err := w.scan(ctx, topic, parts, func(r *kgo.Record) {
		if p, ok := want[string(r.Key)]; ok && p == r.Partition {
			if r.Value == nil {
				delete(found, string(r.Key))
			} else {
				found[string(r.Key)] = r.Value
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return found, nil
}
