package kafka

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/compress"
	fetchAPI "github.com/segmentio/kafka-go/protocol/fetch"

	"koff/model"
	"koff/model/store"
)

// RetainedLog is what one topic-partition of an offsets topic still holds,
// as ReadHistory found it: its log start, the end it read to (the last
// stable offset when the read began), and the first offset below which
// records were removed (compaction leaves gaps in the offsets; retention
// or delete-records moves the log start). Complete: nothing before
// FirstGap was removed; FirstGap is End when no gap was seen.
type RetainedLog struct {
	model.TopicPartition
	LogStart, End, FirstGap int64
}

// HistoryRecord is one record of an offsets topic as ReadHistory hands it
// on. Its Key and Value point into the fetched bytes: they are valid only
// until the callback returns.
type HistoryRecord struct {
	store.Record
	// LogAppendTime: the topic stamps records with the broker's time
	// (message.timestamp.type=LogAppendTime), not the worker's CreateTime.
	LogAppendTime bool
}

// ReadHistory reads every partition of an offsets topic from its log
// start to its last stable offset as of the start of the read,
// read_committed as the Tailer reads it, and hands each record whose key
// keep accepts to fn, in offset order, one partition after another. It
// keeps nothing: memory does not grow with the records read. keep sees
// only the key bytes, so a caller can skip other connectors' records
// before their values are looked at; nil keeps everything.
func (c Config) ReadHistory(ctx context.Context, topic string, keep func(key []byte) bool, fn func(*HistoryRecord) error) ([]RetainedLog, error) {
	return c.ReadHistoryLoading(ctx, topic, nil, keep, fn)
}

// HistoryLoad is a Handler (a Store) a history read loads as it goes:
// every record read, whatever keep says, is handed to it as the Tailer
// hands them (with TailerOptions.Latest, here Latest), so that one read
// of the topic serves both. A Tailer then goes on from each
// RetainedLog's End (TailerOptions.From).
type HistoryLoad struct {
	Handler Handler
	Latest  int
}

// ReadHistoryLoading is ReadHistory that also loads load (nil: none)
// with every record below the end the read began with.
func (c Config) ReadHistoryLoading(ctx context.Context, topic string, load *HistoryLoad, keep func(key []byte) bool, fn func(*HistoryRecord) error) ([]RetainedLog, error) {
	return c.readHistory(ctx, topic, load, nil, keep, fn)
}

// ReadHistoryFrom is ReadHistory of what each partition gained since a
// read before: partition i is read from from[i] (from its log start when
// from has no such partition, or when its log start is later), to its
// last stable offset now. Each RetainedLog's FirstGap is of what was
// read, its LogStart the partition's now. It follows a history read
// once, at the cost of the records added since, not of the topic.
func (c Config) ReadHistoryFrom(ctx context.Context, topic string, from []int64, keep func(key []byte) bool, fn func(*HistoryRecord) error) ([]RetainedLog, error) {
	if from == nil {
		from = []int64{}
	}
	return c.readHistory(ctx, topic, nil, from, keep, fn)
}

// readHistory reads from the log starts (from nil) or from from.
func (c Config) readHistory(ctx context.Context, topic string, load *HistoryLoad, from []int64, keep func(key []byte) bool, fn func(*HistoryRecord) error) ([]RetainedLog, error) {
	n, err := c.PartitionCount(ctx, topic)
	if err != nil {
		return nil, err
	}
	if load != nil {
		load.Handler.SetTopicPartitions(topic, n)
	}
	tps := make([]model.TopicPartition, n)
	for i := range tps {
		tps[i] = model.TopicPartition{Topic: topic, Partition: i}
	}
	client := c.Client()
	defer client.Transport.(*kafkago.Transport).CloseIdleConnections()
	starts, err := listOffsets(ctx, client, tps, kafkago.FirstOffset, kafkago.ReadUncommitted)
	if err != nil {
		return nil, fmt.Errorf("read the log start of %s: %s", topic, c.Describe(err))
	}
	ends, err := listOffsets(ctx, client, tps, kafkago.LastOffset, kafkago.ReadCommitted)
	if err != nil {
		return nil, fmt.Errorf("read the end of %s: %s", topic, c.Describe(err))
	}
	tr := c.transport()
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the readers ahead
	var d decoder
	d.borrow = true
	out := make([]RetainedLog, 0, n)
	for _, tp := range tps {
		lg := RetainedLog{TopicPartition: tp, LogStart: starts[tp], End: ends[tp]}
		lg.FirstGap = lg.End
		out = append(out, lg)
		if e, ok := handlerOf(load).(expecter); ok {
			e.ExpectRecords(tp, lg.End-lg.LogStart)
		}
	}
	begin := make([]int64, n) // where each partition's read begins
	for i, lg := range out {
		begin[i] = lg.LogStart
		if from != nil && i < len(from) && from[i] > lg.LogStart {
			begin[i] = min(from[i], lg.End)
		}
	}
	bufs := newFetchBuffers()
	var readers []*aheadReader
	release := func(int) {}
	if readAhead > 0 {
		ahead := append([]RetainedLog(nil), out...)
		for i := range ahead {
			ahead[i].LogStart = begin[i]
		}
		readers, release = c.fetchAhead(ctx, tr, ahead, bufs)
	}
	for i := range out {
		a := &aheadFetch{c: c, tr: tr, bufs: bufs}
		if readers != nil {
			a.r = readers[i]
		}
		ld := newHistoryLoader(load, out[i])
		err := c.readRetained(ctx, a, &d, ld, &out[i], begin[i], keep, fn)
		ld.close()
		a.done()
		release(i)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readRetained reads one partition for ReadHistory.
func (c Config) readRetained(ctx context.Context, a *aheadFetch, d *decoder, ld *historyLoader, lg *RetainedLog, start int64, keep func([]byte) bool, fn func(*HistoryRecord) error) error {
	w := historyWalk{log: lg, keep: keep, fn: fn, expect: start}
	pos := start
	for pos < lg.End {
		p, err := a.fetch(ctx, lg.TopicPartition, pos, d)
		if err == nil && p.ErrorCode != 0 {
			if e := kafkago.Error(p.ErrorCode); errors.Is(e, kafkago.OffsetOutOfRange) && p.LogStartOffset > pos {
				// Deleted below while reading: the history starts later.
				pos, lg.LogStart = p.LogStartOffset, p.LogStartOffset
				w.expect = pos
				continue
			}
			err = kafkago.Error(p.ErrorCode)
		}
		if err != nil {
			return fmt.Errorf("read %s from %d: %s", lg.TopicPartition, pos, c.Describe(err))
		}
		var next int64
		if p.legacy != nil {
			next, err = w.legacy(d, pos, p, ld)
		} else {
			// The Store loads the answer beside the walk, which hands it
			// back once both are done with it.
			ld.load(pos, p)
			next, err = w.batches(d, pos, p)
			ld.wait()
		}
		if err != nil {
			return err
		}
		if next <= pos {
			break // nothing more below the last stable offset
		}
		pos = next
	}
	return nil
}

// historyWalk reads fetched record batches as decode does (control
// batches and aborted transactions dropped) but sees every batch, so that
// an offset no batch accounts for is known to be removed.
type historyWalk struct {
	log    *RetainedLog
	keep   func([]byte) bool
	fn     func(*HistoryRecord) error
	expect int64 // the next offset, if nothing was removed
	rec    HistoryRecord
}

// seen notes that offsets [from, to] are accounted for.
func (w *historyWalk) seen(from, to int64) {
	if from > w.expect && w.expect < w.log.FirstGap {
		w.log.FirstGap = w.expect
	}
	w.expect = max(w.expect, to+1)
}

func (w *historyWalk) batches(d *decoder, pos int64, p *fetchedPartition) (int64, error) {
	next := pos
	aborted := append([]fetchAPI.ResponseTransaction(nil), p.AbortedTransactions...)
	sort.Slice(aborted, func(i, j int) bool { return aborted[i].FirstOffset < aborted[j].FirstOffset })
	abortedPIDs := map[int64]bool{}
	be := binary.BigEndian
	for b := p.Records; ; {
		base, batch, rest, ok := nextBatch(b)
		if !ok {
			break // the end, or a batch cut short by MaxBytes
		}
		b = rest
		attrs := be.Uint16(batch[batchAttributes:])
		pid := int64(be.Uint64(batch[batchProducerID:]))
		last := base + int64(int32(be.Uint32(batch[batchLastOffsetDelta:])))
		skip := attrs&0x20 != 0 // control
		if skip {
			delete(abortedPIDs, pid)
		} else {
			for len(aborted) > 0 && aborted[0].FirstOffset <= base {
				abortedPIDs[aborted[0].ProducerID] = true
				aborted = aborted[1:]
			}
			skip = attrs&0x10 != 0 && abortedPIDs[pid]
		}
		if last < pos || skip {
			if last >= pos {
				w.seen(max(base, pos), last)
			}
			next = max(next, last+1)
			continue
		}
		first := int64(be.Uint64(batch[batchFirstTimestamp:]))
		logAppend := attrs&0x08 != 0
		maxTS := int64(be.Uint64(batch[batchMaxTimestamp:]))
		count := int(int32(be.Uint32(batch[batchRecordCount:])))
		recs := batch[batchRecords:]
		if codec := compress.Compression(attrs & 7); codec != 0 {
			var err error
			if recs, err = d.inflateRecords(codec, recs); err != nil {
				break // as a truncated batch: fetched again
			}
		}
		var r record
		for range count {
			rest, ok := readRecord(recs, &r)
			if !ok {
				break
			}
			recs = rest
			off := base + r.offsetDelta
			if off < pos {
				continue
			}
			if off >= w.log.End {
				return off, nil // past the end the read began with
			}
			w.seen(off, off)
			next = off + 1
			if w.keep != nil && !w.keep(r.key) {
				continue
			}
			ts := first + r.timestampDelta
			if logAppend {
				ts = maxTS
			}
			w.rec = HistoryRecord{Record: store.Record{
				Topic: w.log.Topic, Partition: w.log.Partition, Offset: off,
				Key: r.key, Value: r.value, Koff: r.koff,
				Time: time.UnixMilli(ts),
			}, LogAppendTime: logAppend}
			if err := w.fn(&w.rec); err != nil {
				return 0, err
			}
		}
		// The records compacted away at the end of a batch are removed too,
		// but the batch's last offset stays: the next batch shows the gap.
		next = max(next, last+1)
	}
	return next, nil
}

// legacy reads batches in the old message format (brokers before 4.0 may
// hold them) through decode: their timestamp type and gaps are not known
// to koff, so they read as CreateTime and complete.
func (w *historyWalk) legacy(d *decoder, pos int64, p *fetchedPartition, ld *historyLoader) (int64, error) {
	var ferr error
	// Old-format answers are read once, as a stream: the loader takes the
	// records the walk decoded, once the walk is done with them.
	_, next := d.decode(w.log.TopicPartition, pos, p, func(recs []store.Record) {
		for i := range recs {
			if ferr != nil || recs[i].Offset >= w.log.End || w.keep != nil && !w.keep(recs[i].Key) {
				continue
			}
			w.rec = HistoryRecord{Record: recs[i]}
			ferr = w.fn(&w.rec)
		}
		if ld != nil {
			ld.ingest(recs)
		}
	})
	w.expect = next
	return next, ferr
}
