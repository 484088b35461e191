package plan

import (
	"fmt"
	"strconv"
	"time"

	"koff/model"
	"koff/model/java"
)

// PathGroup: a sink's consumer group offsets, committed directly.
const PathGroup Path = "group"

// SinkKind is how new committed offsets are chosen for a sink.
type SinkKind string

const (
	SinkToOffset    SinkKind = "offset"    // a given offset
	SinkToEarliest  SinkKind = "earliest"  // the log start
	SinkToLatest    SinkKind = "latest"    // the log end: skip everything unread
	SinkToTimestamp SinkKind = "timestamp" // the first record at or after a time
	SinkShiftBy     SinkKind = "shift"     // the committed offset ± N
	SinkReset       SinkKind = "reset"     // delete the committed offsets
	SinkExplicit    SinkKind = "explicit"  // an offset per partition (import, undo)
)

// SinkStrategy picks the new committed offset of each partition.
type SinkStrategy struct {
	Kind   SinkKind
	Offset int64
	Time   time.Time
	Shift  int64
	// Offsets for SinkExplicit; -1 deletes the partition's committed offset.
	Offsets map[model.TopicPartition]int64
}

// SinkRequest asks for an edit of a sink connector's committed offsets.
type SinkRequest struct {
	Connector string
	Kind      Kind
	// Partitions to change; none means every partition the group has
	// committed offsets for (or, for SinkExplicit, those in Offsets).
	Partitions []model.TopicPartition
	// Topics are the --topic flags Partitions were chosen by, so that the
	// plan's command line chooses them the same way.
	Topics   []string
	Strategy SinkStrategy
	// Create and Group as in Request: a name koff has never seen is
	// refused without Create, and without REST the group is taken only
	// from evidence (connect-<name> with committed offsets) or Group.
	Create bool
	Group  string
}

// SinkChange is one topic-partition of a sink edit.
type SinkChange struct {
	model.TopicPartition
	// Before is the committed offset now, After the new one; -1 is none.
	Before, After int64
	Start, End    int64
	// Asked is the offset asked for, before clamping to the log.
	Asked int64
	// Warning says when the offset asked for was outside the log.
	Warning string
	// FromEnd: with the offset deleted the sink starts at the log end
	// (consumer.override.auto.offset.reset=latest).
	FromEnd bool
}

// Lag after the edit: with no committed offset the sink starts at the log
// start (auto.offset.reset=earliest, Connect's default for sinks) or, with
// consumer.override.auto.offset.reset=latest, at the end.
func (c SinkChange) Lag() int64 {
	if c.After < 0 && c.FromEnd {
		return 0
	}
	if c.After < 0 {
		return c.End - c.Start
	}
	return c.End - c.After
}

// Moved says what the sink does differently after the edit: the records it
// skips (the new offset is ahead of the committed one) or replays (behind).
// With no committed offset before, it says nothing. A committed offset
// below the log start (retention or DeleteRecords removed records it never
// read) is no position the sink can resume from: those records are gone
// whatever the edit does, as koff check says, and the edit is measured
// from the log start, where Connect's earliest puts the sink.
func (c SinkChange) Moved() string {
	from, to := c.Before, c.After
	if from < 0 {
		return ""
	}
	if to < 0 { // deleted: auto.offset.reset
		to = c.Start
		if c.FromEnd {
			to = c.End
		}
	}
	gone := ""
	if from < c.Start {
		gone = records(c.Start-from) + " below the log start " + strconv.FormatInt(c.Start, 10) + " gone already · from there "
		from = c.Start
	}
	switch {
	case to > from:
		return gone + "skips " + records(to-from)
	case to < from:
		return gone + "replays " + records(from-to)
	}
	return gone + "unchanged"
}

func records(n int64) string {
	if n == 1 {
		return "1 record"
	}
	return strconv.FormatInt(n, 10) + " records"
}

// ClampToLog moves a new offset outside the partition's log to its start
// or end, as kafka-consumer-groups --reset-offsets does
// (ConsumerGroupCommand.checkOffsetsRange), and says so. Committed as
// asked, such an offset would make the sink's consumer get
// OFFSET_OUT_OF_RANGE and follow auto.offset.reset (earliest for sink
// tasks): a shift past the end would replay the whole partition.
func (c *SinkChange) ClampToLog() {
	c.Asked = c.After
	switch {
	case c.After > c.End:
		c.After = c.End
		c.Warning = fmt.Sprintf("offset %d is above the log end %d: clamped to %d, as kafka-consumer-groups does", c.Asked, c.End, c.End)
	case c.After < c.Start:
		c.After = c.Start
		c.Warning = fmt.Sprintf("offset %d is below the log start %d: clamped to %d, as kafka-consumer-groups does", c.Asked, c.Start, c.Start)
	}
}

// SinkPartitionJSON is a topic-partition in Connect's sink partition shape.
func SinkPartitionJSON(tp model.TopicPartition) string {
	return `{"kafka_topic":` + string(java.AppendJackson(nil, tp.Topic)) + `,"kafka_partition":` + strconv.Itoa(tp.Partition) + `}`
}

// SinkOffsetJSON is a committed offset in Connect's sink offset shape.
func SinkOffsetJSON(n int64) []byte {
	return []byte(`{"kafka_offset":` + strconv.FormatInt(n, 10) + `}`)
}
