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
package demo
