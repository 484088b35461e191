package model

import "strings"

// Flags mark suspect source partitions: keys an edit through Connect's REST
// API, or a restarted worker, would not treat the way an operator expects.
type Flags uint8

const (
	// FlagDuplicate: the same key bytes also live in another partition of the
	// offsets topic, so which value a restarted worker uses depends on read order.
	FlagDuplicate Flags = 1 << iota
	// FlagMisplaced: the key is not in its murmur2 partition, so a worker's
	// next write of it lands elsewhere and compaction never replaces this one.
	FlagMisplaced
	// FlagNotCanonical: the key bytes differ from what Connect's REST API
	// writes (compact JSON, Java HashMap field order), so REST edits miss it.
	FlagNotCanonical
	// FlagStray: the task does not read this copy: another copy has the
	// key bytes it looks up, or a later record of the same bytes, or no
	// copy does (PartitionRow.Stray says which).
	FlagStray
	// FlagUnreadable: the value is null, empty or unparseable, so a task
	// reading this key gets no offset.
	FlagUnreadable
	// FlagJavaNumber: a number the task reads differently from how it is
	// stored (beyond 64 bits, beyond a double, -0.0).
	FlagJavaNumber
)

// Suspect reports flags that mean the stored offset may not be the one a
// worker reads.
func (f Flags) Suspect() bool {
	return f&(FlagDuplicate|FlagMisplaced|FlagStray|FlagUnreadable|FlagJavaNumber) != 0
}

// Words names the flags for tables and CLI output.
func (f Flags) Words() []string {
	var w []string
	if f&FlagDuplicate != 0 {
		w = append(w, "duplicate")
	}
	if f&FlagMisplaced != 0 {
		w = append(w, "misplaced")
	}
	if f&FlagNotCanonical != 0 {
		w = append(w, "non-canonical")
	}
	if f&FlagStray != 0 {
		w = append(w, "stray")
	}
	if f&FlagUnreadable != 0 {
		w = append(w, "unreadable")
	}
	if f&FlagJavaNumber != 0 {
		w = append(w, "java-number")
	}
	return w
}

func (f Flags) String() string { return strings.Join(f.Words(), ",") }

// Explain gives one sentence per flag, for the detail view.
func (f Flags) Explain() []string {
	var s []string
	if f&FlagDuplicate != 0 {
		s = append(s, "The same key bytes also live in another partition: which value a restarted worker uses depends on read order.")
	}
	if f&FlagMisplaced != 0 {
		s = append(s, "The key is not in its murmur2 partition: it was written by hand with another partitioner, and compaction will never replace it.")
	}
	if f&FlagNotCanonical != 0 {
		s = append(s, "The key bytes differ from what Connect's REST API writes (compact, Java HashMap field order): REST edits of this partition would write a different key.")
	}
	if f&FlagStray != 0 {
		s = append(s, "A stray copy: a restarted task does not read it (see why below); only an action aimed at this copy changes it.")
	}
	if f&FlagUnreadable != 0 {
		s = append(s, "The value is null, empty or not JSON the worker's converter reads: a task reading this key gets no offset.")
	}
	if f&FlagJavaNumber != 0 {
		s = append(s, "A number in the value reads differently in Java than it is stored (beyond 64 bits, beyond a double, or -0.0).")
	}
	return s
}
