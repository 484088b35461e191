package demo

import (
	"strconv"
	"strings"
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
		// FileStreamSourceConnector reads the one file its file names.
		set("file", partitionValues(s, "filename")[0], "topic", s.topics[0].name)
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

// pluginVersion is what the connector class's version() answers: Kafka's
// own connectors say the worker's Kafka version (AppInfoParser), the others
// their release.
func pluginVersion(class, kafkaVersion string) string {
	switch class {
	case "io.confluent.connect.jdbc.JdbcSourceConnector":
		return "10.8.4"
	case "io.debezium.connector.postgresql.PostgresConnector":
		return "3.2.4.Final"
	case classElasticsearch:
		return "15.0.1"
	case classS3:
		return "10.6.7"
	}
	return kafkaVersion
}
