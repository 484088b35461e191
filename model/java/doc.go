// Package java is what the worker's JVM does to offsets, as pure functions:
// a JSON tree that keeps field order and number text, Jackson's reader and
// writer, Java's HashMap iteration order and String.hashCode, Java's Long
// and Double readings of a number, JSON validity, and Kafka's murmur2
// partitioner. Everything else in koff trusts it, so it imports no koff
// package and only the standard library.
package java
