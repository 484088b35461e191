package demo

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"koff/model/java"
)

// A source simulates what one source partition's task reads: a table, a
// replication slot, a file, an upstream topic-partition. next "reads" one
// record and advances the position; offset is the position as the connector
// would hand it to Connect in SourceRecord.sourceOffset().
type source interface {
	next(rng *rand.Rand, now time.Time) dataRecord
	offset() java.Object
	// seek continues from a committed offset read back from the offsets
	// topic; an error means the offset is not one this connector wrote.
	seek(off java.Object) error
}

// dataRecord is one record a task produces to its data topic. partition < 0
// lets the worker choose (murmur2 of the key, or spread when there is none).
type dataRecord struct {
	topic     string
	partition int32
	key       []byte
	value     []byte
}

func num(n int64) json.Number { return json.Number(strconv.FormatInt(n, 10)) }

// intField reads an integral offset field exactly (never via float64).
func intField(o java.Object, name string) (int64, error) {
	v, ok := o.Get(name)
	if !ok {
		return 0, fmt.Errorf("offset has no %q field", name)
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("offset field %q is not a number", name)
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("offset field %q: %w", name, err)
	}
	return i, nil
}

// rowValue is a compact JSON row for JDBC-style data records.
func rowValue(table string, id int64, rng *rand.Rand) []byte {
	return fmt.Appendf(nil, `{"id":%d,"table":%q,"amount":%d.%02d}`, id, table, rng.IntN(500), rng.IntN(100))
}

// jdbcIncrementing is the JDBC source connector in "incrementing" mode: the
// offset is the largest id read so far, {"incrementing":N}.
type jdbcIncrementing struct {
	table, topic string
	id           int64
}

func (s *jdbcIncrementing) next(rng *rand.Rand, _ time.Time) dataRecord {
	s.id++
	return dataRecord{topic: s.topic, partition: -1, value: rowValue(s.table, s.id, rng)}
}

func (s *jdbcIncrementing) offset() java.Object {
	return java.Object{{Name: "incrementing", Value: num(s.id)}}
}

func (s *jdbcIncrementing) seek(off java.Object) error {
	id, err := intField(off, "incrementing")
	if err != nil {
		return err
	}
	s.id = id
	return nil
}

// jdbcTimestampIncrementing is "timestamp+incrementing" mode. The connector
// builds its offset in a java.util.HashMap, so the fields come out in HashMap
// order: timestamp_nanos, incrementing, timestamp.
type jdbcTimestampIncrementing struct {
	table, topic string
	id           int64
	ts           time.Time
}

func (s *jdbcTimestampIncrementing) next(rng *rand.Rand, now time.Time) dataRecord {
	s.id++
	// A row's modification time never goes backwards in the query's order.
	if now.After(s.ts) {
		s.ts = now
	}
	return dataRecord{topic: s.topic, partition: -1, value: rowValue(s.table, s.id, rng)}
}

func (s *jdbcTimestampIncrementing) offset() java.Object {
	return java.HashMapOrder(java.Object{
		{Name: "timestamp", Value: num(s.ts.UnixMilli())},
		{Name: "timestamp_nanos", Value: num(int64(s.ts.Nanosecond()))},
		{Name: "incrementing", Value: num(s.id)},
	})
}

func (s *jdbcTimestampIncrementing) seek(off java.Object) error {
	ms, err := intField(off, "timestamp")
	if err != nil {
		return err
	}
	nanos, err := intField(off, "timestamp_nanos")
	if err != nil {
		return err
	}
	id, err := intField(off, "incrementing")
	if err != nil {
		return err
	}
	// java.sql.Timestamp: getTime() has the millis, getNanos() the whole
	// fraction of the second.
	s.ts = time.Unix(ms/1000, nanos).UTC()
	if ms < 0 {
		s.ts = time.UnixMilli(ms).UTC()
	}
	s.id = id
	return nil
}

// debeziumPostgres is a Debezium Postgres connector streaming from a
// replication slot. LSNs are 64-bit WAL positions, far above 2^53, so any
// float64 round trip would corrupt them. Debezium keeps the offset in a
// HashMap: lsn_proc, lsn_commit, lsn, txId, ts_usec.
type debeziumPostgres struct {
	topics     []string
	lsn        int64 // position of the last event read
	lsnCommit  int64 // commit LSN of the last completed transaction
	txID       int64
	txLeft     int // events left in the current transaction
	tsUsec     int64
	nextCustID int64
}

func (s *debeziumPostgres) next(rng *rand.Rand, now time.Time) dataRecord {
	if s.txLeft == 0 {
		s.lsnCommit = s.lsn
		s.txID++
		s.txLeft = 1 + rng.IntN(4)
	}
	s.txLeft--
	s.lsn += 56 + int64(rng.IntN(2000)) // one WAL record
	s.tsUsec = now.UnixMicro()
	s.nextCustID++
	topic := s.topics[rng.IntN(len(s.topics))]
	key := fmt.Appendf(nil, `{"id":%d}`, 1000+s.nextCustID%5000)
	value := fmt.Appendf(nil, `{"op":"u","source":{"lsn":%d,"txId":%d,"ts_usec":%d}}`, s.lsn, s.txID, s.tsUsec)
	return dataRecord{topic: topic, partition: -1, key: key, value: value}
}

func (s *debeziumPostgres) offset() java.Object {
	return java.HashMapOrder(java.Object{
		{Name: "lsn_proc", Value: num(s.lsn)},
		{Name: "lsn_commit", Value: num(s.lsnCommit)},
		{Name: "lsn", Value: num(s.lsn)},
		{Name: "txId", Value: num(s.txID)},
		{Name: "ts_usec", Value: num(s.tsUsec)},
	})
}

func (s *debeziumPostgres) seek(off java.Object) error {
	lsn, err := intField(off, "lsn")
	if err != nil {
		return err
	}
	commit, err := intField(off, "lsn_commit")
	if err != nil {
		commit = lsn
	}
	tx, err := intField(off, "txId")
	if err != nil {
		return err
	}
	s.lsn, s.lsnCommit, s.txID, s.txLeft = lsn, commit, tx, 0
	if ts, err := intField(off, "ts_usec"); err == nil {
		s.tsUsec = ts
	}
	return nil
}

// fileStream is a FileStreamSource-style tailer: the offset is the byte
// position after the last line read, {"position":N}.
type fileStream struct {
	filename, topic string
	pos             int64
}

func (s *fileStream) next(rng *rand.Rand, now time.Time) dataRecord {
	line := fmt.Sprintf("%s INFO  [worker-%d] request handled in %dms path=/api/v1/items/%d",
		now.UTC().Format(time.RFC3339Nano), rng.IntN(8), rng.IntN(900), rng.IntN(100000))
	if n := rng.IntN(120); n > 0 {
		trace := strconv.FormatUint(rng.Uint64(), 36) // 1 to 13 digits
		line += " trace=" + trace[:min(n, len(trace))]
	}
	s.pos += int64(len(line)) + 1 // the newline
	return dataRecord{topic: s.topic, partition: -1, value: []byte(line)}
}

func (s *fileStream) offset() java.Object {
	return java.Object{{Name: "position", Value: num(s.pos)}}
}

func (s *fileStream) seek(off java.Object) error {
	pos, err := intField(off, "position")
	if err != nil {
		return err
	}
	s.pos = pos
	return nil
}

// mirrorSource is MirrorMaker 2's MirrorSourceTask replicating one upstream
// topic-partition to the same partition of the "primary."-prefixed topic.
// The offset is the upstream offset of the last record replicated.
type mirrorSource struct {
	topic     string // target topic
	partition int32
	upstream  int64
}

func (s *mirrorSource) next(rng *rand.Rand, _ time.Time) dataRecord {
	s.upstream++
	key := fmt.Appendf(nil, "user-%d", rng.IntN(20000))
	value := fmt.Appendf(nil, `{"upstream_offset":%d}`, s.upstream)
	return dataRecord{topic: s.topic, partition: s.partition, key: key, value: value}
}

func (s *mirrorSource) offset() java.Object {
	return java.Object{{Name: "offset", Value: num(s.upstream)}}
}

func (s *mirrorSource) seek(off java.Object) error {
	o, err := intField(off, "offset")
	if err != nil {
		return err
	}
	s.upstream = o
	return nil
}
