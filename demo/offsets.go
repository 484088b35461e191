package demo

import (
	"context"
	"time"
)

// readOffsetsTimeout bounds reading a connector's offsets back on start.
const readOffsetsTimeout = 15 * time.Second

// readOffsets returns the committed offset (raw value bytes) of each key, as a
// task's OffsetStorageReader finds it in a store that read the whole topic
// afresh, as every task start does on a worker with
// exactly.once.source.support=enabled (and any worker when it starts): by
// the exact key bytes, in readAll's order,
// the record read last winning and a tombstone deleting. So a copy of the
// key bytes in another partition (a kcat write with the wrong partitioner)
// wins when its partition is read after the key's own. A key with no entry
// has no offset, and its task starts from scratch.
func (w *worker) readOffsets(ctx context.Context, topic string, keys [][]byte) (map[string][]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, readOffsetsTimeout)
	defer cancel()
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[string(k)] = true
	}
	all, err := w.readAll(ctx, topic)
	if err != nil {
		return nil, err
	}
	found := map[string][]byte{}
	for _, r := range all {
		if !want[string(r.Key)] {
			continue
		}
		if r.Value == nil {
			delete(found, string(r.Key))
		} else {
			found[string(r.Key)] = r.Value
		}
	}
	return found, nil
}
