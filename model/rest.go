package model

import (
	"bytes"

	"koff/model/java"
)

// RESTKey is the key Connect's worker writes for a REST offset edit
// (PATCH/DELETE): the partition map re-read by JsonConverter into a HashMap
// (integers as Long, other numbers as Double) and serialised by Jackson.
func RESTKey(connector string, partition java.Object) []byte {
	if partition == nil {
		return java.EncodeKey(connector, nil)
	}
	return java.EncodeKey(connector, java.JavaNumbers(java.HashMapOrder(partition)).(java.Object))
}

// RESTValue is the value Connect's worker writes for a REST offset edit,
// normalised the same way as RESTKey; nil for a reset.
func RESTValue(offset java.Object) []byte {
	if offset == nil {
		return nil
	}
	return java.AppendJackson(nil, java.JavaNumbers(java.HashMapOrder(offset)))
}

// SameJSON reports whether two parsed JSON values are equal regardless of
// object field order. Numbers compare by their text.
func SameJSON(a, b any) bool {
	return string(java.AppendSorted(nil, a)) == string(java.AppendSorted(nil, b))
}

// SortedJSON is v with object fields sorted by name: a canonical text for
// comparing partition maps regardless of field order.
func SortedJSON(v any) string { return string(java.AppendSorted(nil, v)) }

// IsRESTCanonical reports whether raw (the key's bytes in the topic) is
// exactly what the worker writes for k's partition when it comes through
// the REST API: fields in HashMap order and, because JsonConverter reads
// integers as Long and other numbers as Double, numbers as Java prints
// those (1.50 → 1.5, 1e2 → 100.0). A null partition is canonical as
// ["<connector>",null].
func IsRESTCanonical(k Key, raw []byte) bool {
	if k.Partition == nil {
		return bytes.Equal(raw, java.EncodeKey(k.Connector, nil))
	}
	p := java.JavaNumbers(java.HashMapOrder(k.Partition)).(java.Object)
	return bytes.Equal(raw, java.EncodeKey(k.Connector, p))
}
