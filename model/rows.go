package model

import (
	"time"

	"koff/model/java"
)

// Update is one record of a source partition: a new offset or a tombstone.
type Update struct {
	Time         time.Time
	RecordOffset int64
	Value        []byte // nil = tombstone
}

// Unparseable is a record koff (and Connect's worker) cannot read as an offset.
type Unparseable struct {
	TopicPartition
	Offset int64
	Time   time.Time
	Reason string
	Key    string // preview
	Value  string // preview
	// RawKey and RawValue are the record's bytes, at most UnparseableRaw
	// of each (KeyLen and ValueLen are the whole lengths), for a view of
	// the whole record; RawValue is nil for a tombstone.
	RawKey, RawValue []byte
	KeyLen, ValueLen int
}

// UnparseableRaw bounds the bytes kept of each unparseable record's key
// and value: the Store keeps only the most recent of them.
const UnparseableRaw = 16 << 10

// ConnectorRow is what the connectors screen shows of one connector.
type ConnectorRow struct {
	ID ConnectorID
	// Partitions counts source partitions whose task reads an offset;
	// Deleted those whose key the task reads holds a tombstone; NoOffset
	// those where the task gets none for another reason (a null or
	// unreadable value, or no stored key with the task's bytes).
	Partitions, Deleted, NoOffset int
	// Suspect counts source partitions with duplicate, misplaced or stray
	// keys, or values the task cannot read.
	Suspect    int
	Records    int64
	LastUpdate time.Time
	Flushes    []FlushEvent // recent flush events, oldest first
	// PartitionInterval is the shortest median gap between updates of one
	// of the connector's partitions: its tasks' flush interval, unaffected
	// by several tasks flushing at different moments (0 until seen).
	PartitionInterval time.Duration
	// REST is what Connect's REST API says of the connector; InREST is
	// false when koff has no REST view or the connector is not listed there.
	REST   ConnectorState
	InREST bool
	// RESTStale is REST's last error while REST is out of reach: REST is
	// then the state polled at RESTAt, not what it is now.
	RESTStale string
	RESTAt    time.Time
	// Tail is the Tailer's state when the row was read: while koff cannot
	// read the offsets topics it cannot see a flush either.
	Tail TailStatus
	// Type is source or sink: REST's word when it has one, else sink for a
	// connect-* consumer group and source for offsets-topic records.
	Type string
	// Orphaned: REST answers, but no longer lists a connector that still
	// has offsets; a new connector of the same name would resume from them.
	Orphaned bool
	// OwnTopic is the connector's offsets.storage.topic from REST (or,
	// without REST's word, from the config topic), if set: then that topic
	// is authoritative for its tasks.
	OwnTopic string
	// Target is the connector's target state in Connect's config topic
	// ("" when koff reads none, or it holds no config of the connector).
	Target string
	// Unconfigured: Connect's config topic, read to its end, holds no
	// config of the connector (deleted, or never created): no task of it
	// runs, whatever REST can say.
	Unconfigured bool
	// Sink is the consumer group lag of a sink connector (nil for sources).
	Sink *SinkSummary
	// Topics are the topics a source connector writes to, when known.
	Topics []string
	// Unflushed is the latest count of records written after the last
	// flush (nil until measured).
	Unflushed *Unflushed
	// Resume is the connector's latest resume check (nil until checked,
	// and on a copy of its offsets its tasks do not read).
	Resume *ConnectorResume
}

// Authoritative reports whether this row's offsets topic is the one the
// connector's tasks read.
func (r ConnectorRow) Authoritative() bool { return r.OwnTopic == "" || r.OwnTopic == r.ID.Topic }

// PartitionRow is what the partitions screen shows of one stored copy of a
// source partition: one key in one topic-partition.
type PartitionRow struct {
	ID        PartitionID
	Connector string
	// Partition is the source partition map as compact JSON ("null" for a
	// null partition); Offset the stored value as compact JSON, "" when
	// deleted or when it is not an offset the task can read (Unreadable
	// says why). Compact JSON: no whitespace, strings as Jackson writes
	// them, numbers with their stored digits (leading zeros dropped), a
	// repeated field once with its last value.
	Partition string
	Offset    string
	Deleted   bool
	// Stored is the raw value bytes as the topic holds them (nil: deleted).
	Stored       []byte
	Updated      time.Time
	RecordOffset int64
	Updates      int
	Flags        Flags

	// Live: this is the copy a restarted task reads (its key bytes are the
	// ones the task looks up, and its record is the latest of those bytes).
	Live bool
	// Stray says why the task ignores this copy ("" for the live copy).
	Stray string
	// Unreadable says why this value gives the task no offset (a null,
	// empty or unparseable value), "" otherwise.
	Unreadable string
	// JavaReads is the value as the task reads it back (Java's Long and
	// Double), set when that differs from the stored text: an integer
	// beyond 64 bits, 1e400 (Infinity), -0.0 (0.0).
	JavaReads string
	// TaskReads is what the task reads for this partition, whichever copy
	// holds it: the live copy's Offset, "" when it gets none (NoOffset says
	// why). TaskNote qualifies what koff could not know (field order, read
	// order across partitions).
	TaskReads string
	NoOffset  string
	TaskNote  string
	// LiveCopy is the copy the task reads, when there is one.
	LiveCopy *PartitionID
	// TaskForm: the key bytes are what a task's map serialises to, in
	// their field order. OrderUnknown: several such keys of this partition
	// differ only in field order and koff cannot tell which the task uses
	// (the live one is its best guess).
	TaskForm, OrderUnknown bool
	// Resume is the partition's latest resume check (nil until checked,
	// and on a copy the task does not read).
	Resume *PartitionResume
}

// PartitionDetail is everything known about one source partition.
type PartitionDetail struct {
	PartitionRow
	Key          []byte      // raw key bytes as written
	PartitionMap java.Object // nil for a null partition
	Value        []byte      // raw latest value; nil when deleted
	History      []Update
	// Homes lists every topic-partition holding the same key bytes.
	Homes []int
	// Expected is the murmur2 partition of the key (-1 when unknown).
	Expected int
}

// Stats is the header's summary of the Store.
type Stats struct {
	Records     int64
	Unparseable int64
	Connectors  int
	Partitions  int // source partitions whose task reads an offset
	Topics      map[string]int
	Status      TailStatus
}
