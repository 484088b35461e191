package store

import (
	"time"
)

// Record is one record read from an offsets topic. Key and Value are the raw
// bytes as stored; a nil Value is a tombstone.
type Record struct {
	Topic     string
	Partition int
	Offset    int64
	Key       []byte
	Value     []byte
	Time      time.Time
	// Koff: the record came from an edit of koff (its header says so), not
	// from the connector's tasks: it is no flush.
	Koff bool

	prep prepared // see Prepare
}

// prepared is what Prepare works out of a record.
type prepared struct {
	done  bool
	plain bool   // Value is an offset in the plain form (plainOffset)
	hash  uint64 // of Key, as the Store hashes keys
	// chunk is the whole chunk a Latest kept this record of, and pos the
	// record's place in it: what it superseded, its key analysed before
	// the Store's lock, and the records read (FreshRead) are counted from
	// the chunk, not from the records kept.
	chunk *latestChunk
	pos   int32
}

// Prepare works out what Ingest needs of the record's bytes before it
// takes the Store's lock: the hash of the key and whether the value is an
// offset in the form nearly every worker writes. The Tailer calls it on
// the goroutine that decoded the record, so that the Store's one writer
// does less of the work; Ingest works the same out itself for a record
// not prepared. The record's bytes must not change after it.
func (r *Record) Prepare() { r.prep = r.workPrepared() }

// workPrepared works out what Prepare keeps of r.
func (r *Record) workPrepared() prepared {
	return prepared{done: true, plain: r.Value != nil && plainOffset(r.Value), hash: hashBytes(keySeed, r.Key)}
}

// keyAt is the record's key as a Latest analysed it, or nil.
func (p *prepared) keyAt() *keptKey {
	if p.chunk == nil {
		return nil
	}
	return p.chunk.keyAt(int(p.pos))
}
