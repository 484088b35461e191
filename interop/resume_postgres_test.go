package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"koff/model/resume"
	"koff/probe"
)

// pgCheck is koff's resume check of a Debezium PostgreSQL connector: its
// offsets as Connect's GET gives them, its config, and the operator's
// --db-pass-file naming the test cluster (trust authentication: the
// password is not checked, the line is still needed).
func (s *Stack) pgCheck(t *testing.T, pg *Postgres, name string, cfg map[string]string) resume.Partition {
	t.Helper()
	dbs, err := probe.NewDatabases(dbPassFile(t, "127.0.0.1:"+strconv.Itoa(pg.Port)+":postgres:postgres:unused"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	src := probe.Source{Name: name, Class: probe.DebeziumPostgresClass, Type: "source", Config: cfg}
	for _, o := range s.connectOffsets(t, name).Offsets {
		part, _ := json.Marshal(o.Partition)
		off, _ := json.Marshal(o.Offset) // json.Number: the lsn's text as the worker holds it
		src.Offsets = append(src.Offsets, probe.Offset{Partition: string(part), Offset: string(off)})
	}
	began := time.Now()
	c := dbs.Check(context.Background(), src)
	if len(c.Partitions) != 1 {
		t.Fatalf("koff's check of %s: %+v", name, c)
	}
	p := c.Partitions[0]
	t.Logf("koff's check of %s (%s): %s at %s, lost %d bytes, resumes at %q: %s", name, time.Since(began).Round(time.Millisecond), p.State, p.Position, p.Lost.Bytes, p.ResumesAt, p.Action)
	return p
}

// slotRow is the slot's restart_lsn and confirmed_flush_lsn, once no
// walsender holds it (a stopped task lets it go within moments).
func (pg *Postgres) idleSlot(t *testing.T, slot string) (restart, confirmed int64) {
	t.Helper()
	waitFor(t, 60*time.Second, "slot "+slot+" inactive", func() (bool, string) {
		out := pg.mustSQL(t, fmt.Sprintf("SELECT active FROM pg_replication_slots WHERE slot_name = '%s'", slot))
		return out == "f", "active: " + out
	})
	row := pg.mustSQL(t, fmt.Sprintf("SELECT restart_lsn, confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '%s'", slot))
	r, c, _ := strings.Cut(row, "|")
	return pgLSN(t, r), pgLSN(t, c)
}

// dbzResumeOutcome resumes a stopped connector and waits until its task runs
// or fails; it returns the failed task's trace ("" when it runs).
func (s *Stack) dbzResumeOutcome(t *testing.T, name string) string {
	t.Helper()
	s.mustREST(t, http.StatusAccepted, "PUT", "/connectors/"+name+"/resume", nil)
	return s.dbzTaskOutcome(t, name)
}

func (s *Stack) dbzTaskOutcome(t *testing.T, name string) string {
	t.Helper()
	var failed string
	waitFor(t, 90*time.Second, name+" running or failed", func() (bool, string) {
		code, body := s.rest(t, "GET", "/connectors/"+name+"/status", nil)
		var st connectorStatus
		if code != 200 || json.Unmarshal(body, &st) != nil {
			return false, string(body)
		}
		for _, task := range st.Tasks {
			if task.State == "FAILED" {
				failed = task.Trace
				return true, ""
			}
		}
		return st.Connector.State == "RUNNING" && len(st.Tasks) > 0 && st.Tasks[0].State == "RUNNING", string(body)
	})
	return failed
}

// traceHead is a Java stack trace's first line.
func traceHead(trace string) string { l, _, _ := strings.Cut(trace, "\n"); return l }

// TestResumeDebeziumSlotDropped: the replication slot of a Debezium
// PostgreSQL connector (3.6.1, snapshot.mode=initial) is dropped while the
// connector is stopped, and three rows are inserted. koff's check says gap
// (the WAL bytes since the stored lsn) and that the task fails on start:
// PostgresConnectorTask.start calls BaseSourceTask.validateSchemaHistory,
// whose PostgresConnection.validateLogPosition finds no slot, and
// InitialSnapshotter.shouldSnapshotOnDataError is false, so it throws
// "…is no longer available on the server" before
// PostgresConnectorTask.tryToCreateSlot would create a new slot. Resumed,
// the real task fails so, and not one of the three changes arrives. Then,
// as koff's action offers, snapshot.mode=when_needed: koff says Debezium
// snapshots again (WhenNeededSnapshotter.shouldSnapshotOnDataError), and the
// task reads all six rows again as a snapshot ("op":"r"), none of the three
// inserts as a change.
func TestResumeDebeziumSlotDropped(t *testing.T) {
	s := realStack(t)
	pg := realPostgres(t)
	const name, table = "dbz-slot-gone", "dbz_slot_gone"
	topic := name + ".public." + table
	s.streamingDebezium(t, pg, name, table, 2) // rows 1, 2 as a snapshot, row 3 streamed
	cfg := debeziumConfig(pg, name, table)
	slot := cfg["slot.name"]

	s.stop(t, name)
	from := s.endOffset(t, topic, 0)
	pg.insertRows(t, table, 4, 6)
	pg.idleSlot(t, slot)
	pg.mustSQL(t, fmt.Sprintf("SELECT pg_drop_replication_slot('%s')", slot))

	p := s.pgCheck(t, pg, name, cfg)
	if p.State != resume.Gap || p.Lost.Bytes <= 0 || !strings.Contains(p.Action, `slot "`+slot+`" does not exist`) ||
		!strings.Contains(p.Action, "the task fails on start") {
		t.Fatalf("koff's check after the slot was dropped: %+v, want gap (bytes) and the task failing on start", p)
	}
	failed := s.dbzResumeOutcome(t, name)
	if !strings.Contains(failed, "no longer available on the server") {
		t.Fatalf("koff said the task fails on start; Debezium's task: %q", traceHead(failed))
	}
	t.Logf("the real task failed as koff said: %s", traceHead(failed))
	if end := s.endOffset(t, topic, 0); end != from {
		t.Errorf("the failed task wrote %d events to %s", end-from, topic)
	}

	// snapshot.mode=when_needed: koff's check with that config says a new
	// snapshot, and the real task takes it.
	cfg["snapshot.mode"] = "when_needed"
	p = s.pgCheck(t, pg, name, cfg)
	if p.State != resume.Gap || !strings.Contains(p.Action, "snapshots the captured tables again") {
		t.Fatalf("koff's check with snapshot.mode=when_needed: %+v, want gap and a new snapshot", p)
	}
	cfg["name"] = name
	s.mustREST(t, http.StatusOK, "PUT", "/connectors/"+name+"/config", cfg)
	s.rest(t, "POST", "/connectors/"+name+"/restart?includeTasks=true&onlyFailed=true", nil)
	evs := s.dbzEvents(t, topic, from, func(evs []dbzEvent) bool { return countOps(evs)["r"] >= 6 })
	if n := countOps(evs); n["r"] != 6 || n["c"] != 0 {
		t.Errorf("after snapshot.mode=when_needed: %v events, want the 6 rows read again as a snapshot and no insert streamed", n)
	}
}

// TestResumeDebeziumSlotAdvanced: while a Debezium PostgreSQL connector is
// stopped, three rows are inserted and its slot is moved past them with
// pg_replication_slot_advance. koff's check says gap, in WAL bytes, and
// what follows from the slot's row: PostgresConnection.validateLogPosition
// passes while restart_lsn is at or before the offset's lsn_proc, then
// PostgresReplicationConnection.startStreaming asks for the stored lsn and
// PostgreSQL starts decoding at the slot's confirmed_flush_lsn: the three
// inserts are never streamed. (Had the advance carried restart_lsn past
// lsn_proc, the check fails the task on start; koff says which.) Resumed,
// the real task does what koff said: the next insert arrives, the three
// do not.
func TestResumeDebeziumSlotAdvanced(t *testing.T) {
	s := realStack(t)
	pg := realPostgres(t)
	const name, table = "dbz-slot-ahead", "dbz_slot_ahead"
	topic := name + ".public." + table
	s.streamingDebezium(t, pg, name, table, 2)
	cfg := debeziumConfig(pg, name, table)
	slot := cfg["slot.name"]

	s.stop(t, name)
	from := s.endOffset(t, topic, 0)
	stored := s.dbzOffset(t, name)
	pg.insertRows(t, table, 4, 6)
	pg.idleSlot(t, slot)
	pg.mustSQL(t, fmt.Sprintf("SELECT pg_replication_slot_advance('%s', pg_current_wal_lsn())", slot))
	restart, confirmed := pg.idleSlot(t, slot)
	t.Logf("stored offset %v; slot advanced: restart_lsn %d, confirmed_flush_lsn %d", stored, restart, confirmed)

	p := s.pgCheck(t, pg, name, cfg)
	proc, _ := strconv.ParseInt(fmt.Sprint(stored["lsn_proc"]), 10, 64)
	if p.State != resume.Gap || p.Lost.Bytes <= 0 {
		t.Fatalf("koff's check after the slot advanced: %+v, want gap in bytes", p)
	}
	fails := strings.Contains(p.Action, "the task fails on start")
	if fails != (restart > proc) {
		t.Errorf("restart_lsn %d, lsn_proc %d: koff says the task fails on start: %v", restart, proc, fails)
	}
	failed := s.dbzResumeOutcome(t, name)
	if fails {
		if !strings.Contains(failed, "no longer available on the server") {
			t.Fatalf("koff said the task fails on start; Debezium's task: %q", traceHead(failed))
		}
		return
	}
	if failed != "" {
		t.Fatalf("koff said the task streams from confirmed_flush_lsn; it failed: %s", traceHead(failed))
	}
	if want := fmt.Sprintf("lsn %s", resume.LSN(uint64(confirmed))); p.ResumesAt != want {
		t.Errorf("koff says it resumes at %q, want %q", p.ResumesAt, want)
	}
	pg.insertRows(t, table, 7, 7)
	evs := s.dbzEvents(t, topic, from, func(evs []dbzEvent) bool {
		return len(evs) > 0 && evs[len(evs)-1].After != nil && evs[len(evs)-1].After.ID == 7
	})
	var ids []int64
	for _, ev := range evs {
		if ev.After != nil {
			ids = append(ids, ev.After.ID)
		}
	}
	if len(ids) != 1 || ids[0] != 7 {
		t.Errorf("after resume the connector streamed rows %v, want only row 7: rows 4-6 fell in the gap koff reported", ids)
	}
}

// TestResumeDebeziumSlotDroppedTrustSlot: the same dropped slot with
// offset.mismatch.strategy=trust_slot, which skips the position check
// (PostgresConnection.validateLogPosition returns true when
// offsetSeekToSlotOnStart). koff says gap and that Debezium creates the slot
// at the current WAL position and streams from there
// (PostgresConnectorTask.tryToCreateSlot, then
// PostgresReplicationConnection.startStreaming, whose
// shouldIgnoreExistingOffsetPosition starts at the new slot): resumed, the
// real task runs, the three rows inserted while it was stopped never
// arrive, and the next insert does.
func TestResumeDebeziumSlotDroppedTrustSlot(t *testing.T) {
	s := realStack(t)
	pg := realPostgres(t)
	const name, table = "dbz-slot-trust", "dbz_slot_trust"
	topic := name + ".public." + table
	pg.debeziumTable(t, table, 2)
	s.createDebezium(t, pg, name, table, map[string]string{"offset.mismatch.strategy": "trust_slot"})
	s.dbzEvents(t, topic, 0, func(evs []dbzEvent) bool { return countOps(evs)["r"] == 2 })
	pg.insertRows(t, table, 3, 3)
	s.waitDbzStreamed(t, name, topic, 0, 1)
	cfg := debeziumConfig(pg, name, table)
	cfg["offset.mismatch.strategy"] = "trust_slot"
	slot := cfg["slot.name"]

	s.stop(t, name)
	from := s.endOffset(t, topic, 0)
	pg.insertRows(t, table, 4, 6)
	pg.idleSlot(t, slot)
	pg.mustSQL(t, fmt.Sprintf("SELECT pg_drop_replication_slot('%s')", slot))

	p := s.pgCheck(t, pg, name, cfg)
	if p.State != resume.Gap || p.Lost.Bytes <= 0 || !strings.Contains(p.Action, "Debezium creates slot") || !strings.HasSuffix(p.ResumesAt, "(the new slot)") {
		t.Fatalf("koff's check after the slot was dropped (trust_slot): %+v, want gap and a new slot at the current position", p)
	}
	if failed := s.dbzResumeOutcome(t, name); failed != "" {
		t.Fatalf("koff said Debezium creates a new slot and streams; the task failed: %s", traceHead(failed))
	}
	waitFor(t, 60*time.Second, "slot "+slot+" created again", func() (bool, string) {
		out := pg.mustSQL(t, fmt.Sprintf("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '%s' AND active", slot))
		return out == "1", out
	})
	pg.insertRows(t, table, 7, 7)
	evs := s.dbzEvents(t, topic, from, func(evs []dbzEvent) bool {
		return len(evs) > 0 && evs[len(evs)-1].After != nil && evs[len(evs)-1].After.ID == 7
	})
	var ids []int64
	for _, ev := range evs {
		if ev.After != nil {
			ids = append(ids, ev.After.ID)
		}
	}
	if len(ids) != 1 || ids[0] != 7 || countOps(evs)["r"] != 0 {
		t.Errorf("after resume with trust_slot the connector sent rows %v (%v), want only row 7 streamed: rows 4-6 fell in the gap koff reported", ids, countOps(evs))
	}
}

// TestResumeDebeziumSlotLost: while a Debezium PostgreSQL connector is
// stopped, its slot falls past max_slot_wal_keep_size and PostgreSQL
// invalidates it (wal_status lost, restart_lsn NULL). koff's check says gap
// and that the task's start waits for a valid slot, then fails:
// PostgresConnection.readReplicationSlotInfo takes a slot with no
// restart_lsn for one not ready yet and asks again, 900 times 2 s apart,
// before "Unable to obtain valid replication slot". Resumed, the real task
// does so: the worker logs "Cannot obtain valid replication slot" for it,
// and none of the rows inserted while it was stopped arrives.
func TestResumeDebeziumSlotLost(t *testing.T) {
	s := realStack(t)
	pg := realPostgres(t)
	const name, table = "dbz-slot-lost", "dbz_slot_lost"
	topic := name + ".public." + table
	s.streamingDebezium(t, pg, name, table, 2)
	cfg := debeziumConfig(pg, name, table)
	slot := cfg["slot.name"]

	s.stop(t, name)
	from := s.endOffset(t, topic, 0)
	pg.idleSlot(t, slot)
	// psql runs the statements of one -c in one transaction, where ALTER
	// SYSTEM may not run.
	keep := func(v string) error {
		_, err := pg.SQL(context.Background(), "ALTER SYSTEM "+v)
		if err == nil {
			_, err = pg.SQL(context.Background(), "SELECT pg_reload_conf()")
		}
		return err
	}
	if err := keep("SET max_slot_wal_keep_size = '1MB'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { keep("RESET max_slot_wal_keep_size") })
	// Fill WAL segments until a checkpoint removes what the slot holds.
	for i := 4; ; i++ {
		pg.insertRows(t, table, i, i)
		pg.mustSQL(t, "SELECT pg_switch_wal()")
		pg.mustSQL(t, "CHECKPOINT")
		if st := pg.mustSQL(t, fmt.Sprintf("SELECT wal_status FROM pg_replication_slots WHERE slot_name = '%s'", slot)); st == "lost" {
			t.Logf("slot %s lost after %d WAL switches", slot, i-3)
			break
		}
		if i > 40 {
			t.Fatalf("slot %s not invalidated after %d WAL switches", slot, i-3)
		}
	}
	if err := keep("RESET max_slot_wal_keep_size"); err != nil {
		t.Fatal(err)
	}

	p := s.pgCheck(t, pg, name, cfg)
	if p.State != resume.Gap || p.Lost.Bytes <= 0 || !strings.Contains(p.Action, "invalidated (wal_status lost)") ||
		!strings.Contains(p.Action, "Cannot obtain valid replication slot") {
		t.Fatalf("koff's check of a lost slot: %+v, want gap and the task's start waiting for a valid slot", p)
	}
	s.mustREST(t, http.StatusAccepted, "PUT", "/connectors/"+name+"/resume", nil)
	waitFor(t, 90*time.Second, "the task waiting for a valid slot", func() (bool, string) {
		if strings.Contains(tail(s.Dir+"/worker.log", 4000), "Cannot obtain valid replication slot '"+slot+"'") {
			return true, ""
		}
		return false, "no \"Cannot obtain valid replication slot '" + slot + "'\" in the worker's log"
	})
	if end := s.endOffset(t, topic, 0); end != from {
		t.Errorf("the task waiting for its slot wrote %d events to %s", end-from, topic)
	}
}
