package demo

import (
	"context"
	"fmt"
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
	start, err := topicOffsets(ctx, w.client, topic, parts, -2)
	if err != nil {
		return nil, err
	}
	end, err := topicOffsets(ctx, w.client, topic, parts, -1)
	if err != nil {
		return nil, err
	}
	from := map[int32]kgo.Offset{}
	for _, p := range parts {
		if end[p] > start[p] {
			from[p] = kgo.NewOffset().At(start[p])
		}
	}
	found := map[string][]byte{}
	if len(from) == 0 {
		return found, nil
	}

	cl, err := kgo.NewClient(w.clientOpts(
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: from}),
		// Control records (transaction markers) occupy offsets too; keeping
		// them lets us see the log end even when a marker is last.
		kgo.KeepControlRecords(),
		kgo.FetchMaxWait(100*time.Millisecond),
		kgo.WithLogger(kgoLogger{w.logf}),
	)...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()

	for len(from) > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("read offsets from %s: %w", topic, err)
		}
		fs.EachError(func(t string, p int32, err error) {
			w.logf("read offsets: %s[%d]: %v", t, p, err)
		})
		fs.EachRecord(func(r *kgo.Record) {
			if p, ok := want[string(r.Key)]; ok && p == r.Partition && !r.Attrs.IsControl() {
				if r.Value == nil {
					delete(found, string(r.Key))
				} else {
					found[string(r.Key)] = r.Value
				}
			}
			if _, ok := from[r.Partition]; ok && r.Offset >= end[r.Partition]-1 {
				delete(from, r.Partition)
			}
		})
	}
	return found, nil
}
