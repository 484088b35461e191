package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The one PostgreSQL cluster of this package's Debezium tests, started by
// the first of them; runMain stops it.
var (
	pgOnce   sync.Once
	pgServer *Postgres
	pgErr    error
)

// realPostgres is the shared PostgreSQL cluster (wal_level=logical), or
// skips the test saying what is missing (a failure under CI=true).
func realPostgres(t *testing.T) *Postgres {
	t.Helper()
	if m := MissingPostgres(); m != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (CI=true: the Debezium tests must run)", m)
		}
		t.Skip("Debezium tests skipped: " + m)
	}
	pgOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		pgServer, pgErr = StartPostgres(ctx)
	})
	if pgErr != nil {
		t.Fatal(pgErr)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("\n==== postgres\n" + pgServer.Log(40))
		}
	})
	return pgServer
}

// sql runs statements on the shared cluster and fails the test on error.
func (pg *Postgres) mustSQL(t *testing.T, sql string) string {
	t.Helper()
	out, err := pg.SQL(context.Background(), sql)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// debeziumTable makes a table with rows 1..n (id, name), owned by the test:
// dropped with its replication slot and publication when the test ends.
func (pg *Postgres) debeziumTable(t *testing.T, table string, n int) {
	t.Helper()
	pg.mustSQL(t, fmt.Sprintf(`CREATE TABLE %s (id bigint PRIMARY KEY, name text NOT NULL);
INSERT INTO %s SELECT g, 'row-' || g FROM generate_series(1, %d) g;`, table, table, n))
	t.Cleanup(func() { pg.SQL(context.Background(), "DROP TABLE IF EXISTS "+table) })
}

// insertRows adds rows from..to to a debeziumTable, one transaction each.
func (pg *Postgres) insertRows(t *testing.T, table string, from, to int) {
	t.Helper()
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "INSERT INTO %s VALUES (%d, 'row-%d');\n", table, i, i)
	}
	pg.mustSQL(t, b.String())
}

// debeziumConfig is a PostgreSQL connector capturing one table of the
// shared cluster through pgoutput, with its own replication slot and
// publication (dropped when the connector stops for good, and by the test).
func debeziumConfig(pg *Postgres, name, table string) map[string]string {
	slot := strings.ReplaceAll(name, "-", "_")
	return map[string]string{
		"connector.class":                "io.debezium.connector.postgresql.PostgresConnector",
		"tasks.max":                      "1",
		"database.hostname":              "127.0.0.1",
		"database.port":                  strconv.Itoa(pg.Port),
		"database.user":                  "postgres",
		"database.password":              "unused-trust-auth",
		"database.dbname":                "postgres",
		"topic.prefix":                   name,
		"plugin.name":                    "pgoutput",
		"slot.name":                      slot,
		"publication.name":               slot + "_pub",
		"publication.autocreate.mode":    "filtered",
		"table.include.list":             "public." + table,
		"snapshot.mode":                  "initial",
		"key.converter":                  "org.apache.kafka.connect.json.JsonConverter",
		"value.converter":                "org.apache.kafka.connect.json.JsonConverter",
		"key.converter.schemas.enable":   "false",
		"value.converter.schemas.enable": "false",
	}
}

// createDebezium starts a Debezium connector and drops its slot and
// publication when the test ends (after the connector is deleted).
func (s *Stack) createDebezium(t *testing.T, pg *Postgres, name, table string, extra map[string]string) {
	t.Helper()
	cfg := debeziumConfig(pg, name, table)
	for k, v := range extra {
		cfg[k] = v
	}
	slot := cfg["slot.name"]
	t.Cleanup(func() {
		// Registered before createConnector's delete: runs after it.
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := pg.SQL(context.Background(), fmt.Sprintf(
				"SELECT pg_drop_replication_slot('%s') FROM pg_replication_slots WHERE slot_name = '%s'", slot, slot)); err == nil {
				break
			}
			time.Sleep(time.Second)
		}
		pg.SQL(context.Background(), "DROP PUBLICATION IF EXISTS "+cfg["publication.name"])
	})
	s.createConnector(t, name, cfg)
}

// path is one way koff reaches Connect's offsets: the topics alone, or
// Connect's REST API too.
type path struct {
	name string
	args func(...string) []string
}

func (s *Stack) bothPaths() []path {
	return []path{{"offsets topics", s.withTopic}, {"REST", s.withREST}}
}

// dbzEvent is what a test reads of a Debezium change event (JSON, no
// schema): the operation and the row's id.
type dbzEvent struct {
	Op    string `json:"op"`
	After *struct {
		ID int64 `json:"id"`
	} `json:"after"`
	Source struct {
		LSN int64 `json:"lsn"`
	} `json:"source"`
}

// dbzEvents reads the change events of a table's topic from offset from
// until done says it has enough.
func (s *Stack) dbzEvents(t *testing.T, topic string, from int64, done func([]dbzEvent) bool) []dbzEvent {
	t.Helper()
	var evs []dbzEvent
	s.readUntil(t, topic, 0, from, 2*time.Minute, func(rs []record) bool {
		evs = evs[:0]
		for _, r := range rs {
			var ev dbzEvent
			if len(r.Value) > 0 && r.Value[0] == 0 {
				continue // a transaction marker, which kafka-go's Reader hands over as a record
			}
			if len(r.Value) > 0 {
				if err := json.Unmarshal(r.Value, &ev); err != nil {
					t.Fatalf("%s: %s: %v", topic, r.Value, err)
				}
			}
			evs = append(evs, ev)
		}
		return done(evs)
	})
	return evs
}

// countOps counts the events of each operation ("r" snapshot read, "c"
// insert).
func countOps(evs []dbzEvent) map[string]int {
	n := map[string]int{}
	for _, ev := range evs {
		n[ev.Op]++
	}
	return n
}

// dbzOffset is a Debezium connector's one offset as Connect's GET gives it,
// its fields with numbers as their text.
func (s *Stack) dbzOffset(t *testing.T, name string) map[string]any {
	t.Helper()
	b := s.connectOffsets(t, name)
	if len(b.Offsets) != 1 {
		t.Fatalf("%s: %d partitions, want Debezium's one {\"server\":…}: %v", name, len(b.Offsets), canonical(t, b))
	}
	return b.Offsets[0].Offset
}

// streamingDebezium starts a connector on a table of rows rows, waits for
// its snapshot, inserts one row more and waits until it streams it.
func (s *Stack) streamingDebezium(t *testing.T, pg *Postgres, name, table string, rows int) {
	t.Helper()
	topic := name + ".public." + table
	pg.debeziumTable(t, table, rows)
	s.createDebezium(t, pg, name, table, nil)
	s.dbzEvents(t, topic, 0, func(evs []dbzEvent) bool { return countOps(evs)["r"] == rows })
	pg.insertRows(t, table, rows+1, rows+1)
	s.waitDbzStreamed(t, name, topic, 0, 1)
}

// waitDbzStreamed waits until the connector's offset is a streaming one (no
// snapshot fields, lsn_proc set) at or past the row with id.
func (s *Stack) waitDbzStreamed(t *testing.T, name, topic string, from int64, rows int) {
	t.Helper()
	s.dbzEvents(t, topic, from, func(evs []dbzEvent) bool { return countOps(evs)["c"] >= rows })
	waitFor(t, 90*time.Second, name+" streaming offset", func() (bool, string) {
		o := s.dbzOffset(t, name)
		_, snap := o["snapshot"]
		_, proc := o["lsn_proc"]
		return proc && !snap, fmt.Sprint(o)
	})
}

// TestDebeziumGetEqualsConnect: koff get, from the offsets topic alone and
// with REST, is Connect's GET /connectors/NAME/offsets for Debezium's real
// PostgreSQL offsets: the snapshot's (snapshot, last_snapshot_record,
// snapshot_completed, lsn, txId, ts_usec) and, once it streams, lsn,
// lsn_proc, lsn_commit, messageType, txId, ts_usec, with every number's
// text as the worker holds it. And the status of a connector that
// commits only when it has changes is not late when nothing changes.
func TestDebeziumGetEqualsConnect(t *testing.T) {
	s := realStack(t)
	pg := realPostgres(t)
	const name, table = "dbz-get", "dbz_get"
	topic := name + ".public." + table
	pg.debeziumTable(t, table, 5)
	s.createDebezium(t, pg, name, table, nil)
	s.dbzEvents(t, topic, 0, func(evs []dbzEvent) bool { return countOps(evs)["r"] == 5 })
	waitFor(t, 90*time.Second, name+" snapshot offset", func() (bool, string) {
		o := s.dbzOffset(t, name)
		return o["last_snapshot_record"] == true, fmt.Sprint(o)
	})
	same := func(phase string) {
		t.Helper()
		want := canonical(t, s.connectOffsets(t, name))
		for _, how := range [][]string{s.withTopic("get", name, "-o", "json"), s.withREST("get", name, "-o", "json")} {
			var got offsetsBody
			decode(t, []byte(mustKoff(t, how...)), &got)
			if g := canonical(t, got); strings.Join(g, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: koff %s:\n%s\nConnect's GET:\n%s", phase, strings.Join(how, " "), strings.Join(g, "\n"), strings.Join(want, "\n"))
			}
		}
	}
	same("after the snapshot")

	pg.insertRows(t, table, 6, 8)
	s.waitDbzStreamed(t, name, topic, 0, 3)
	same("streaming")

	// Nothing changes in the database: Debezium commits nothing more, and
	// that is idle, not a stall. Wait past three flush intervals (2 s).
	time.Sleep(8 * time.Second)
	out, errs, code := koff(t, s.withREST("status", name)...)
	if code != 0 || strings.Contains(out, "STALLED") || strings.Contains(out, "LATE") {
		t.Errorf("koff status of an idle Debezium connector: exit %d\n%s%s", code, out, errs)
	}
}

// TestDebeziumResnapshot is the Debezium FAQ's re-snapshot, done with koff:
// stop the connector, reset its offsets, resume, and every row is read again
// as a snapshot ("op":"r"): once with the offsets topic written directly,
// once through Connect's REST API.
func TestDebeziumResnapshot(t *testing.T) {
	s := realStack(t)
	pg := realPostgres(t)
	const name, table = "dbz-snap", "dbz_snap"
	topic := name + ".public." + table
	s.streamingDebezium(t, pg, name, table, 4)

	for _, how := range s.bothPaths() {
		from := s.endOffset(t, topic, 0)
		s.stop(t, name)
		out := mustKoff(t, how.args("reset", name, "--yes")...)
		t.Logf("koff reset (%s):\n%s", how.name, out)
		if b := s.connectOffsets(t, name); len(b.Offsets) != 0 {
			t.Fatalf("after koff reset (%s) Connect still has %v", how.name, canonical(t, b))
		}
		s.resume(t, name)
		evs := s.dbzEvents(t, topic, from, func(evs []dbzEvent) bool { return countOps(evs)["r"] >= 5 })
		if n := countOps(evs); n["r"] != 5 || n["c"] != 0 {
			t.Errorf("after koff reset (%s) and resume: %v events, want all 5 rows read again as a snapshot", how.name, n)
		}
		waitFor(t, 90*time.Second, name+" snapshot offset again", func() (bool, string) {
			o := s.dbzOffset(t, name)
			return o["last_snapshot_record"] == true || o["lsn_proc"] != nil, fmt.Sprint(o)
		})
	}
}

// TestDebeziumSetEarlierLSN: koff set back to an earlier streaming offset is
// the offset Debezium's task starts from (BaseSourceTask.getPreviousOffsets
// logs it), and koff's plan says what PostgreSQL lets it stream again: a
// logical replication slot starts at the later of the LSN asked for and its
// confirmed_flush_lsn, which Debezium advances as Connect commits offsets
// (PostgresConnectorTask.commit), so changes already confirmed are not
// streamed again; and an lsn the slot has released fails the task's start,
// as the plan also says. Only a reset re-reads them, as a snapshot.
func TestDebeziumSetEarlierLSN(t *testing.T) {
	s := realStack(t)
	pg := realPostgres(t)
	const name, table = "dbz-lsn", "dbz_lsn"
	topic := name + ".public." + table
	s.streamingDebezium(t, pg, name, table, 2)
	earlier := s.connectOffsets(t, name)
	earlierJSON, _ := json.Marshal(earlier.Offsets[0].Offset)
	pg.insertRows(t, table, 4, 5)
	s.dbzEvents(t, topic, 0, func(evs []dbzEvent) bool { return countOps(evs)["c"] >= 3 })
	waitFor(t, 90*time.Second, name+" offset past row 5", func() (bool, string) {
		o := s.dbzOffset(t, name)
		return fmt.Sprint(o["lsn"]) != fmt.Sprint(earlier.Offsets[0].Offset["lsn"]), fmt.Sprint(o)
	})

	s.stop(t, name)
	from := s.endOffset(t, topic, 0)
	plan := mustKoff(t, s.withREST("set", name, "--partition", `{"server":"`+name+`"}`, "--offset", string(earlierJSON), "--yes")...)
	t.Logf("koff set:\n%s", plan)
	if !strings.Contains(plan, "confirmed_flush_lsn") {
		t.Errorf("koff's plan for an earlier LSN of a Debezium PostgreSQL connector does not say that the replication slot's confirmed_flush_lsn bounds what is streamed again:\n%s", plan)
	}
	if got := canonical(t, s.connectOffsets(t, name)); strings.Join(got, "") != strings.Join(canonical(t, earlier), "") {
		t.Fatalf("Connect's GET after koff set: %v, want %v", got, canonical(t, earlier))
	}
	if !strings.Contains(plan, "no longer available on the server") {
		t.Errorf("koff's plan does not say that the task fails on start when the slot no longer holds the lsn:\n%s", plan)
	}
	confirmed := pgLSN(t, pg.mustSQL(t, fmt.Sprintf("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '%s'", strings.ReplaceAll(name, "-", "_"))))
	lsn := fmt.Sprint(earlier.Offsets[0].Offset["lsn"])
	set, _ := strconv.ParseInt(lsn, 10, 64)
	// Two outcomes, both as the plan says, depending on whether the slot
	// still held the lsn when the task starts (Debezium moves the slot on
	// as Connect commits, at its own pace): the task starts from it, or
	// fails on start saying the position is gone.
	s.mustREST(t, http.StatusAccepted, "PUT", "/connectors/"+name+"/resume", nil)
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
	if failed != "" {
		if !strings.Contains(failed, "no longer available on the server") || set >= confirmed {
			t.Fatalf("the task failed after koff set lsn %d (slot confirmed %d): %s", set, confirmed, failed)
		}
		t.Logf("the slot no longer held lsn %d (confirmed %d): the task failed on start, as koff's plan says", set, confirmed)
		return
	}
	waitFor(t, 90*time.Second, "the task to start from lsn "+lsn, func() (bool, string) {
		log := tail(s.Dir+"/worker.log", 4000)
		for _, line := range strings.Split(log, "\n") {
			if strings.Contains(line, "Found previous partition offset") && strings.Contains(line, "server="+name) && strings.Contains(line, "lsn="+lsn) {
				return true, ""
			}
		}
		return false, "no \"Found previous partition offset\" line with lsn=" + lsn
	})
	pg.insertRows(t, table, 6, 6)
	s.dbzEvents(t, topic, from, func(evs []dbzEvent) bool { return countOps(evs)["c"] >= 1 && evs[len(evs)-1].After.ID == 6 })
	end := s.endOffset(t, topic, 0)
	var again []int64
	for _, r := range s.readUntil(t, topic, 0, from, time.Minute, func(rs []record) bool { return len(rs) > 0 && rs[len(rs)-1].Offset >= end-1 }) {
		var ev dbzEvent
		if len(r.Value) == 0 || r.Value[0] == 0 {
			continue
		}
		decode(t, r.Value, &ev)
		if ev.After.ID == 6 {
			continue
		}
		again = append(again, ev.After.ID)
		// Streamed again: a change after the LSN set, and after what the
		// slot had confirmed when the task started.
		if ev.Source.LSN <= set || ev.Source.LSN < confirmed {
			t.Errorf("row %d (lsn %d) streamed again: the offset set was lsn %d, the slot's confirmed_flush_lsn %d", ev.After.ID, ev.Source.LSN, set, confirmed)
		}
	}
	t.Logf("streamed again after the set: rows %v (lsn set %d, slot confirmed %d)", again, set, confirmed)
}

// pgLSN is a pg_lsn ("16/B374D848") as the number Debezium's offsets hold.
func pgLSN(t *testing.T, s string) int64 {
	t.Helper()
	hi, lo, ok := strings.Cut(strings.TrimSpace(s), "/")
	h, err1 := strconv.ParseInt(hi, 16, 64)
	l, err2 := strconv.ParseInt(lo, 16, 64)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("pg_lsn %q", s)
	}
	return h<<32 | l
}

// createStopped creates a connector in the STOPPED state (KIP-980's
// initial_state, Connect 3.7+), so that its offsets can be set before its
// first task runs.
func (s *Stack) createStopped(t *testing.T, name string, config map[string]string) {
	t.Helper()
	config["name"] = name
	s.mustREST(t, http.StatusCreated, "POST", "/connectors", map[string]any{"name": name, "config": config, "initial_state": "STOPPED"})
	t.Cleanup(func() { s.rest(t, "DELETE", "/connectors/"+name, nil) })
	s.waitState(t, name, "STOPPED")
}

// TestDebeziumImportToNewName: the offsets koff export wrote for one
// Debezium connector, imported for a connector of another name that takes
// over its replication slot (same topic.prefix, so the same {"server":…}
// partition), let the new connector stream on from there: no snapshot, the
// next change and only it.
func TestDebeziumImportToNewName(t *testing.T) {
	s := realStack(t)
	pg := realPostgres(t)
	const old, renamed, table = "dbz-old", "dbz-renamed", "dbz_move"
	topic := old + ".public." + table
	s.streamingDebezium(t, pg, old, table, 3)

	exported := mustKoff(t, s.withTopic("export", old)...)
	var bodies map[string]json.RawMessage
	decode(t, []byte(exported), &bodies)
	if len(bodies) != 1 || bodies[old] == nil {
		t.Fatalf("koff export %s: %s", old, exported)
	}
	s.stop(t, old)
	s.mustREST(t, http.StatusNoContent, "DELETE", "/connectors/"+old, nil)

	cfg := debeziumConfig(pg, old, table) // the old one's slot, publication and topic prefix
	s.createStopped(t, renamed, cfg)
	file := filepath.Join(t.TempDir(), "offsets.json")
	if err := os.WriteFile(file, []byte(`{"`+renamed+`":`+string(bodies[old])+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every partition is new to the renamed connector: --create says so.
	t.Logf("koff import:\n%s", mustKoff(t, s.withREST("import", file, "--create", "--yes")...))
	if got, want := canonical(t, s.connectOffsets(t, renamed)), canonical(t, offsetsOf(t, bodies[old])); strings.Join(got, "") != strings.Join(want, "") {
		t.Fatalf("Connect's GET of %s after the import: %v, want the export's %v", renamed, got, want)
	}
	from := s.endOffset(t, topic, 0)
	s.resume(t, renamed)
	pg.insertRows(t, table, 5, 5)
	evs := s.dbzEvents(t, topic, from, func(evs []dbzEvent) bool {
		return len(evs) > 0 && evs[len(evs)-1].After != nil && evs[len(evs)-1].After.ID == 5
	})
	if n := countOps(evs); n["r"] != 0 || n["c"] != 1 {
		t.Errorf("%s after the import: %v events, want the one new row and no snapshot", renamed, n)
	}
}

// offsetsOf decodes one connector's offsets body.
func offsetsOf(t *testing.T, body []byte) offsetsBody {
	t.Helper()
	var b offsetsBody
	decode(t, body, &b)
	return b
}

// TestDebeziumOwnOffsetsTopic: a Debezium connector with its own
// offsets.storage.topic on this exactly-once worker (its offsets are written
// in the task's transactions, to its own topic, which is authoritative for
// it: ConnectorOffsetBackingStore). koff get equals Connect's GET, and koff
// set and reset, with REST and from the topics alone (koff learns the own
// topic from the config topic), are what the real task reads: a reset makes
// it snapshot again.
func TestDebeziumOwnOffsetsTopic(t *testing.T) {
	s := realStack(t)
	pg := realPostgres(t)
	const name, table, own = "dbz-own", "dbz_own", "dbz-own-offsets"
	topic := name + ".public." + table
	pg.debeziumTable(t, table, 3)
	s.createDebezium(t, pg, name, table, map[string]string{"offsets.storage.topic": own, "exactly.once.support": "required"})
	s.dbzEvents(t, topic, 0, func(evs []dbzEvent) bool { return countOps(evs)["r"] == 3 })
	s.waitDbzStreamedOrSnapshot(t, name)
	snapshot := s.connectOffsets(t, name)
	pg.insertRows(t, table, 4, 4)
	s.waitDbzStreamed(t, name, topic, 0, 1)
	s.sameAsConnect(t, name)
	partition := `{"server":"` + name + `"}`

	for _, how := range s.bothPaths() {
		// set (back to the snapshot's offset): the value the worker reads
		// is the one koff wrote.
		s.stop(t, name)
		value, _ := json.Marshal(snapshot.Offsets[0].Offset)
		mustKoff(t, how.args("set", name, "--partition", partition, "--offset", string(value), "--yes")...)
		if got := canonical(t, s.connectOffsets(t, name)); strings.Join(got, "") != strings.Join(canonical(t, snapshot), "") {
			t.Errorf("after koff set (%s) Connect's GET is %v, want %v", how.name, got, canonical(t, snapshot))
		}
		// reset: the task snapshots again.
		out := mustKoff(t, how.args("reset", name, "--yes")...)
		t.Logf("koff reset (%s):\n%s", how.name, out)
		if b := s.connectOffsets(t, name); len(b.Offsets) != 0 {
			t.Fatalf("after koff reset (%s) Connect still has %v", how.name, canonical(t, b))
		}
		from := s.endOffset(t, topic, 0)
		s.resume(t, name)
		evs := s.dbzEvents(t, topic, from, func(evs []dbzEvent) bool { return countOps(evs)["r"] >= 4 })
		if n := countOps(evs); n["r"] != 4 {
			t.Errorf("after koff reset (%s): %v events, want the 4 rows read again as a snapshot", how.name, n)
		}
		s.waitDbzStreamedOrSnapshot(t, name)
		snapshot = s.connectOffsets(t, name)
	}
}

// waitDbzStreamedOrSnapshot waits until the connector has an offset again.
func (s *Stack) waitDbzStreamedOrSnapshot(t *testing.T, name string) {
	t.Helper()
	waitFor(t, 90*time.Second, name+" offset", func() (bool, string) {
		b := s.connectOffsets(t, name)
		return len(b.Offsets) == 1, fmt.Sprint(canonical(t, b))
	})
}
