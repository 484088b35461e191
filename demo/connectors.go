package demo

import (
	"math/rand/v2"
	"strings"
	"time"

	"koff/model/java"
)

// catalogueSeed fixes the initial offsets: every run of the demo starts from
// the same positions, so docs and screenshots can quote them.
const catalogueSeed = 0x6b6f6666 // "koff"

// connectorSpec describes one simulated connector: a source connector
// (tasks, topics) or, with sink set, a sink connector.
type connectorSpec struct {
	name   string
	class  string      // connector.class, as the REST API reports it
	topics []topicSpec // the data topics its tasks produce to (sources)
	tasks  [][]partitionSpec
	// stalls makes the connector stop flushing offsets StallAfter after
	// its tasks start, while it keeps producing data.
	stalls bool
	// offsetsTopic is the connector's own offsets.storage.topic; empty:
	// the worker's. See own_topic.go.
	offsetsTopic string
	// sink makes this a sink connector; see sinks.go.
	sink *sinkSpec
}

// kind is the connector type as the REST API says it.
func (s *connectorSpec) kind() string {
	if s.sink != nil {
		return "sink"
	}
	return "source"
}

// taskCount is tasks.max: how many tasks run while the connector runs.
func (s *connectorSpec) taskCount() int {
	if s.sink != nil {
		return s.sink.tasks
	}
	return len(s.tasks)
}

type topicSpec struct {
	name       string
	partitions int
}

// partitionSpec is one source partition of a task.
type partitionSpec struct {
	// partition is the source partition map in the connector's own map
	// order; the key is java.EncodeKey(connector, partition).
	partition java.Object
	activity  activity
	// newSource returns the source at the position a task starts from when
	// the offsets topic has no offset for it (none, or a tombstone).
	newSource func() source
	// initial is the offset committed before the demo started (written as
	// seeded history with CreateTime now-age); nil means never committed.
	initial java.Object
	age     time.Duration
}

func obj(kv ...any) java.Object {
	o := make(java.Object, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		o = append(o, java.Field{Name: kv[i].(string), Value: kv[i+1]})
	}
	return o
}

// catalogue returns the demo's source connectors. Shapes follow the real
// connectors (see doc.go); positions come from catalogueSeed. The first six
// are sorted by name and share one random stream; connectors added later
// come after them with streams of their own, so that neither the first
// six's positions nor their tasks' seeds (by index) changed. The sinks are
// in sinkCatalogue.
func catalogue(start time.Time, flush time.Duration) []connectorSpec {
	rng := rand.New(rand.NewPCG(catalogueSeed, 1))
	recent := flush / 2 // "just flushed": half an interval before start
	return []connectorSpec{
		debeziumInventory(rng, start, recent),
		fileLogs(rng, recent),
		jdbcBilling(rng, start, recent),
		jdbcLegacy(rng, recent),
		jdbcShop(rng, recent),
		mm2Primary(rng, recent),
		jdbcCRM(recent),
	}
}

// jdbcTable is one table of a JDBC-style connector.
type jdbcTable struct {
	table    string // schema-qualified, as in the partition map
	act      activity
	firstID  int64 // incrementing value of the seeded history record
	age      time.Duration
	taskSlot int
}

// jdbcPartition is the JDBC connector's protocol-1 source partition, built
// in a HashMap (whose order happens to be protocol, table).
func jdbcPartition(table string) java.Object {
	return obj("protocol", "1", "table", table)
}

// jdbcTopic is topic.prefix + the bare table name, as the JDBC connector
// names its topics ("shop." + "orders").
func jdbcTopic(prefix, table string) string {
	return prefix + table[strings.LastIndexByte(table, '.')+1:]
}

func jdbcIncrementingConnector(name, prefix string, ntasks int, tables []jdbcTable) connectorSpec {
	c := connectorSpec{
		name:  name,
		class: "io.confluent.connect.jdbc.JdbcSourceConnector",
		tasks: make([][]partitionSpec, ntasks),
	}
	for _, t := range tables {
		topic := jdbcTopic(prefix, t.table)
		c.topics = append(c.topics, topicSpec{topic, 3})
		table := t.table
		initial := (&jdbcIncrementing{id: t.firstID}).offset()
		c.tasks[t.taskSlot] = append(c.tasks[t.taskSlot], partitionSpec{
			partition: jdbcPartition(table),
			activity:  t.act,
			newSource: func() source { return &jdbcIncrementing{table: table, topic: topic} },
			initial:   initial,
			age:       t.age,
		})
	}
	return c
}

func jdbcShop(rng *rand.Rand, recent time.Duration) connectorSpec {
	return jdbcIncrementingConnector("jdbc-shop", "shop.", 2, []jdbcTable{
		{table: "shop.public.orders", act: steady(2), firstID: 48000 + rng.Int64N(2000), age: recent, taskSlot: 0},
		{table: "shop.public.customers", act: bursty(0.5, 20*time.Second, 3*time.Minute, 100*time.Second),
			firstID: 9000 + rng.Int64N(1000), age: 47 * time.Minute, taskSlot: 0},
		{table: "shop.public.payments", act: steady(1), firstID: 41000 + rng.Int64N(2000), age: recent, taskSlot: 1},
		{table: "shop.public.order_items", act: steady(3), firstID: 130000 + rng.Int64N(5000), age: recent, taskSlot: 1},
	})
}

func jdbcLegacy(rng *rand.Rand, recent time.Duration) connectorSpec {
	c := jdbcIncrementingConnector("jdbc-legacy", "legacy.", 1, []jdbcTable{
		{table: "legacy.public.accounts", act: steady(1), firstID: 7000 + rng.Int64N(500), age: recent},
		{table: "legacy.public.audit_log", act: steady(0.5), firstID: 880000 + rng.Int64N(9000), age: recent},
	})
	c.stalls = true
	return c
}

// CRMOffsetsTopic is jdbc-crm's own offsets.storage.topic.
const CRMOffsetsTopic = "connect-offsets-crm"

// jdbcCRM is a JDBC source with its own offsets topic (KIP-618): its tasks
// read their offsets from connect-offsets-crm only, and write there first
// and then, as secondary copies, to the worker's topic (see own_topic.go).
func jdbcCRM(recent time.Duration) connectorSpec {
	rng := rand.New(rand.NewPCG(catalogueSeed, 2))
	c := jdbcIncrementingConnector("jdbc-crm", "crm.", 1, []jdbcTable{
		{table: "crm.public.contacts", act: steady(0.5), firstID: 61000 + rng.Int64N(2000), age: recent},
		{table: "crm.public.deals", act: steady(1), firstID: 15000 + rng.Int64N(1000), age: recent},
	})
	c.offsetsTopic = CRMOffsetsTopic
	return c
}

func jdbcBilling(rng *rand.Rand, start time.Time, recent time.Duration) connectorSpec {
	c := connectorSpec{
		name:  "jdbc-billing",
		class: "io.confluent.connect.jdbc.JdbcSourceConnector",
		tasks: make([][]partitionSpec, 1),
	}
	tables := []jdbcTable{
		{table: "billing.public.invoices", act: steady(0.5), firstID: 23000 + rng.Int64N(1000), age: recent},
		{table: "billing.public.ledger", act: bursty(1.5, 30*time.Second, 2*time.Minute, 0),
			firstID: 310000 + rng.Int64N(9000), age: 2 * time.Minute},
	}
	for _, t := range tables {
		topic := jdbcTopic("billing.", t.table)
		c.topics = append(c.topics, topicSpec{topic, 3})
		table := t.table
		// The row read last was modified a little before it was committed.
		ts := start.Add(-t.age - time.Duration(rng.IntN(900))*time.Millisecond - time.Duration(rng.IntN(1e6)))
		initial := (&jdbcTimestampIncrementing{id: t.firstID, ts: ts}).offset()
		c.tasks[0] = append(c.tasks[0], partitionSpec{
			partition: jdbcPartition(table),
			activity:  t.act,
			newSource: func() source {
				return &jdbcTimestampIncrementing{table: table, topic: topic, ts: time.Unix(0, 0).UTC()}
			},
			initial: initial,
			age:     t.age,
		})
	}
	return c
}

func debeziumInventory(rng *rand.Rand, start time.Time, recent time.Duration) connectorSpec {
	topics := []string{"inventory.public.customers", "inventory.public.orders", "inventory.public.products"}
	c := connectorSpec{
		name:  "debezium-inventory",
		class: "io.debezium.connector.postgresql.PostgresConnector",
		tasks: make([][]partitionSpec, 1), // Postgres connectors always run one task
	}
	for _, t := range topics {
		c.topics = append(c.topics, topicSpec{t, 1})
	}
	// LSNs near 2^60 (a long-lived cluster's WAL), well past float64's 2^53.
	lsn := int64(1)<<60 + rng.Int64N(1<<40)
	seeded := &debeziumPostgres{
		topics: topics, lsn: lsn, lsnCommit: lsn - 1200 - rng.Int64N(4000),
		txID: 7_340_000 + rng.Int64N(10000), tsUsec: start.Add(-recent).UnixMicro(),
	}
	initial := seeded.offset()
	scratch := *seeded
	c.tasks[0] = []partitionSpec{{
		partition: obj("server", "inventory"),
		activity:  steady(2),
		// Without an offset Debezium takes a new snapshot and streams
		// from the slot's current position, past anything committed.
		newSource: func() source {
			s := scratch
			s.lsn += 1 << 24
			s.lsnCommit = s.lsn
			return &s
		},
		initial: initial,
		age:     recent,
	}}
	return c
}

func fileLogs(rng *rand.Rand, recent time.Duration) connectorSpec {
	c := connectorSpec{
		name:   "file-logs",
		class:  "org.apache.kafka.connect.file.FileStreamSourceConnector",
		topics: []topicSpec{{"logs.app", 3}},
		tasks:  make([][]partitionSpec, 1),
	}
	// FileStreamSourceConnector reads the one file its "file" names: one
	// source partition, {"filename": file}.
	const name = "/var/log/app-1.log"
	c.tasks[0] = append(c.tasks[0], partitionSpec{
		partition: obj("filename", name),
		activity:  steady(3),
		newSource: func() source { return &fileStream{filename: name, topic: "logs.app"} },
		initial:   (&fileStream{pos: 18_000_000 + rng.Int64N(1_000_000)}).offset(),
		age:       recent,
	})
	return c
}

func mm2Primary(rng *rand.Rand, recent time.Duration) connectorSpec {
	const ntasks, nparts = 3, 8
	c := connectorSpec{
		name:  "mm2-primary",
		class: "org.apache.kafka.connect.mirror.MirrorSourceConnector",
		tasks: make([][]partitionSpec, ntasks),
	}
	upstream := []string{"orders", "payments", "clicks"}
	i := 0
	for _, t := range upstream {
		target := "primary." + t // DefaultReplicationPolicy: <source alias>.<topic>
		c.topics = append(c.topics, topicSpec{target, nparts})
		for p := range int32(nparts) {
			act, age := steady(0.3), recent
			switch {
			case t == "clicks":
				act = steady(0.6)
			case t == "payments" && p >= 4:
				// Skewed keys upstream: these partitions get nothing.
				act, age = idle, time.Duration(3+p)*time.Hour
			case t == "payments":
				act = steady(0.25)
			}
			pp := p
			c.tasks[i%ntasks] = append(c.tasks[i%ntasks], partitionSpec{
				// MirrorUtils.wrapPartition builds a HashMap; its order is
				// cluster, partition, topic.
				partition: obj("cluster", "primary", "partition", num(int64(p)), "topic", t),
				activity:  act,
				newSource: func() source { return &mirrorSource{topic: target, partition: pp, upstream: -1} },
				initial:   (&mirrorSource{upstream: 100_000 + rng.Int64N(900_000)}).offset(),
				age:       age,
			})
			i++
		}
	}
	return c
}
