package rest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"koff/model/java"
)

// The connector classes whose alterOffsets checks the offsets.
const (
	fileStreamSourceClass = "org.apache.kafka.connect.file.FileStreamSourceConnector"
	mirrorSourceClass     = "org.apache.kafka.connect.mirror.MirrorSourceConnector"
)

// alterOffsets is SourceConnector.alterOffsets of a connector class, given
// the normalised offsets: whether the connector handled them itself (Connect
// then says "The offsets for this connector have been altered
// successfully"). Since Kafka 3.6 FileStreamSourceConnector and
// MirrorSourceConnector validate the offsets and return true, throwing a
// ConnectException (500) for a bad one; Debezium's and Confluent's JDBC
// connectors keep the default, false.
func alterOffsets(class string, edits []offsetEdit) (bool, *restError) {
	switch class {
	case fileStreamSourceClass:
		return true, validateEach(edits, fileStreamOffset)
	case mirrorSourceClass:
		return true, validateEach(edits, mirrorOffset)
	}
	return false, nil
}

func validateEach(edits []offsetEdit, check func(p, o java.Object) *restError) *restError {
	for _, e := range edits {
		if e.offset == nil {
			// "We allow tombstones for anything": garbage must be
			// removable through the REST API.
			continue
		}
		if err := check(e.partition, e.offset); err != nil {
			return err
		}
	}
	return nil
}

// fileStreamOffset is FileStreamSourceConnector.alterOffsets' check.
func fileStreamOffset(p, o java.Object) *restError {
	v, ok := o.Get("position")
	switch n, long := javaLong(v); {
	case !ok:
		return errorf(http.StatusInternalServerError, "Offset objects should either be null or contain the key 'position'")
	case !long:
		return errorf(http.StatusInternalServerError, "The value for the 'position' key in the offset is expected to be a Long value")
	case n < 0:
		return errorf(http.StatusInternalServerError, "The value for the 'position' key in the offset should be a non-negative value")
	case p == nil:
		return errorf(http.StatusInternalServerError, "Partition objects cannot be null")
	}
	if _, ok := p.Get("filename"); !ok {
		return errorf(http.StatusInternalServerError, "Partition objects should contain the key 'filename'")
	}
	return nil
}

// mirrorOffset is MirrorSourceConnector.alterOffsets' check (MirrorUtils).
func mirrorOffset(p, o java.Object) *restError {
	if p == nil {
		return errorf(http.StatusInternalServerError, "Source partitions may not be null")
	}
	for _, key := range []string{"cluster", "topic"} {
		v, ok := p.Get(key)
		if !ok {
			return errorf(http.StatusInternalServerError, "Source partition %s is missing the '%s' key, which is required", javaString(p), key)
		}
		if _, ok := v.(string); !ok {
			return errorf(http.StatusInternalServerError, "Source partition %s has an invalid value %s for the '%s' key, which must be a string", javaString(p), javaString(v), key)
		}
	}
	v, ok := p.Get("partition")
	n, long := javaLong(v)
	switch {
	case !ok:
		return errorf(http.StatusInternalServerError, "Source partition %s is missing the 'partition' key, which is required", javaString(p))
	case !long || n > math.MaxInt32:
		return errorf(http.StatusInternalServerError, "Source partition %s has an invalid value %s for the 'partition' key, which must be an integer", javaString(p), javaString(v))
	case int32(n) < 0:
		return errorf(http.StatusInternalServerError, "Source partition %s has an invalid value %s for the 'partition' key, which cannot be negative", javaString(p), javaString(v))
	}
	v, ok = o.Get("offset")
	n, long = javaLong(v)
	switch {
	case !ok:
		return errorf(http.StatusInternalServerError, "Source offset %s for source partition %s is missing the 'offset' key, which is required", javaString(o), javaString(p))
	case !long:
		return errorf(http.StatusInternalServerError, "Source offset %s for source partition %s has an invalid value %s for the 'offset' key, which must be an integer", javaString(o), javaString(p), javaString(v))
	case n < 0:
		return errorf(http.StatusInternalServerError, "Source offset %s for source partition %s has an invalid value %s for the 'offset' key, which cannot be negative", javaString(o), javaString(p), javaString(v))
	}
	return nil
}

// javaLong reports whether a normalised value is a java.lang.Long (an
// integral JSON number: JsonConverter reads those as Long) and its value.
func javaLong(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok || strings.ContainsAny(string(n), ".eE") {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}

// javaString is Java's toString of a normalised value, as String.format's
// %s prints it in Connect's messages: {k=v, k=v} for maps, [a, b] for lists.
func javaString(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return v
	case java.Object:
		parts := make([]string, len(v))
		for i, f := range v {
			parts[i] = f.Name + "=" + javaString(f.Value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = javaString(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v) // json.Number (already as Java prints it) and bool
}
