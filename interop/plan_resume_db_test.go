package interop

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	kafka "github.com/segmentio/kafka-go"

	"koff/demo"
	"koff/model/java"
)

// planBroker is an embedded broker holding Connect's offsets and config
// topics, with one STOPPED connector of the given config and stored
// offset: enough for koff to plan an edit of it (no worker needed).
func planBroker(t *testing.T, name, config, partition, offset string) string {
	t.Helper()
	b, err := demo.StartBroker("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	for topic, n := range map[string]int{"connect-offsets": 25, "connect-configs": 1} {
		if err := b.CreateTopic(topic, n, nil); err != nil {
			t.Fatal(err)
		}
	}
	c := &kafka.Client{Addr: kafka.TCP(b.Bootstrap()), Timeout: 10 * time.Second}
	put := func(topic string, partition int, key, value string) {
		t.Helper()
		var err error
		for try := 0; try < 50; try++ { // a topic just created may be missing from metadata a moment
			var res *kafka.ProduceResponse
			res, err = c.Produce(context.Background(), &kafka.ProduceRequest{Topic: topic, Partition: partition, RequiredAcks: kafka.RequireAll,
				Records: kafka.NewRecordReader(kafka.Record{Key: kafka.NewBytes([]byte(key)), Value: kafka.NewBytes([]byte(value)), Time: time.Now()})})
			if err == nil {
				err = res.Error
			}
			if err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatal(err)
	}
	put("connect-configs", 0, "connector-"+name, `{"properties":`+config+`}`)
	put("connect-configs", 0, "target-state-"+name, `{"state":"PAUSED","state.v2":"STOPPED"}`)
	key := `["` + name + `",` + partition + `]`
	put("connect-offsets", java.PartitionFor([]byte(key), 25), key, offset)
	return b.Bootstrap()
}

// planDryRun plans koff set of one partition and returns the plan printed.
func planDryRun(t *testing.T, addr, name, partition, offset string, extra ...string) string {
	t.Helper()
	out, errs, code := koff(t, append([]string{"set", name, "--partition", partition, "--offset", offset, "-b", addr, "--dry-run"}, extra...)...)
	if code != 0 {
		t.Fatalf("koff set %s --offset %s: exit %d\n%s\n%s", name, offset, code, out, errs)
	}
	return out
}

// A plan that sets a Debezium PostgreSQL offset to an lsn older than its
// slot's confirmed_flush_lsn (a real PostgreSQL 15, the slot advanced past
// it) says before confirm that the position is gone and that PostgreSQL
// streams from confirmed_flush_lsn, the changes in between never arriving;
// an lsn the slot holds says nothing of the kind; once the slot's
// restart_lsn is past the lsn too, the plan says the task fails on start.
func TestPlanWarnsOfAnLSNTheSlotNoLongerHolds(t *testing.T) {
	pg := realPostgres(t)
	const slot = "koff_plan"
	pg.mustSQL(t, "CREATE TABLE IF NOT EXISTS koff_plan_t (id int)")
	pg.mustSQL(t, fmt.Sprintf("SELECT pg_create_logical_replication_slot('%s', 'pgoutput')", slot))
	t.Cleanup(func() {
		pg.SQL(context.Background(), fmt.Sprintf("SELECT pg_drop_replication_slot('%s') FROM pg_replication_slots WHERE slot_name = '%s'", slot, slot))
		pg.SQL(context.Background(), "DROP TABLE IF EXISTS koff_plan_t")
	})
	old := pgLSN(t, pg.mustSQL(t, fmt.Sprintf("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '%s'", slot)))
	pg.mustSQL(t, "INSERT INTO koff_plan_t SELECT g FROM generate_series(1, 100) g")
	pg.mustSQL(t, fmt.Sprintf("SELECT pg_replication_slot_advance('%s', pg_current_wal_lsn())", slot))
	now := pgLSN(t, pg.mustSQL(t, fmt.Sprintf("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '%s'", slot)))
	offset := func(lsn int64) string {
		return fmt.Sprintf(`{"lsn_proc":%d,"lsn_commit":%d,"lsn":%d,"txId":800,"ts_usec":%d}`, lsn, lsn, lsn, time.Now().UnixMicro())
	}
	port := strconv.Itoa(pg.Port)
	cfg := `{"connector.class":"io.debezium.connector.postgresql.PostgresConnector","name":"inv","database.hostname":"127.0.0.1","database.port":"` + port +
		`","database.dbname":"postgres","database.user":"postgres","slot.name":"` + slot + `","plugin.name":"pgoutput","topic.prefix":"inv"}`
	addr := planBroker(t, "inv", cfg, `{"server":"inv"}`, offset(now))
	pass := dbPassFile(t, "127.0.0.1:"+port+":postgres:postgres:unused")

	restartLSN := func() int64 {
		return pgLSN(t, pg.mustSQL(t, fmt.Sprintf("SELECT restart_lsn FROM pg_replication_slots WHERE slot_name = '%s'", slot)))
	}
	before := restartLSN()
	out := planDryRun(t, addr, "inv", `{"server":"inv"}`, offset(old), "--db-pass-file", pass)
	after := restartLSN()
	want := `warning: Debezium PostgreSQL: the new offset of {"server":"inv"} does not exist (gap): `
	t.Log(out)
	// The advance usually leaves restart_lsn where it was; a checkpoint
	// of the server's other work (other tests share it) moves it past old
	// too, and then the task fails on start (as below): the plan says
	// what the slot says when it looks.
	streams := strings.Contains(out, want) && strings.Contains(out, "confirmed_flush_lsn") && strings.Contains(out, "never")
	fails := strings.Contains(out, want) && strings.Contains(out, "the task fails on start")
	switch {
	case after <= old && !streams:
		t.Errorf("an lsn %d older than the slot's confirmed_flush_lsn %d: want %q and what PostgreSQL does, in\n%s", old, now, want, out)
	case before > old && !fails:
		t.Errorf("an lsn %d older than the slot's restart_lsn %d already: want the task failing on start, in\n%s", old, before, out)
	case !streams && !fails:
		t.Errorf("an lsn %d older than the slot's confirmed_flush_lsn %d (restart_lsn moved past it meanwhile): want either, in\n%s", old, now, out)
	}
	if out := planDryRun(t, addr, "inv", `{"server":"inv"}`, offset(now), "--db-pass-file", pass); strings.Contains(out, "does not exist") || strings.Contains(out, "could not check") {
		t.Errorf("an lsn the slot holds:\n%s", out)
	}
	// A checkpoint and more WAL move the slot's restart_lsn past the old
	// lsn too: the WAL there may be removed, and the task fails on start.
	// (A logical slot moves restart_lsn to a running-transactions record
	// a checkpoint logged, once it was advanced past it twice.)
	for range 3 {
		pg.mustSQL(t, "INSERT INTO koff_plan_t SELECT g FROM generate_series(1, 100) g")
		pg.mustSQL(t, "CHECKPOINT")
		pg.mustSQL(t, fmt.Sprintf("SELECT pg_replication_slot_advance('%s', pg_current_wal_lsn())", slot))
	}
	restart := restartLSN()
	if restart <= old {
		t.Skipf("restart_lsn %d did not move past %d", restart, old)
	}
	out = planDryRun(t, addr, "inv", `{"server":"inv"}`, offset(old), "--db-pass-file", pass)
	t.Log(out)
	if !strings.Contains(out, want) || !strings.Contains(out, `slot "`+slot+`" restarts at lsn`) || !strings.Contains(out, "the task fails on start") {
		t.Errorf("an lsn %d older than the slot's restart_lsn %d: want the task failing on start, in\n%s", old, restart, out)
	}
}

// A plan that sets a Debezium MariaDB offset to a binary log file the
// server purged (a real MariaDB, PURGE BINARY LOGS past it) says before
// confirm that it is gone and that the task fails on start; a file the
// server still has says nothing of the kind.
func TestPlanWarnsOfAPurgedBinlogFile(t *testing.T) {
	m := realMariaDB(t)
	m.mustSQL(t, `CREATE USER IF NOT EXISTS 'koffplan'@'127.0.0.1' IDENTIFIED BY 'pw';
GRANT BINLOG MONITOR ON *.* TO 'koffplan'@'127.0.0.1';
CREATE DATABASE IF NOT EXISTS inv; CREATE TABLE IF NOT EXISTS inv.planned (id bigint PRIMARY KEY);
INSERT INTO inv.planned VALUES (1); FLUSH BINARY LOGS;`)
	t.Cleanup(func() { m.SQL(context.Background(), "DROP TABLE IF EXISTS inv.planned") })
	file, pos, _ := m.masterStatus(t)
	m.mustSQL(t, "INSERT INTO inv.planned VALUES (2)")
	m.mustSQL(t, "FLUSH BINARY LOGS")
	newest, end, _ := m.masterStatus(t)
	m.mustSQL(t, "PURGE BINARY LOGS TO '"+newest+"'")

	port := strconv.Itoa(m.Port)
	cfg := `{"connector.class":"io.debezium.connector.mariadb.MariaDbConnector","name":"binlog","database.hostname":"127.0.0.1","database.port":"` + port +
		`","database.user":"debezium","topic.prefix":"inv"}`
	addr := planBroker(t, "binlog", cfg, `{"server":"inv"}`, binlogOffset(newest, end, ""))
	pass := dbPassFile(t, "127.0.0.1:"+port+":*:koffplan:pw")

	out := planDryRun(t, addr, "binlog", `{"server":"inv"}`, binlogOffset(file, pos, ""), "--db-pass-file", pass)
	t.Log(out)
	if !strings.Contains(out, `warning: Debezium MariaDB: the new offset of {"server":"inv"} does not exist (gap): `+file+" is purged") || !strings.Contains(out, "the task fails on start") {
		t.Errorf("a purged binlog file %s: \n%s", file, out)
	}
	if out := planDryRun(t, addr, "binlog", `{"server":"inv"}`, binlogOffset(newest, end, ""), "--db-pass-file", pass); strings.Contains(out, "does not exist") || strings.Contains(out, "could not check") {
		t.Errorf("a binlog file the server has:\n%s", out)
	}
}
