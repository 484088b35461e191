// Package probe gathers the facts a resume check judges: a topic's log
// start and end on the cluster a connector reads (its own, or a
// MirrorMaker source cluster), a Debezium connector's replication slot or
// binary logs, a FileStream source's file. Each probe is bounded in time
// and read-only; a system koff cannot reach makes the partitions it would
// have judged Unknown, with the reason in one line. Package
// model/resume decides from the facts.
package probe

// Source is one connector as a check sees it: its name, class and config
// (from REST, or Connect's config topic without REST) and, for a source
// connector, the offsets its tasks read.
type Source struct {
	Name  string
	Class string
	// Type is source or sink.
	Type   string
	Config map[string]string
	// Offsets are the source partitions whose task reads an offset.
	Offsets []Offset
	// Group is a sink's consumer group ("" is its
	// consumer.override.group.id, else connect-<name>).
	Group string
	// Absent says why no connector of this name is in Connect (orphaned
	// offsets, a deleted connector's group); "" when it is, or koff cannot
	// tell.
	Absent string
}

// Offset is one stored source partition, as compact JSON: its map and the
// value the task reads.
type Offset struct {
	Partition string
	Offset    string
}
