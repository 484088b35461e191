// Package model is Connect's offset semantics as koff reads them: the names
// of topic-partitions, connectors and source partitions, the offset codec
// (a key's connector and partition map, a value as the task reads it), the
// rows every screen and command shows, key flags, read order across
// partitions, flush and lag judgement, REST state and Connect's config
// topic records.
//
// It builds on model/java (what Java and Jackson do) and is built on by
// model/store (the Store engine). Like them it does no I/O, starts no
// goroutines and imports only the standard library and koff's model/...
// packages below it.
package model
