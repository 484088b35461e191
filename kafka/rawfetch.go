package kafka

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync/atomic"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	fetchAPI "github.com/segmentio/kafka-go/protocol/fetch"
)

// kafka-go decodes a fetch response's record batches byte by byte through
// its page buffers, at about 800 ns a record: most of what a cold load of
// a large offsets topic costs. rawFetch is a fetch request that takes the
// response off the connection itself (kafka-go's RawExchanger, on the
// Transport's connection, with its TLS and SASL) as one block of bytes;
// decode then reads the record batches in place (see batches). kafka-go
// still encodes the request.

// fetchedPartition is one partition of a fetch response, its records
// still in the wire format.
type fetchedPartition struct {
	Partition           int32
	ErrorCode           int16
	HighWatermark       int64
	LastStableOffset    int64
	LogStartOffset      int64
	AbortedTransactions []fetchAPI.ResponseTransaction
	// Records are the partition's record batches (v2), the last one
	// possibly cut short by the size limit. legacy holds them decoded by
	// kafka-go instead when a batch is in the old message format (magic 0
	// or 1), which brokers since Kafka 4.0 no longer write.
	Records []byte
	legacy  *protocol.RecordSet
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var correlationIDs atomic.Int32

// rawFetch is a fetch request whose response is read by readResponse. buf
// is the caller's buffer for the response, grown as needed; the
// partitions it returns point into it.
type rawFetch struct {
	req      fetchAPI.Request
	clientID string
	version  int16
	buf      []byte
	topic    string
	parts    []fetchedPartition
}

func (f *rawFetch) ApiKey() protocol.ApiKey { return protocol.Fetch }

// Broker sends the request to the partition leader, as kafka-go's fetch does.
func (f *rawFetch) Broker(c protocol.Cluster) (protocol.Broker, error) { return f.req.Broker(c) }

// Required is asked with the versions the connection negotiated: every
// fetch takes the raw exchange, at that version.
func (f *rawFetch) Required(versions map[protocol.ApiKey]int16) bool {
	f.version = versions[protocol.Fetch]
	return true
}

// RawExchange writes the request and reads its response.
func (f *rawFetch) RawExchange(rw io.ReadWriter) (protocol.Message, error) {
	if f.version < 4 {
		// read_committed and aborted transactions came with v4.
		return nil, fmt.Errorf("the broker answers fetch requests only up to v%d; koff needs v4 or later (Kafka 0.11)", f.version)
	}
	id := correlationIDs.Add(1)
	if err := protocol.WriteRequest(rw, f.version, id, f.clientID, &f.req); err != nil {
		return nil, err
	}
	buf, err := readResponse(rw, id, protocol.Fetch, f.buf)
	if err != nil {
		return nil, err
	}
	f.buf = buf
	if err := f.parse(f.buf); err != nil {
		return nil, fmt.Errorf("fetch response: %w", err)
	}
	return f, nil
}

// readResponse reads the response of correlation id off rw: its size and
// correlation id, then the rest into buf (grown as needed), returned.
func readResponse(rw io.Reader, id int32, key protocol.ApiKey, buf []byte) ([]byte, error) {
	var head [8]byte
	if _, err := io.ReadFull(rw, head[:]); err != nil {
		return nil, err
	}
	size := int(int32(binary.BigEndian.Uint32(head[:4])))
	if got := int32(binary.BigEndian.Uint32(head[4:])); got != id {
		return nil, fmt.Errorf("%s response with correlation id %d, want %d", key, got, id)
	}
	if size < 4 || size > maxResponse {
		return nil, fmt.Errorf("%s response of %d bytes", key, size)
	}
	if cap(buf) < size-4 {
		buf = make([]byte, size-4)
	}
	buf = buf[:size-4]
	if _, err := io.ReadFull(rw, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// maxResponse bounds the size a response may claim: a garbled size must
// not make koff allocate gigabytes. Fetches ask for far less.
const maxResponse = 64 << 20

// wire reads the fields of a response: fetch v4 to v11 (non-flexible), and
// with the compact forms below, the flexible versions of groupsraw.go.
type wire struct {
	b   []byte
	err error
}

var errShort = errors.New("cut short")

func (w *wire) take(n int) []byte {
	if w.err != nil || n < 0 || n > len(w.b) {
		w.err = errShort
		return nil
	}
	b := w.b[:n:n]
	w.b = w.b[n:]
	return b
}

func (w *wire) int16() int16 {
	if b := w.take(2); b != nil {
		return int16(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (w *wire) int32() int32 {
	if b := w.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (w *wire) int64() int64 {
	if b := w.take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

func (w *wire) count() int {
	n := int(w.int32())
	if n > len(w.b) { // every element takes a byte at least
		w.err = errShort
		return 0
	}
	return n
}

func (f *rawFetch) parse(b []byte) error {
	w := &wire{b: b}
	w.int32() // throttle_time_ms
	if f.version >= 7 {
		if code := w.int16(); code != 0 && w.err == nil {
			return kafkago.Error(code)
		}
		w.int32() // session_id
	}
	f.parts = f.parts[:0]
	for range w.count() {
		topic := string(w.take(int(w.int16())))
		for range w.count() {
			p := fetchedPartition{Partition: w.int32(), ErrorCode: w.int16(), HighWatermark: w.int64(), LastStableOffset: w.int64()}
			if f.version >= 5 {
				p.LogStartOffset = w.int64()
			}
			if n := int(w.int32()); n > 0 { // -1: null
				if n > len(w.b)/16 {
					return errShort
				}
				p.AbortedTransactions = make([]fetchAPI.ResponseTransaction, n)
				for i := range p.AbortedTransactions {
					p.AbortedTransactions[i] = fetchAPI.ResponseTransaction{ProducerID: w.int64(), FirstOffset: w.int64()}
				}
			}
			if f.version >= 11 {
				w.int32() // preferred_read_replica
			}
			if n := int(w.int32()); n > 0 { // -1: null
				p.Records = w.take(n)
			}
			if w.err != nil {
				return w.err
			}
			if err := p.check(); err != nil {
				return fmt.Errorf("%s/%d: %w", topic, p.Partition, err)
			}
			if topic == f.topic {
				f.parts = append(f.parts, p)
			}
		}
	}
	return w.err
}

// Offsets in a v2 record batch (after its base offset and length, which
// batches reads).
const (
	batchMagic           = 4  // after partition leader epoch
	batchCRC             = 5  // CRC-32C of everything from attributes on
	batchAttributes      = 9  // compression 0-2, timestamp type 3, transactional 4, control 5
	batchLastOffsetDelta = 11 //
	batchFirstTimestamp  = 15
	batchMaxTimestamp    = 23
	batchProducerID      = 31
	batchRecordCount     = 45
	batchRecords         = 49
)

// check verifies every whole batch's CRC, as kafka-go does, and falls back
// to kafka-go's decoding for old-format batches.
func (p *fetchedPartition) check() error {
	for b := p.Records; ; {
		_, batch, rest, ok := nextBatch(b)
		if !ok {
			return nil
		}
		b = rest
		if batch[batchMagic] != 2 {
			var rs protocol.RecordSet
			framed := binary.BigEndian.AppendUint32(nil, uint32(len(p.Records)))
			r := bufio.NewReader(io.MultiReader(bytes.NewReader(framed), bytes.NewReader(p.Records)))
			if _, err := rs.ReadFrom(r); err != nil {
				return err
			}
			p.legacy = &rs
			return nil
		}
		if len(batch) < batchRecords {
			return errShort
		}
		if sum := crc32.Checksum(batch[batchAttributes:], castagnoli); sum != binary.BigEndian.Uint32(batch[batchCRC:]) {
			return fmt.Errorf("crc32 checksum mismatch (computed=%d found=%d)", sum, binary.BigEndian.Uint32(batch[batchCRC:]))
		}
	}
}

// nextBatch splits the first whole batch off b: its base offset, and its
// bytes after the length (partition leader epoch on). ok is false when
// none is left whole.
func nextBatch(b []byte) (base int64, batch, rest []byte, ok bool) {
	if len(b) < 12+batchMagic+1 {
		return 0, nil, nil, false
	}
	n := int(int32(binary.BigEndian.Uint32(b[8:12])))
	if n < batchMagic+1 || 12+n > len(b) {
		return 0, nil, nil, false
	}
	return int64(binary.BigEndian.Uint64(b)), b[12 : 12+n], b[12+n:], true
}
