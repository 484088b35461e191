// Package demo runs an embedded Kafka cluster with simulated Kafka Connect
// source workers: what `koff --demo` and `koff demo-cluster` show, and what
// the integration tests run against. No JVM, no Docker: the broker is kfake,
// a real Kafka wire-protocol server inside this process.
//
// Start brings up one broker on loopback with a compacted 25-partition
// connect-offsets topic, the connectors' data topics, and the connectors'
// tasks. Each task reads its source partitions, produces data records to its
// data topic(s), and every flush interval (measured from the end of its
// previous flush, each task on its own staggered schedule) writes one offset
// record per source partition that had new records since its last flush,
// and nothing for the others, all in one produce call. Records are written
// as Connect writes them: key model.EncodeKey(connector, partition) in the
// connector's own map order, value the compact offset map, partition
// model.PartitionFor(key, 25), CreateTime now, no headers.
//
// StartBroker starts an empty broker for tests that need their own.
//
// # Connectors
//
// Names and shapes are fixed; initial offsets come from a fixed seed.
//
//	debezium-inventory  io.debezium.connector.postgresql.PostgresConnector, 1 task
//	    partition {"server":"inventory"}
//	    offset    {"lsn_proc":L,"lsn_commit":C,"lsn":L,"txId":T,"ts_usec":U} (HashMap order; LSNs near 2^60)
//	    topics    inventory.public.customers, inventory.public.orders, inventory.public.products
//	file-logs           org.apache.kafka.connect.file.FileStreamSourceConnector, 1 task
//	    partition {"filename":"/var/log/app-1.log"} (also app-2.log, bursty, and app-3.log, idle for 26 h)
//	    offset    {"position":N} (byte position after the last line)
//	    topics    logs.app
//	jdbc-billing        io.confluent.connect.jdbc.JdbcSourceConnector (timestamp+incrementing), 1 task
//	    partition {"protocol":"1","table":"billing.public.invoices"} (also billing.public.ledger, bursty)
//	    offset    {"timestamp_nanos":N,"incrementing":I,"timestamp":MS} (HashMap order)
//	    topics    billing.invoices, billing.ledger
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
// an edit visibly changes where the connector continues.
//
// # Connect REST emulator
//
// With Options.ConnectListen set, Start also serves the part of Connect's
// REST API koff uses, at ConnectURL(), with Connect's status codes, JSON
// shapes and exact messages (Options.ConnectVersion, default 3.9.0, is what
// GET / reports; before 3.5 there is no stop or offsets endpoint, before 3.6
// no PATCH or DELETE of offsets):
//
//	GET    /                          {"version","commit","kafka_cluster_id"}
//	GET    /connectors                names; ?expand=status&expand=info: keyed by name
//	GET    /connectors/NAME           info: name, config, tasks, type
//	GET    /connectors/NAME/status    RUNNING, PAUSED (tasks PAUSED) or STOPPED (tasks [])
//	GET    /connectors/NAME/config    flat string map
//	GET    /connectors/NAME/topics    the data topics it produced to
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
// PauseConnector pauses like Connect: tasks stay listed as PAUSED, nothing
// is produced or flushed, and a resume continues from the offsets the tasks
// held rather than from the topic. Errors for unknown paths and methods are
// Jersey's (404 "HTTP 404 Not Found", 405 "HTTP 405 Method Not Allowed");
// creating, deleting and restarting connectors and the task endpoints are
// not emulated.
package demo
