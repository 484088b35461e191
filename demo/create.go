package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"koff/demo/rest"
)

// Classes a created connector may have besides the catalogue's.
const classFileStreamSink = "org.apache.kafka.connect.file.FileStreamSinkConnector"

// createdActivity is how often a created source partition has a record: a
// steady trickle, so that what it read from its offsets shows soon.
var createdActivity = steady(1)

// mirrorPartitions is how many partitions the demo's upstream topics have
// (mm2-primary's): a MirrorSourceConnector created from a config mirrors
// as many.
const mirrorPartitions = 8

// CreateConnector creates a connector from its config (which names it) in
// an initial target state, RUNNING, PAUSED or STOPPED, as POST /connectors
// with KIP-980's initial_state does: its config and target state go to the
// config topic and, RUNNING, its tasks start from the offsets already in
// its offsets topic, which is what a connector created under a name that
// had offsets does. The classes the demo can run are the catalogue's
// (Debezium PostgreSQL, JDBC, FileStream, MirrorMaker 2, the Elasticsearch
// and S3 sinks) and FileStreamSink; their partitions follow from the
// config as the real connectors' do.
func (c *Cluster) CreateConnector(config map[string]string, state string) error {
	name := config["name"]
	spec, err := c.specFromConfig(config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.ensureTopics(ctx, &spec); err != nil {
		return err
	}
	c.mu.Lock()
	if _, ok := c.connectors[name]; ok {
		c.mu.Unlock()
		return fmt.Errorf("%w: %s", rest.ErrExists, name)
	}
	conn := &connector{w: c.w, spec: spec, created: maps.Clone(config)}
	conn.taskBase = c.w.totalTasks
	if spec.sink != nil {
		conn.sink = &sinkState{consumed: map[string]bool{}}
	}
	conn.mu.Lock() // before it can be seen: nothing runs it until it started
	defer conn.mu.Unlock()
	c.connectors[name] = conn
	c.names = append(c.names, name)
	sort.Strings(c.names)
	c.mu.Unlock()

	target := state
	if state == stateRunning {
		target = stateStarted
	}
	if err := c.w.client.ProduceSync(ctx, c.configRecords(conn, target)...).FirstErr(); err != nil {
		c.forget(name)
		return fmt.Errorf("write the config topic: %w", err)
	}
	switch state {
	case stateRunning:
		if err := conn.start(ctx); err != nil {
			c.forget(name)
			return err
		}
	default:
		conn.state = state // PAUSED or STOPPED: no tasks yet
	}
	c.w.logf("connector %s created (%s)", name, state)
	return nil
}

// UpdateConnector gives an existing connector a new config, as PUT
// /connectors/NAME/config does: its tasks stop, and start again with it
// (from its offsets) unless it is paused or stopped.
func (c *Cluster) UpdateConnector(config map[string]string) error {
	name := config["name"]
	conn, ok := c.lookup(name)
	if !ok {
		return fmt.Errorf("%w %s", ErrUnknownConnector, name)
	}
	spec, err := c.specFromConfig(config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.ensureTopics(ctx, &spec); err != nil {
		return err
	}
	conn.mu.Lock()
	defer conn.mu.Unlock()
	was := conn.state
	conn.stop()
	conn.state = was
	if (spec.sink == nil) != (conn.spec.sink == nil) {
		return &rest.ConfigError{Message: "Connector type cannot change"}
	}
	conn.spec, conn.created = spec, maps.Clone(config)
	props, _ := json.Marshal(map[string]any{"properties": conn.config(c.Bootstrap())})
	if err := c.w.client.ProduceSync(ctx, &kgo.Record{Topic: c.configTopic, Key: []byte("connector-" + name), Value: props}).FirstErr(); err != nil {
		return fmt.Errorf("write the config topic: %w", err)
	}
	if was == stateRunning {
		return conn.start(ctx)
	}
	return nil
}

// DeleteConnector deletes a connector as DELETE /connectors/NAME does: its
// tasks stop (a source's last flush, a sink's last commit), and its config
// and target state are tombstoned in the config topic. Its offsets stay in
// the offsets topic (and a sink's group keeps its commits): a connector
// created later under the same name starts from them.
func (c *Cluster) DeleteConnector(name string) error {
	conn, ok := c.lookup(name)
	if !ok {
		return fmt.Errorf("%w %s", ErrUnknownConnector, name)
	}
	conn.mu.Lock()
	conn.stop()
	conn.mu.Unlock()
	c.forget(name)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// KafkaConfigBackingStore.removeConnectorConfig: both in one send.
	err := c.w.client.ProduceSync(ctx,
		&kgo.Record{Topic: c.configTopic, Key: []byte("connector-" + name)},
		&kgo.Record{Topic: c.configTopic, Key: []byte("target-state-" + name)},
	).FirstErr()
	if err != nil {
		return fmt.Errorf("tombstone %s in the config topic: %w", name, err)
	}
	c.w.logf("connector %s deleted", name)
	return nil
}

// forget drops a connector from the cluster and whatever was kept of it.
func (c *Cluster) forget(name string) {
	c.mu.Lock()
	delete(c.connectors, name)
	if i := sort.SearchStrings(c.names, name); i < len(c.names) && c.names[i] == name {
		c.names = append(c.names[:i], c.names[i+1:]...)
	}
	c.mu.Unlock()
	c.held.Delete(name)
	c.unassigned.Delete(name)
	c.failedTasks.Range(func(k, _ any) bool {
		if k.(failedTask).connector == name {
			c.failedTasks.Delete(k)
		}
		return true
	})
}

// ensureTopics creates a created connector's topics that do not exist, as
// a broker with auto.create.topics.enable does (one partition; a mirror's
// target topics as many as upstream), and its own offsets topic as the
// worker creates it; it records how many partitions each has.
func (c *Cluster) ensureTopics(ctx context.Context, spec *connectorSpec) error {
	if spec.offsetsTopic != "" {
		if _, err := c.ensureTopic(ctx, spec.offsetsTopic, OffsetsPartitions, map[string]string{"cleanup.policy": "compact"}); err != nil {
			return err
		}
	}
	topics := spec.topics
	if spec.sink != nil {
		for _, t := range spec.sink.topics {
			topics = append(topics, topicSpec{t, 1})
		}
	}
	for i, t := range topics {
		n, err := c.ensureTopic(ctx, t.name, t.partitions, nil)
		if err != nil {
			return err
		}
		if i < len(spec.topics) {
			spec.topics[i].partitions = n
		}
		c.w.topicMu.Lock()
		c.w.topicPartitions[t.name] = n
		c.w.topicMu.Unlock()
	}
	return nil
}

// ensureTopic creates a topic unless it exists, and says how many
// partitions it has.
func (c *Cluster) ensureTopic(ctx context.Context, topic string, partitions int, configs map[string]string) (int, error) {
	err := c.broker.createTopic(ctx, topic, partitions, configs)
	if err == nil {
		return partitions, nil
	}
	if !errors.Is(err, kerr.TopicAlreadyExists) {
		return 0, err
	}
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, c.w.client)
	if err != nil {
		return 0, fmt.Errorf("topic %s: %w", topic, err)
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) == 0 {
		return 0, fmt.Errorf("topic %s: no partitions in metadata", topic)
	}
	return len(resp.Topics[0].Partitions), nil
}

// specFromConfig is the simulated connector a config describes: its
// partitions are the ones the real connector class would write for it
// (connectConfig's inverse for the catalogue's classes).
func specFromConfig(cfg map[string]string) (connectorSpec, error) {
	name, class := cfg["name"], cfg["connector.class"]
	tasksMax := 1
	if v, ok := cfg["tasks.max"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return connectorSpec{}, invalidConfig("Invalid value " + v + " for configuration tasks.max: Value must be at least 1")
		}
		tasksMax = n
	}
	list := func(key string) []string {
		var out []string
		for _, v := range strings.Split(cfg[key], ",") {
			if v = strings.TrimSpace(v); v != "" {
				out = append(out, v)
			}
		}
		return out
	}
	require := func(keys ...string) error {
		for _, k := range keys {
			if strings.TrimSpace(cfg[k]) == "" {
				return invalidConfig("Missing required configuration \"" + k + "\" which has no default value.")
			}
		}
		return nil
	}
	spec := connectorSpec{name: name, class: class, offsetsTopic: cfg["offsets.storage.topic"]}
	switch class {
	case classFileStream:
		if err := require("topic"); err != nil {
			return spec, err
		}
		topic := cfg["topic"]
		spec.topics = []topicSpec{{topic, 1}}
		spec.tasks = make([][]partitionSpec, 1) // FileStreamSourceConnector runs one task
		// One file, as FileStreamSourceConnector reads it (ConfigDef
		// trims a STRING); none is stdin, which has no offsets.
		if f := strings.TrimSpace(cfg["file"]); f != "" {
			spec.tasks[0] = append(spec.tasks[0], partitionSpec{
				partition: obj("filename", f), activity: createdActivity,
				newSource: func() source { return &fileStream{filename: f, topic: topic} },
			})
		}
	case classJDBC:
		if err := require("connection.url", "topic.prefix", "table.whitelist"); err != nil {
			return spec, err
		}
		url := cfg["connection.url"]
		db := url[strings.LastIndexByte(url, '/')+1:]
		tables := list("table.whitelist")
		spec.tasks = make([][]partitionSpec, min(tasksMax, len(tables)))
		timestamp := strings.Contains(cfg["mode"], "timestamp")
		for i, tb := range tables {
			table := db + "." + tb
			topic := jdbcTopic(cfg["topic.prefix"], table)
			spec.topics = append(spec.topics, topicSpec{topic, 1})
			src := func() source { return &jdbcIncrementing{table: table, topic: topic} }
			if timestamp {
				src = func() source {
					return &jdbcTimestampIncrementing{table: table, topic: topic, ts: time.Unix(0, 0).UTC()}
				}
			}
			spec.tasks[i%len(spec.tasks)] = append(spec.tasks[i%len(spec.tasks)], partitionSpec{
				partition: jdbcPartition(table), activity: createdActivity, newSource: src,
			})
		}
	case classPostgres:
		if err := require("topic.prefix"); err != nil {
			return spec, err
		}
		prefix := cfg["topic.prefix"]
		var topics []string
		for _, tb := range list("table.include.list") {
			topics = append(topics, prefix+"."+tb)
			spec.topics = append(spec.topics, topicSpec{prefix + "." + tb, 1})
		}
		if len(topics) == 0 {
			topics = []string{prefix + ".public.events"}
			spec.topics = []topicSpec{{topics[0], 1}}
		}
		spec.tasks = [][]partitionSpec{{{
			partition: obj("server", prefix), activity: createdActivity,
			// Without an offset Debezium snapshots and streams from the
			// slot's current position.
			newSource: func() source { return &debeziumPostgres{topics: topics, lsn: 1 << 32, lsnCommit: 1 << 32} },
		}}}
	case classMirror:
		if err := require("source.cluster.alias", "topics"); err != nil {
			return spec, err
		}
		alias := cfg["source.cluster.alias"]
		upstream := list("topics")
		spec.tasks = make([][]partitionSpec, min(tasksMax, len(upstream)*mirrorPartitions))
		i := 0
		for _, t := range upstream {
			target := alias + "." + t
			spec.topics = append(spec.topics, topicSpec{target, mirrorPartitions})
			for p := range int32(mirrorPartitions) {
				spec.tasks[i%len(spec.tasks)] = append(spec.tasks[i%len(spec.tasks)], partitionSpec{
					partition: obj("cluster", alias, "partition", num(int64(p)), "topic", t),
					activity:  createdActivity,
					newSource: func() source { return &mirrorSource{topic: target, partition: p, upstream: -1} },
				})
				i++
			}
		}
	case classElasticsearch, classS3, classFileStreamSink:
		if err := require("topics"); err != nil {
			return spec, err
		}
		spec.sink = &sinkSpec{tasks: tasksMax, topics: list("topics"), groupID: cfg["consumer.override.group.id"]}
	default:
		return spec, unknownClass(class, nil)
	}
	return spec, nil
}

// invalidConfig is Connect's answer to a config its ConfigDef refuses.
func invalidConfig(msg string) *rest.ConfigError {
	return &rest.ConfigError{Message: "Connector configuration is invalid and contains the following 1 error(s):\n" + msg + "\n" +
		"You can also find the above list of errors at the endpoint `/connector-plugins/{connectorType}/config/validate`"}
}

// specFromConfig refuses, as Connect does, a class this cluster's
// workers lack (StartSecondConnect's without).
func (c *Cluster) specFromConfig(cfg map[string]string) (connectorSpec, error) {
	if class := strings.TrimSpace(cfg["connector.class"]); c.without[class] {
		return connectorSpec{}, unknownClass(class, c.without)
	}
	return specFromConfig(cfg)
}

// demoClasses are the connector plugins of the demo's workers, sorted by
// class, less those without names.
func demoClasses(without map[string]bool) []string {
	var classes []string
	for _, k := range []string{classPostgres, classFileStream, classJDBC, classMirror, classElasticsearch, classS3, classFileStreamSink} {
		if !without[k] {
			classes = append(classes, k)
		}
	}
	sort.Strings(classes)
	return classes
}

// plugins are the connector plugins of the demo's workers, as GET
// /connector-plugins lists them (connectors only, sorted by class).
func plugins(version string, without map[string]bool) []rest.Plugin {
	if version == "" {
		version = rest.DefaultConnectVersion
	}
	classes := demoClasses(without)
	out := make([]rest.Plugin, 0, len(classes))
	for _, k := range classes {
		kind := "source"
		if k == classElasticsearch || k == classS3 || k == classFileStreamSink {
			kind = "sink"
		}
		out = append(out, rest.Plugin{Class: k, Type: kind, Version: pluginVersion(k, version)})
	}
	return out
}

// unknownClass is Connect's answer to a class no plugin has: the plugins
// the workers do have, sorted by class name.
func unknownClass(class string, without map[string]bool) *rest.ConfigError {
	var descs []string
	for _, k := range demoClasses(without) {
		kind := "source"
		if k == classElasticsearch || k == classS3 || k == classFileStreamSink {
			kind = "sink"
		}
		v := pluginVersion(k, rest.DefaultConnectVersion)
		descs = append(descs, fmt.Sprintf("PluginDesc{klass=class %s, name='%s', version='%s', encodedVersion=%s, type=%s, typeName='%s', location='file:/usr/share/java/'}",
			k, k, v, v, kind, kind))
	}
	return &rest.ConfigError{Message: fmt.Sprintf("Failed to find any class that implements Connector and which name matches %s, available connectors are: %s",
		class, strings.Join(descs, ", "))}
}
