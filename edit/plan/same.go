package plan

import (
	"bytes"

	"koff/model"
)

// InWriteOrder says a goes before b in the fixed order a plan's writes
// go in: topic, then partition number.
func InWriteOrder(a, b model.TopicPartition) bool {
	if a.Topic != b.Topic {
		return a.Topic < b.Topic
	}
	return a.Partition < b.Partition
}

// SameValue compares bytes for direct writes; REST edits are normalised by
// the worker, so they compare as JSON.
func SameValue(stored, want []byte, path Path) bool {
	if path == PathTopic {
		return bytes.Equal(stored, want)
	}
	if stored == nil || want == nil {
		return stored == nil && want == nil
	}
	a, err1 := model.ParseOffset(stored)
	b, err2 := model.ParseOffset(want)
	return err1 == nil && err2 == nil && model.SameJSON(a, b)
}

// SameRecordValue is SameValue where nil (a tombstone, a deleted offset)
// equals only nil.
func SameRecordValue(stored, want []byte, path Path) bool {
	if stored == nil || want == nil {
		return stored == nil && want == nil
	}
	return SameValue(stored, want, path)
}
