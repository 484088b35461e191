package plan

import (
	"errors"
	"fmt"

	"koff/model"
	"koff/model/java"
)

// Kind is what an edit does.
type Kind string

const (
	KindSet      Kind = "set"       // new offsets for some source partitions
	KindReset    Kind = "reset"     // delete the offsets of some source partitions
	KindResetAll Kind = "reset-all" // delete every offset of a connector
	KindImport   Kind = "import"    // offsets from an export file
	// KindRewind puts a source connector's partitions back to the commits
	// in force at a time (koff set --to-datetime, the dashboard's T).
	KindRewind Kind = "rewind"
	KindUndo   Kind = "undo" // the before-values of the last edit
	// KindDeleteStray tombstones one stray copy of a partition (a key the
	// task does not read); the task's offset stays as it is.
	KindDeleteStray Kind = "delete-stray"

	// A connector stopped or resumed through REST: audited like an edit
	// (who, when, the state before), never undone.
	KindStop   Kind = "stop"
	KindResume Kind = "resume"
)

// Item is one source partition to change. A nil Offset deletes it.
type Item struct {
	Partition java.Object // nil for a null partition map
	Offset    java.Object
	// Stray, when set, names the one stored copy to delete (KindDeleteStray):
	// that key in that topic-partition, nothing else.
	Stray *model.PartitionID
	// Restore, when set, writes these exact records instead (undo: each
	// copy gets back its own value).
	Restore []Restore
}

// Restore is one exact record to write back: a key in a topic-partition
// and its value (nil: a tombstone).
type Restore struct {
	model.TopicPartition
	Key, Value []byte
}

// Request asks for an edit of one connector's offsets.
type Request struct {
	Connector string
	Kind      Kind
	Items     []Item
	// From is the connector a copy takes its offsets from.
	From string
	// Create allows a name koff has never seen (no offsets, no group, not
	// in Connect): the offsets of a new connector. Without it such a name
	// is refused as a likely typo.
	Create bool
	// Group names a sink's consumer group when Connect's REST API cannot
	// (its consumer.override.group.id); "" takes it from REST, or from a
	// connect-<name> group that has committed offsets.
	Group string
	// Undoes is the id of the edit an undo puts back (KindUndo), and
	// UndoesWhat names it ("rewind of NAME to T").
	Undoes, UndoesWhat string
	// Rewind is what a rewind was asked (KindRewind): its time, as typed
	// and as read, and what it does with partitions newer than it.
	Rewind *RewindAsked
	// ByteExact writes the offsets as given, byte for byte, to the
	// offsets topic (a rename's copy): Connect's PATCH would re-serialise
	// them (HashMap order, Java's numbers).
	ByteExact bool
	// Rekey is what a rekey rewrites (KindRekey): its items are planned
	// from it.
	Rekey *RekeyAsked
}

// ParsePartition reads a source partition map given on a command line or
// typed in a dialog. "null" is the null partition map.
func ParsePartition(s string) (java.Object, error) {
	v, err := java.ParseJSON([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("partition is not valid JSON: %s", s)
	}
	switch p := v.(type) {
	case nil:
		return nil, nil
	case java.Object:
		if err := model.ValidateOffset(p); err != nil {
			return nil, fmt.Errorf("partition: %s", partitionMessage(err))
		}
		return p, nil
	}
	return nil, errors.New("partition must be a JSON object")
}

// ParseOffset reads an offset map given on a command line or typed in a
// dialog. It is checked as Connect's worker checks offsets (primitive values
// only); "null" means delete.
func ParseOffset(s string) (java.Object, bool, error) {
	v, err := java.ParseJSON([]byte(s))
	if err != nil {
		return nil, false, errors.New("offset is not valid JSON")
	}
	switch o := v.(type) {
	case nil:
		return nil, true, nil
	case java.Object:
		if err := model.ValidateOffset(o); err != nil {
			return nil, false, err
		}
		return o, false, nil
	}
	return nil, false, errors.New("offset must be a JSON object (or null to delete it)")
}

func partitionMessage(err error) string {
	// Connect validates partitions with the same rule and words as offsets.
	return err.Error()
}

// IsSinkPartition recognises Connect's sink offset shape.
func IsSinkPartition(p java.Object) bool {
	_, t := p.Get("kafka_topic")
	_, n := p.Get("kafka_partition")
	return t && n && len(p) == 2
}

// KindCopy sets another connector's offsets to a connector's (an orphan's
// offsets moved to the connector that replaces it).
const KindCopy Kind = "copy"
