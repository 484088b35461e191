package demo

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"koff/model"
)

// readAll reads every partition of an offsets topic from its start to its
// end as of the call, as a fresh KafkaOffsetBackingStore does when the REST
// API or a starting task builds one. Records come in the order a Java
// consumer's polls hand them over (model.FreshRead: max.poll.records at a
// time in the fetch response's partition order, each poll in its HashMap
// order), each partition in offset order; control records are left out.
// Every offsets topic has the worker's offset.storage.partitions, as
// Connect creates them.
func (w *worker) readAll(ctx context.Context, topic string) ([]*kgo.Record, error) {
	parts := make([]int32, w.offsetsPartitions)
	for i := range parts {
		parts[i] = int32(i)
	}
	byPart := make([][]*kgo.Record, w.offsetsPartitions)
	err := w.scan(ctx, topic, parts, func(r *kgo.Record) {
		byPart[r.Partition] = append(byPart[r.Partition], r)
	})
	if err != nil {
		return nil, err
	}
	records, bytes := map[int]int64{}, map[int]int64{}
	type handed struct {
		r *kgo.Record
		o int64 // its place among its partition's records
	}
	var read []handed
	for p, recs := range byPart {
		records[p] = int64(len(recs))
		for o, r := range recs {
			bytes[p] += int64(len(r.Key) + len(r.Value))
			read = append(read, handed{r, int64(o)})
		}
	}
	fr := model.NewFreshRead(topic, w.offsetsPartitions, records, bytes)
	sort.Slice(read, func(i, j int) bool {
		a, b := read[i], read[j]
		return fr.ReadAfter(int(b.r.Partition), b.o, int(a.r.Partition), a.o)
	})
	all := make([]*kgo.Record, len(read))
	for i, h := range read {
		all[i] = h.r
	}
	return all, nil
}

// scan reads some partitions of a topic from their start to their end as
// of the call and hands each data record, in offset order per partition,
// to each.
func (w *worker) scan(ctx context.Context, topic string, parts []int32, each func(*kgo.Record)) error {
	start, err := topicOffsets(ctx, w.client, topic, parts, -2)
	if err != nil {
		return err
	}
	end, err := topicOffsets(ctx, w.client, topic, parts, -1)
	if err != nil {
		return err
	}
	from := map[int32]kgo.Offset{}
	for _, p := range parts {
		if end[p] > start[p] {
			from[p] = kgo.NewOffset().At(start[p])
		}
	}
	if len(from) == 0 {
		return nil
	}
	cl, err := kgo.NewClient(w.clientOpts(
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: from}),
		// Markers occupy offsets too: keeping them shows the end even when
		// a partition ends with one.
		kgo.KeepControlRecords(),
		kgo.FetchMaxWait(100*time.Millisecond),
		kgo.WithLogger(kgoLogger{w.logf}),
	)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	for len(from) > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("read %s to its end: %w", topic, err)
		}
		fs.EachError(func(t string, p int32, err error) {
			w.logf("read %s[%d]: %v", t, p, err)
		})
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset >= end[r.Partition] {
				return // written after the call
			}
			if !r.Attrs.IsControl() {
				each(r)
			}
			if r.Offset >= end[r.Partition]-1 {
				delete(from, r.Partition)
			}
		})
	}
	return nil
}

// topicOffsets asks for the earliest (ts -2) or latest (ts -1) offset of
// some partitions of a topic.
func topicOffsets(ctx context.Context, cl *kgo.Client, topic string, parts []int32, ts int64) (map[int32]int64, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	for _, p := range parts {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition = p
		rp.Timestamp = ts
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("list offsets of %s: %w", topic, err)
	}
	out := make(map[int32]int64, len(parts))
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return nil, fmt.Errorf("list offsets of %s[%d]: %w", t.Topic, p.Partition, err)
			}
			out[p.Partition] = p.Offset
		}
	}
	return out, nil
}

// producedTo returns those of a connector's data topics that hold records.
// Every data topic has one writer, its connector, so this is the set
// Connect's topic tracking reports: the topics its tasks produced to.
func (w *worker) producedTo(ctx context.Context, topics []topicSpec) ([]string, error) {
	var out []string
	for _, t := range topics {
		parts := make([]int32, t.partitions)
		for i := range parts {
			parts[i] = int32(i)
		}
		end, err := topicOffsets(ctx, w.client, t.name, parts, -1)
		if err != nil {
			return nil, err
		}
		for _, n := range end {
			if n > 0 {
				out = append(out, t.name)
				break
			}
		}
	}
	return out, nil
}
