package kafka

import (
	"context"
	"encoding/binary"

	kafkago "github.com/segmentio/kafka-go"

	"koff/model"
)

// A history read walks the partitions one after another, in offset
// order, but waiting for each fetch in turn left it bound by round trips
// (a million records took twice kcat's time). So the next partitions are
// fetched ahead while one is walked: readAhead partitions at once, each
// at most fetchesAhead answers ahead of its walk. Memory stays bounded by
// those answers, whatever the records read.
var readAhead = 4

const fetchesAhead = 2

// fetchBuffers keeps the buffers of answers walked for the next fetches:
// a fetch into a new buffer each time made a megabyte of garbage per
// fetch, and the collector's work with it.
type fetchBuffers chan *decoder

func newFetchBuffers() fetchBuffers { return make(fetchBuffers, readAhead*(fetchesAhead+2)+1) }

func (f fetchBuffers) get() *decoder {
	select {
	case d := <-f:
		return d
	default:
		return new(decoder)
	}
}

func (f fetchBuffers) put(d *decoder) {
	select {
	case f <- d:
	default:
	}
}

// fetched is one answer fetched ahead: the fetch from pos, and the
// decoder whose buffer holds it.
type fetched struct {
	pos int64
	p   *fetchedPartition
	err error
	dec *decoder
}

// aheadReader fetches a partition's answers ahead of its walk.
type aheadReader struct {
	ctx    context.Context
	ch     chan fetched
	cancel context.CancelFunc
}

// fetchAhead starts fetching every partition of logs ahead, readAhead at
// a time in their order; release(i) says the walk is done with logs[i].
// The readers stop when ctx ends.
func (c Config) fetchAhead(ctx context.Context, tr *kafkago.Transport, logs []RetainedLog, bufs fetchBuffers) (readers []*aheadReader, release func(i int)) {
	readers = make([]*aheadReader, len(logs))
	slots := make(chan struct{}, max(readAhead, 1))
	for i := range readers {
		rctx, cancel := context.WithCancel(ctx)
		readers[i] = &aheadReader{ctx: rctx, ch: make(chan fetched, fetchesAhead), cancel: cancel}
	}
	go func() {
		for i, lg := range logs {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go c.readAheadOf(tr, lg, readers[i], bufs)
		}
	}()
	return readers, func(i int) {
		readers[i].cancel()
		<-slots
	}
}

// readAheadOf fetches one partition from its log start to its end,
// guessing each next position from the batch headers as the walk finds
// it; the walk checks the guess and fetches itself where it differs (a
// batch it could not inflate, old-format batches, an error).
func (c Config) readAheadOf(tr *kafkago.Transport, lg RetainedLog, r *aheadReader, bufs fetchBuffers) {
	defer close(r.ch)
	ctx := r.ctx
	pos := lg.LogStart
	for pos < lg.End {
		dec := bufs.get()
		p, err := c.fetchCommitted(ctx, tr, lg.TopicPartition, pos, dec)
		// Where the next fetch starts is read off the answer before it is
		// handed on: once handed, the walk owns its buffer and gives it
		// back for another fetch to write into.
		next := pos
		if err == nil && p.ErrorCode == 0 && p.legacy == nil {
			next = nextAfter(pos, p)
		}
		select {
		case r.ch <- fetched{pos: pos, p: p, err: err, dec: dec}:
		case <-ctx.Done():
			return
		}
		if next <= pos {
			return
		}
		pos = next
	}
}

// nextAfter is where the walk of a fetched answer from pos goes on: past
// its last whole batch.
func nextAfter(pos int64, p *fetchedPartition) int64 {
	next := pos
	for b := p.Records; ; {
		base, batch, rest, ok := nextBatch(b)
		if !ok {
			return next
		}
		b = rest
		next = max(next, base+int64(int32(binary.BigEndian.Uint32(batch[batchLastOffsetDelta:])))+1)
	}
}

// aheadFetch gives the walk of tp its answer from pos: the one fetched
// ahead when it is from pos, else fetched now (and the reader stopped).
type aheadFetch struct {
	c    Config
	tr   *kafkago.Transport
	r    *aheadReader
	bufs fetchBuffers
	last *decoder
}

func (a *aheadFetch) fetch(ctx context.Context, tp model.TopicPartition, pos int64, d *decoder) (*fetchedPartition, error) {
	if a.last != nil {
		a.bufs.put(a.last)
		a.last = nil
	}
	if a.r != nil {
		select {
		case f, ok := <-a.r.ch:
			if ok && f.pos == pos {
				if f.err == nil {
					// A failed fetch's buffer is not reused: a read cut
					// short by its context may still be writing into it.
					a.last = f.dec
				}
				return f.p, f.err
			}
		case <-ctx.Done(): // its reader may never have started
			return nil, ctx.Err()
		}
		a.stop()
	}
	return a.c.fetchCommitted(ctx, a.tr, tp, pos, d)
}

// done gives back the buffer of the last answer walked and ends the reader.
func (a *aheadFetch) done() {
	a.stop()
	if a.last != nil {
		a.bufs.put(a.last)
		a.last = nil
	}
}

// stop ends the reader and lets its answers go (to the collector: a
// reader stopped before it started never closes its channel).
func (a *aheadFetch) stop() {
	if a.r == nil {
		return
	}
	a.r.cancel()
	a.r = nil
}
