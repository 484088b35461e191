package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A plan whose new offset is gone where the connector reads says so before
// confirm, with what the connector then does, as koff check would say of
// it once stored: a MirrorMaker 2 offset below the source topic's log
// start on its source cluster (MirrorMaker resets to the log start,
// skipping the records in between), one past the log end (it copies the
// partition again), a FileStream position past its file's end. An offset
// that exists says nothing of the kind; a source cluster koff cannot reach
// says that it could not check, and why.
func TestPlanWarnsWhenTheNewOffsetDoesNotExist(t *testing.T) {
	src := broker(t)
	if err := src.CreateTopic("src-orders", 2, nil); err != nil {
		t.Fatal(err)
	}
	for p := range 2 {
		records(t, src.Bootstrap(), "src-orders", p, 10)
	}
	deleteRecordsBefore(t, src.Bootstrap(), "src-orders", 0, 6)
	mm2 := func(name, bootstrap string) string {
		return `{"connector.class":"org.apache.kafka.connect.mirror.MirrorSourceConnector","name":"` + name + `","source.cluster.alias":"src","target.cluster.alias":"dst","source.cluster.bootstrap.servers":"` + bootstrap + `"}`
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(path, []byte(strings.Repeat("line\n", 4)), 0o600); err != nil {
		t.Fatal(err)
	}
	fsCfg, _ := json.Marshal(map[string]string{"connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector", "name": "fs", "file": path, "topic": "lines"})
	down := freeAddr(t)
	addr := checkBroker(t, map[string]string{"mm2": mm2("mm2", src.Bootstrap()), "mm2-down": mm2("mm2-down", down), "fs": string(fsCfg)}, nil)
	stopped(t, addr, "mm2", "mm2-down", "fs")
	part := func(p int) string { return fmt.Sprintf(`{"cluster":"src","partition":%d,"topic":"src-orders"}`, p) }
	fsPart, _ := json.Marshal(map[string]string{"filename": path})
	produceConnect(t, addr,
		[2]string{`["mm2",` + part(0) + `]`, `{"offset":8}`},
		[2]string{`["mm2",` + part(1) + `]`, `{"offset":8}`},
		[2]string{`["mm2-down",` + part(0) + `]`, `{"offset":8}`},
		[2]string{`["fs",` + string(fsPart) + `]`, `{"position":5}`})

	set := func(name, partition, offset string) (string, string) {
		t.Helper()
		out, errs, code := koff(t, "set", name, "--partition", partition, "--offset", offset, "-b", addr, "--dry-run")
		if code != 0 {
			t.Fatalf("koff set %s %s: exit %d\n%s\n%s", name, offset, code, out, errs)
		}
		return out, errs
	}
	out, _ := set("mm2", part(0), `{"offset":3}`)
	want := `warning: MirrorMaker: the new offset of ` + part(0) + ` does not exist (gap): source offset 4 is below the log start 6 (2 records deleted by retention or DeleteRecords): auto.offset.reset=earliest (MirrorMaker 2's default) moves it to the log start, offset 6, skipping the 2 records.`
	if !strings.Contains(out, want) {
		t.Errorf("a MirrorMaker offset below the source log start: want\n%s\nin\n%s", want, out)
	}
	out, _ = set("mm2", part(1), `{"offset":30}`)
	if !strings.Contains(out, `the new offset of `+part(1)+` does not exist (replay): source offset 31 is beyond the log end 10`) || !strings.Contains(out, "reads the 10 records the log holds") {
		t.Errorf("a MirrorMaker offset past the source log end:\n%s", out)
	}
	out, _ = set("mm2", part(0), `{"offset":7}`)
	if strings.Contains(out, "does not exist") || strings.Contains(out, "could not check") {
		t.Errorf("a MirrorMaker offset within the source log:\n%s", out)
	}
	out, _ = set("mm2-down", part(0), `{"offset":3}`)
	if !strings.Contains(out, "warning: MirrorMaker: koff could not check whether the new offset exists: source cluster src at "+down+": ") {
		t.Errorf("an unreachable source cluster:\n%s", out)
	}

	out, _ = set("fs", string(fsPart), `{"position":50}`)
	if !strings.Contains(out, `warning: FileStream: the new offset of `+string(fsPart)+` does not exist (gap): `+path+` has 20 bytes, fewer than the position 50`) {
		t.Errorf("a FileStream position past the file's end:\n%s", out)
	}
	out, _ = set("fs", string(fsPart), `{"position":20}`)
	if strings.Contains(out, "does not exist") {
		t.Errorf("a FileStream position at the file's end:\n%s", out)
	}
}

// A Debezium connector's new offset is checked against its database only
// with credentials the operator named: without --db-pass-file the plan
// says it could not check, and how to let it.
func TestPlanSaysHowToCheckADebeziumOffset(t *testing.T) {
	cfg := `{"connector.class":"io.debezium.connector.postgresql.PostgresConnector","name":"pg","database.hostname":"db1","database.dbname":"inventory","topic.prefix":"inv"}`
	addr := checkBroker(t, map[string]string{"pg": cfg}, nil)
	stopped(t, addr, "pg")
	produceConnect(t, addr, [2]string{`["pg",{"server":"inv"}]`, `{"lsn":1000,"lsn_proc":1000,"lsn_commit":1000,"ts_usec":1}`})
	out, errs, code := koff(t, "set", "pg", "--partition", `{"server":"inv"}`, "--offset", `{"lsn":900,"lsn_proc":900,"lsn_commit":900,"ts_usec":1}`, "-b", addr, "--dry-run")
	if code != 0 || !strings.Contains(out, "warning: Debezium PostgreSQL: koff could not check whether the new offset exists: database checks are off: name credentials with --db-pass-file FILE.") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
	pass := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(pass, []byte("other:5432:*:u:p\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, _ = koff(t, "set", "pg", "--partition", `{"server":"inv"}`, "--offset", `{"lsn":900}`, "-b", addr, "--dry-run", "--db-pass-file", pass)
	if !strings.Contains(out, "koff could not check whether the new offset exists: no credentials for db1:5432/inventory in --db-pass-file: add a line db1:5432:inventory:USER:PASSWORD.") {
		t.Errorf("a database with no line in --db-pass-file:\n%s", out)
	}
}

// stopped writes the connectors' target state STOPPED to the config topic,
// as a worker does on PUT /connectors/NAME/stop.
func stopped(t *testing.T, addr string, names ...string) {
	t.Helper()
	var recs [][2]string
	for _, n := range names {
		recs = append(recs, [2]string{"target-state-" + n, `{"state":"PAUSED","state.v2":"STOPPED"}`})
	}
	produceTo(t, addr, "connect-configs", 0, recs...)
}

// The resume check's flags are refused by an edit as by koff check, at
// once and in one line: a pass file others can read, a --probe-timeout
// that is not positive.
func TestPlanRefusesTheResumeChecksBadFlags(t *testing.T) {
	addr := checkBroker(t, map[string]string{"pg": `{"connector.class":"io.debezium.connector.postgresql.PostgresConnector","name":"pg"}`}, nil)
	pass := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(pass, []byte("db1:5432:*:u:p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{{"--db-pass-file", pass}, {"--probe-timeout", "0s"}} {
		_, errs, code := koff(t, append([]string{"set", "pg", "--partition", `{"server":"inv"}`, "--offset", `{"lsn":1}`, "-b", addr, "--dry-run", "--create"}, flags...)...)
		if code != ExitUsage || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, flags[1]) && !strings.Contains(errs, "--probe-timeout") {
			t.Errorf("koff set %v: exit %d %q", flags, code, errs)
		}
	}
}
