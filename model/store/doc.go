// Package store is the Store engine: the in-memory model of the offsets
// topics that the Tailer feeds and every screen and command reads.
//
// Ingest takes a fetched batch under one lock; readers take snapshots
// (model's rows) sized to one screen. Memory grows with live source
// partitions, not with records read: keys live in arenas and hash indexes
// (hashindex.go, pages.go, spare.go), recent updates in rings, and
// what changed since a reader's last look in change logs (changelog.go,
// store_since*.go). taskread.go decides, as Kafka 4.1.1's
// KafkaOffsetBackingStore does, which copy of a partition a restarted task
// reads. No I/O; standard library and model/... only.
package store
