// Package model is koff's domain: offsets-topic records, the Connect offset
// codec (key/value parsing, a Jackson-compatible writer, Java HashMap order,
// murmur2 partitioning) and the Store of connectors and source partitions.
//
// It does no I/O, starts no goroutines and knows nothing of the terminal UI,
// so kafka/, connect/, edit/ and ui/ can all build on it.
package model
