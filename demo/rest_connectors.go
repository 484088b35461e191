package demo

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"koff/model/java"
)

// Connector classes of the catalogue.
const (
	classPostgres   = "io.debezium.connector.postgresql.PostgresConnector"
	classFileStream = "org.apache.kafka.connect.file.FileStreamSourceConnector"
	classJDBC       = "io.confluent.connect.jdbc.JdbcSourceConnector"
	classMirror     = "org.apache.kafka.connect.mirror.MirrorSourceConnector"
)

// connectConfig is a connector's configuration as GET
// /connectors/NAME/config shows it: a flat string map with name,
// connector.class, tasks.max and the settings such a connector would have
// to produce the demo's partitions and topics. Secrets are config-provider
// placeholders, as a careful operator writes them.
func connectConfig(s connectorSpec, bootstrap string) map[string]string {
	if s.sink != nil {
		return sinkConfig(s)
	}
	cfg := map[string]string{
		"name":            s.name,
		"connector.class": s.class,
		"tasks.max":       strconv.Itoa(len(s.tasks)),
	}
	set := func(kv ...string) {
		for i := 0; i+1 < len(kv); i += 2 {
			cfg[kv[i]] = kv[i+1]
		}
	}
	switch s.class {
	case classPostgres:
		prefix := firstPart(s.topics[0].name)
		var tables []string
		for _, t := range s.topics {
			tables = append(tables, strings.TrimPrefix(t.name, prefix+"."))
		}
		set("database.hostname", prefix+"-db", "database.port", "5432", "database.dbname", prefix,
			"database.user", "debezium", "database.password", "${file:/etc/kafka-connect/secrets.properties:"+prefix+".password}",
			"plugin.name", "pgoutput", "slot.name", "debezium_"+prefix, "publication.name", "dbz_publication",
			"topic.prefix", prefix, "table.include.list", strings.Join(tables, ","))
	case classFileStream:
		// The real FileStream connector reads one file; the demo's task
		// tails several, hence the list.
		set("file", strings.Join(partitionValues(s, "filename"), ","), "topic", s.topics[0].name)
	case classJDBC:
		db := firstPart(s.topics[0].name)
		var tables []string
		for _, t := range partitionValues(s, "table") {
			tables = append(tables, strings.TrimPrefix(t, db+"."))
		}
		mode := "incrementing"
		if _, ok := s.tasks[0][0].initial.Get("timestamp"); ok {
			mode = "timestamp+incrementing"
			set("timestamp.column.name", "updated_at")
		}
		set("connection.url", "jdbc:postgresql://"+db+"-db:5432/"+db, "connection.user", "connect",
			"connection.password", "${file:/etc/kafka-connect/secrets.properties:"+db+".password}",
			"mode", mode, "incrementing.column.name", "id", "table.whitelist", strings.Join(tables, ","),
			"topic.prefix", db+".", "poll.interval.ms", "5000")
	case classMirror:
		alias := firstPart(s.topics[0].name)
		set("source.cluster.alias", alias, "target.cluster.alias", "backup",
			"source.cluster.bootstrap.servers", alias+"-kafka:9092", "target.cluster.bootstrap.servers", bootstrap,
			"topics", strings.Join(partitionValues(s, "topic"), ","),
			"key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter",
			"value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter",
			"sync.topic.acls.enabled", "false")
	}
	if s.offsetsTopic != "" {
		cfg["offsets.storage.topic"] = s.offsetsTopic
	}
	return cfg
}

func firstPart(topic string) string { return topic[:max(strings.IndexByte(topic, '.'), 0)] }

// partitionValues lists the distinct string values of one partition field
// over all the connector's partitions, in catalogue order.
func partitionValues(s connectorSpec, field string) []string {
	var out []string
	seen := map[string]bool{}
	for _, parts := range s.tasks {
		for _, p := range parts {
			if v, ok := p.partition.Get(field); ok {
				if str, ok := v.(string); ok && !seen[str] {
					seen[str] = true
					out = append(out, str)
				}
			}
		}
	}
	return out
}

// alterOffsets is SourceConnector.alterOffsets of a connector class, given
// the normalised offsets: whether the connector handled them itself (Connect
// then says "The offsets for this connector have been altered
// successfully"). Since Kafka 3.6 FileStreamSourceConnector and
// MirrorSourceConnector validate the offsets and return true, throwing a
// ConnectException (500) for a bad one; Debezium's and Confluent's JDBC
// connectors keep the default, false.
func alterOffsets(class string, edits []offsetEdit) (bool, *restError) {
	switch class {
	case classFileStream:
		return true, validateEach(edits, fileStreamOffset)
	case classMirror:
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
