// Package demo runs an embedded Kafka cluster with a simulated Kafka Connect
// worker, source and sink connectors: what `koff --demo` and `koff
// demo-cluster` show, and what the integration tests run against. No JVM,
// no Docker: the broker is kfake, a real Kafka wire-protocol server inside
// this process.
//
// Start brings up one broker on loopback with a compacted 25-partition
// connect-offsets topic, the connectors' data topics, and the connectors'
// tasks. Each source task reads its source partitions, produces data
// records to its data topic(s), and every flush interval (measured from the
// end of its previous flush, each task on its own staggered schedule) writes
// one offset record per source partition that had new records since its
// last flush, and nothing for the others, all in one produce call. Records
// are written as Connect writes them: key java.EncodeKey(connector,
// partition) in the connector's own map order, value the compact offset map,
// partition java.PartitionFor(key, 25), CreateTime now, no headers.
//
// Each sink task is a real member of its connector's consumer group (so the
// broker reports the group Stable with one member per task while it runs,
// Empty once it is stopped); it consumes the sink's topics and, every flush
// interval, commits the next offset to consume of every partition it holds,
// skipping the commit when nothing changed since the last one.
//
// StartBroker starts an empty broker for tests that need their own.
//
// # Source connectors
//
// Names and shapes are fixed; initial offsets come from a fixed seed.
//
//	debezium-inventory  io.debezium.connector.postgresql.PostgresConnector, 1 task
//	    partition {"server":"inventory"}
//	    offset    {"lsn_proc":L,"lsn_commit":C,"lsn":L,"txId":T,"ts_usec":U} (HashMap order; LSNs near 2^60)
//	    topics    inventory.public.customers, inventory.public.orders, inventory.public.products
//	file-logs           org.apache.kafka.connect.file.FileStreamSourceConnector, 1 task
//	    partition {"filename":"/var/log/app-1.log"} (its one file, as FileStreamSourceConnector's "file" names one)
//	    offset    {"position":N} (byte position after the last line)
//	    topics    logs.app
//	jdbc-billing        io.confluent.connect.jdbc.JdbcSourceConnector (timestamp+incrementing), 1 task
//	    partition {"protocol":"1","table":"billing.public.invoices"} (also billing.public.ledger, bursty)
//	    offset    {"timestamp_nanos":N,"incrementing":I,"timestamp":MS} (HashMap order)
//	    topics    billing.invoices, billing.ledger
//	jdbc-crm            io.confluent.connect.jdbc.JdbcSourceConnector (incrementing), 1 task
//	    partition {"protocol":"1","table":"crm.public.contacts"} (also crm.public.deals)
//	    offset    {"incrementing":I}
//	    topics    crm.contacts, crm.deals
//	    offsets.storage.topic=connect-offsets-crm: see "A connector with its
//	    own offsets topic" below
//	jdbc-legacy         io.confluent.connect.jdbc.JdbcSourceConnector (incrementing), 1 task
//	    partition {"protocol":"1","table":"legacy.public.accounts"} (also legacy.public.audit_log)
//	    offset    {"incrementing":I}
//	    topics    legacy.accounts, legacy.audit_log
//	    the stalled connector: StallAfter after its task starts, every flush
//	    times out, while it keeps producing data
//	jdbc-shop           io.confluent.connect.jdbc.JdbcSourceConnector (incrementing), 2 tasks
//	    partition {"protocol":"1","table":"shop.public.orders"} (also customers, idle for the first
//	              100 s and then bursty, payments and order_items)
//	    offset    {"incrementing":I}
//	    topics    shop.orders, shop.customers, shop.payments, shop.order_items
//	mm2-primary         org.apache.kafka.connect.mirror.MirrorSourceConnector, 3 tasks
//	    partition {"cluster":"primary","partition":P,"topic":T} for T in orders, payments, clicks, P in 0..7
//	              (payments 4..7 are idle: their offsets are hours old)
//	    offset    {"offset":N}
//	    topics    primary.orders, primary.payments, primary.clicks (8 partitions, same partition as upstream)
//
// Before the tasks start, connect-offsets is seeded with each partition's
// last commit "before the demo" (CreateTime in the past, from a flush ago to
// 26 h ago); the tasks then read their offsets back like after a restart.
// Together they produce about 24 data records/s.
//
// # Sink connectors
//
// The sinks consume what the sources write; their data topics start empty,
// so they start from the beginning (auto.offset.reset=earliest).
//
//	s3-archive          io.confluent.connect.s3.S3SinkConnector, 2 tasks
//	    topics    shop.orders, shop.payments
//	    group     connect-s3-archive
//	    keeps up: each commit covers nearly everything produced
//	es-search           io.confluent.connect.elasticsearch.ElasticsearchSinkConnector, 1 task
//	    topics    logs.app, inventory.public.orders
//	    group     es-search-v2 (consumer.override.group.id)
//	    the sink that falls behind: it gets through 2.4 records/s, 60% of
//	    what is produced to its topics, so its lag grows by about 1.3
//	    records/s while it runs
//
// Stop makes a final commit and leaves the group (Empty); resume rejoins
// and continues from the group's committed offsets. Pause keeps the tasks
// in the group (Stable) but consumes nothing. Cluster.SinkGroup names a
// sink's group.
//
// # A connector with its own offsets topic
//
// jdbc-crm's offsets.storage.topic is connect-offsets-crm (25 partitions,
// compacted, as Connect creates it with the worker's offset.storage.*
// settings). As in Connect (ConnectorOffsetBackingStore with a connector
// store and the worker's store), that topic is authoritative: its tasks read
// their offsets from it only. They write each flush there first and then,
// best effort, the same records to connect-offsets, where those secondary
// copies are never read back. Cluster.OffsetsTopics lists both topics.
//
// # An orphan
//
// OrphanConnector, jdbc-old-orders, was deleted from Connect nine days
// before the demo: its two last offsets ({"incrementing":I} for tables
// orders.public.orders and orders.public.order_lines) are written once at
// start with CreateTimes days ago and never again. It is not in
// Cluster.Connectors, and the REST API answers 404 for it.
//
// # A deleted sink's group, with a gap
//
// OrphanSinkGroup, connect-clickstream-archive, is the group of a sink
// deleted from Connect: it committed offset 120 of OrphanSinkTopic
// (web.clicks, one partition of 500 records), and DeleteRecords at start
// moves the topic's log start to 380, as retention would have. A sink
// created again under its name would skip the 260 records in between
// (koff's resume check: gap 260).
//
// # Seeded defects
//
// Three records on connect-offsets that no task reads, written once at start:
//
//   - DefectNotJSON, key `not json at all`, in its murmur2 partition;
//   - DefectOneElement, key `["only-one-element"]`, in its murmur2 partition;
//   - DefectHandEdited, key `["file-logs", {"filename": "/var/log/app-1.log"}]`
//     (spaces: not the bytes the task looks up), value {"position":0}, in the
//     partition kcat's default partitioner picks rather than its murmur2 one.
//
// # Stop and resume
//
// StopConnector stops a connector's tasks after a final flush; while it is
// stopped its offsets can be edited on the topic. ResumeConnector restarts the
// tasks, which re-read their offsets by exact key bytes from the latest record
// in the key's partition (a tombstone or no record: start from scratch), so
// an edit visibly changes where the connector continues. A stopped sink's
// group has no members, so its offsets can be committed from outside.
//
// # Connect REST emulator
//
// With Options.ConnectListen set, Start also serves (package demo/rest,
// through herder.go) the part of Connect's REST API koff uses, at
// ConnectURL(), with Connect's status codes, JSON shapes and exact messages
// (Options.ConnectVersion, default 4.1.1, is what GET / reports; before 3.5
// there is no stop or offsets endpoint, before 3.6 no PATCH or DELETE of
// offsets):
//
//	GET    /                          {"version","commit","kafka_cluster_id"}
//	GET    /connectors                names; ?expand=status&expand=info: keyed by name
//	GET    /connectors/NAME           info: name, config, tasks, type
//	GET    /connectors/NAME/status    RUNNING, PAUSED (tasks PAUSED) or STOPPED (tasks [])
//	GET    /connectors/NAME/config    flat string map
//	GET    /connectors/NAME/topics    the data topics it produced to (sinks: consumed from)
//	PUT    /connectors/NAME/stop      204; pause, resume: 202
//	GET    /connectors/NAME/offsets   any state
//	PATCH  /connectors/NAME/offsets   STOPPED only
//	DELETE /connectors/NAME/offsets   STOPPED only
//
// Offsets are computed and written as Connect's worker does, including its
// pitfalls: GET replays the whole offsets topic and looks each of the
// connector's partitions (by content) up under the key its map serialises
// to in Java HashMap order, so a partition stored only under other key
// bytes (another field order) shows "offset":null; PATCH writes one record per partition, key
// model.RESTKey in its murmur2 partition, value model.RESTValue or a
// tombstone; DELETE tombstones every partition under its HashMap-order key,
// so a record stored under other bytes survives. Bodies are checked in
// Connect's order, malformed ones get Jackson's messages with status 500,
// and an empty body gets the NullPointerException Connect answers it with.
// FileStream and MirrorMaker connectors validate offsets and say "The
// offsets for this connector have been altered successfully", as their
// alterOffsets do since Kafka 3.6; the others get the longer
// framework-managed message.
//
// For jdbc-crm, GET lists the partitions of both its topics and takes
// offsets from its own only (a partition only connect-offsets has shows
// "offset":null); PATCH and DELETE write to both, tombstones to
// connect-offsets first (Connect 3.8+; before 3.8 its own topic first).
//
// Sinks have "type":"sink", their "topics" and any
// consumer.override.group.id in their config. GET offsets lists the
// group's committed offsets as
// {"partition":{"kafka_partition":P,"kafka_topic":T},"offset":{"kafka_offset":N}}
// (the partition map in Java HashMap order, as Connect writes it). PATCH
// parses entries as SinkUtils does (400s in its words; numbers or numeric
// strings), commits the offsets to the group from outside and deletes the
// group offsets of partitions given "offset":null; DELETE deletes the group
// (one already gone counts as reset). With members still in the group (a
// zombie task) both fail with Connect's 500 saying so. Neither sink
// implements alterOffsets, so success is the framework-managed message.
//
// PauseConnector pauses like Connect: tasks stay listed as PAUSED, nothing
// is produced or flushed, and a resume continues from the offsets the tasks
// held rather than from the topic. Errors for unknown paths and methods are
// Jersey's (404 "HTTP 404 Not Found", 405 "HTTP 405 Method Not Allowed");
// creating, deleting and restarting connectors and the task endpoints are
// not emulated.
package demo
