package demo

import (
	"sort"
	"strconv"
	"strings"
)

// Connector classes of the demo's sinks.
const (
	classS3            = "io.confluent.connect.s3.S3SinkConnector"
	classElasticsearch = "io.confluent.connect.elasticsearch.ElasticsearchSinkConnector"
)

// sinkSpec describes a sink connector: the topics its tasks consume, the
// consumer group they join and how fast they process records.
type sinkSpec struct {
	tasks  int      // tasks.max: one group member each
	topics []string // the connector's "topics" config
	// groupID is consumer.override.group.id; empty: connect-<name>.
	groupID string
	// rate is how many records per second the connector gets through
	// (all its tasks together); 0: as fast as they arrive.
	rate float64
	// config is the rest of the connector's configuration, key, value, …
	config []string
}

// sinkCatalogue returns the demo's sink connectors. They consume topics the
// source connectors write, so their lag follows the sources' activity.
func sinkCatalogue() []connectorSpec {
	secret := func(key string) string { return "${file:/etc/kafka-connect/secrets.properties:" + key + "}" }
	return []connectorSpec{
		{
			// Falls behind: its lag grows steadily while it runs.
			name:  "es-search",
			class: classElasticsearch,
			sink: &sinkSpec{
				tasks:   1,
				topics:  []string{"logs.app", "inventory.public.orders"},
				groupID: "es-search-v2", // re-indexed once, under a new group
				// file-logs writes about 3 records/s to logs.app and
				// debezium-inventory about 0.7 to inventory.public.orders:
				// 2.4/s is 65% of that, so the lag grows all the time.
				rate: 2.4,
				config: []string{
					"connection.url", "http://elasticsearch:9200", "connection.username", "connect",
					"connection.password", secret("es.password"), "key.ignore", "true", "schema.ignore", "true",
					"behavior.on.malformed.documents", "warn", "batch.size", "200",
				},
			},
		},
		{
			// Keeps up: each commit covers nearly all that was produced.
			name:  "s3-archive",
			class: classS3,
			sink: &sinkSpec{
				tasks:  2,
				topics: []string{"shop.orders", "shop.payments"},
				config: []string{
					"s3.bucket.name", "acme-shop-archive", "s3.region", "eu-west-1",
					"aws.access.key.id", secret("s3.access.key"), "aws.secret.access.key", secret("s3.secret.key"),
					"storage.class", "io.confluent.connect.s3.storage.S3Storage",
					"format.class", "io.confluent.connect.s3.format.json.JsonFormat",
					"partitioner.class", "io.confluent.connect.storage.partitioner.DefaultPartitioner",
					"flush.size", "1000", "rotate.interval.ms", "60000",
				},
			},
		},
	}
}

// group is the sink's consumer group, as Worker#baseConsumerConfigs
// computes it: consumer.override.group.id, else connect-<name>.
func (s *connectorSpec) group() string {
	if s.sink == nil {
		return ""
	}
	if s.sink.groupID != "" {
		return s.sink.groupID
	}
	return "connect-" + s.name
}

// sinkConfig is a sink's configuration as GET /connectors/NAME/config shows
// it: name, class, tasks.max, topics and the connector's own settings.
func sinkConfig(s connectorSpec) map[string]string {
	cfg := map[string]string{
		"name":            s.name,
		"connector.class": s.class,
		"tasks.max":       strconv.Itoa(s.sink.tasks),
		"topics":          strings.Join(s.sink.topics, ","),
	}
	if s.sink.groupID != "" {
		cfg["consumer.override.group.id"] = s.sink.groupID
	}
	for i := 0; i+1 < len(s.sink.config); i += 2 {
		cfg[s.sink.config[i]] = s.sink.config[i+1]
	}
	return cfg
}

// sortedTopics returns a connector's topics, sorted: the data topics a
// source produces to, the topics a sink consumes.
func (s *connectorSpec) sortedTopics() []string {
	var out []string
	if s.sink != nil {
		out = append(out, s.sink.topics...)
	}
	for _, t := range s.topics {
		out = append(out, t.name)
	}
	sort.Strings(out)
	return out
}
