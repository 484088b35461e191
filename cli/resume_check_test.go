package cli

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"koff/model"
	"koff/model/resume"
)

// silentDatabase accepts connections and never says a word: a database
// behind a firewall that drops, or a server hung.
func silentDatabase(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	})
	return ln.Addr().String()
}

// The live views' resume check: the observer checks every connector in
// the background and puts the results in the Store, where the connectors'
// rows carry their state, counts and totals, a source partition's row and
// a sink's partition rows their partition's check. A database that never
// answers holds up nothing else: the lag poll, REST-less config reads and
// the Tailer go on updating the Store while the check waits for it, and the
// check ends unknown within --probe-timeout.
func TestResumePollerFillsTheStoreWithoutHoldingUpTheRest(t *testing.T) {
	db := silentDatabase(t)
	host, port, _ := strings.Cut(db, ":")
	dbz, _ := json.Marshal(map[string]string{
		"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "name": "dbz",
		"database.hostname": host, "database.port": port, "database.dbname": "inventory",
		"database.user": "debezium", "topic.prefix": "inventory",
	})
	addr := checkBroker(t, map[string]string{
		"gap-sink": `{"connector.class":"org.apache.kafka.connect.file.FileStreamSinkConnector","topics":"orders","name":"gap-sink"}`,
		"jdbc":     `{"connector.class":"io.confluent.connect.jdbc.JdbcSourceConnector","name":"jdbc"}`,
		"dbz":      string(dbz),
	}, map[string]int{"orders": 2})
	records(t, addr, "orders", 0, 10)
	records(t, addr, "orders", 1, 5)
	o0, o1 := model.TopicPartition{Topic: "orders", Partition: 0}, model.TopicPartition{Topic: "orders", Partition: 1}
	commitGroup(t, addr, "connect-gap-sink", map[model.TopicPartition]int64{o0: 2, o1: 5})
	deleteRecordsBefore(t, addr, "orders", 0, 6)
	produceConnect(t, addr,
		[2]string{`["jdbc",{"table":"shop.orders"}]`, `{"incrementing":41}`},
		[2]string{`["dbz",{"server":"inventory"}]`, `{"lsn_proc":23911416,"lsn_commit":23911416,"lsn":23911416,"txId":750,"ts_usec":1796464427228527}`})
	pass := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(pass, []byte("*:*:*:koff:secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	g := &Globals{Bootstrap: []string{addr}, OffsetsTopics: []string{"connect-offsets"}, Refresh: 200 * time.Millisecond,
		ConfigTopic: "connect-configs", DBPassFile: pass, ProbeTimeout: 2 * time.Second, logger: log.New(io.Discard, "", 0)}
	ck, err := g.resumeChecker()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := observe(ctx, g, nil)
	defer o.stop()
	o.run()
	start := time.Now()
	o.runResume(ck)

	row := func(name string) model.ConnectorRow {
		for _, r := range o.store.Connectors() {
			if r.ID.Name == name {
				return r
			}
		}
		return model.ConnectorRow{}
	}
	// While the check waits for the silent database, the lag poll goes
	// on: several polls land before the check does.
	polls := map[time.Time]bool{}
	for o.store.ResumeChecked().IsZero() {
		if time.Since(start) > 30*time.Second {
			t.Fatal("no resume check within 30s")
		}
		if s := row("gap-sink").Sink; s != nil && !s.At.IsZero() {
			polls[s.At] = true
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(start)
	if len(polls) < 3 {
		t.Errorf("the lag poll updated the Store %d times during a %v check: the check holds it up", len(polls), took)
	}
	if took > 10*time.Second {
		t.Errorf("the first check took %v with --probe-timeout 2s", took)
	}
	// A source offset written while the checks go on is read at once.
	produceConnect(t, addr, [2]string{`["jdbc",{"table":"shop.items"}]`, `{"incrementing":7}`})
	waitUntil(t, "a new offset to be read", func() bool { return row("jdbc").Partitions == 2 })

	gap := row("gap-sink").Resume
	if gap == nil || gap.State != resume.Gap || gap.Lost.Records != 4 || gap.Counts[resume.Gap] != 1 || gap.Counts[resume.Resumes] != 1 || gap.Checked.IsZero() {
		t.Fatalf("gap-sink's row: %+v", gap)
	}
	parts := o.store.SinkPartitions("connect-gap-sink")
	if len(parts) != 2 || parts[0].Resume == nil || parts[0].Resume.State != resume.Gap || parts[0].Resume.Lost.Records != 4 ||
		parts[0].Resume.ResumesAt != "offset 6" || parts[1].Resume == nil || parts[1].Resume.State != resume.Resumes {
		t.Fatalf("gap-sink's partitions: %+v", parts)
	}
	if j := row("jdbc").Resume; j == nil || j.State != resume.Unknown || !strings.Contains(j.Reason, "JdbcSourceConnector") {
		t.Errorf("jdbc's row: %+v", j)
	}
	d := row("dbz")
	if d.Resume == nil || d.Resume.State != resume.Unknown {
		t.Fatalf("dbz's row: %+v", d.Resume)
	}
	rows := o.store.Partitions(d.ID)
	if len(rows) != 1 || rows[0].Resume == nil || rows[0].Resume.State != resume.Unknown || !strings.Contains(rows[0].Resume.Reason, "timeout") {
		t.Errorf("dbz's partition: %+v", rows)
	}
	// The check runs again at the next refresh: the sinks are asked
	// again, the silent database not before 30s (each ask is a
	// connection it logs), so the next check does not wait for it.
	first, dbFirst := o.store.ResumeChecked(), row("dbz").Resume.Checked
	again := time.Now()
	waitUntil(t, "a second check", func() bool { return o.store.ResumeChecked().After(first) })
	if took := time.Since(again); took > time.Second {
		t.Errorf("the second check took %v: it waited for the database again", took)
	}
	if r := row("gap-sink").Resume; !r.Checked.After(first) {
		t.Errorf("gap-sink was not checked again: checked %v, first check %v", r.Checked, first)
	}
	if r := row("dbz").Resume; !r.Checked.Equal(dbFirst) || r.State != resume.Unknown {
		t.Errorf("the database was asked again within 30s: %+v", r)
	}
}

// A pass file others can read, a --probe-timeout of 0 or a --source-cluster
// koff cannot read stops koff metrics at once, in one line, as it stops koff
// check (the dashboard and koff serve build the same checker first).
func TestResumeCheckerRefusesAReadablePassFile(t *testing.T) {
	pass := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(pass, []byte("*:*:*:koff:secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"metrics", "--demo", "--web.listen-address", "127.0.0.1:0", "--db-pass-file", pass}, "0600"},
		{[]string{"metrics", "--demo", "--web.listen-address", "127.0.0.1:0", "--probe-timeout", "0s"}, "--probe-timeout must be positive"},
		{[]string{"metrics", "--demo", "--web.listen-address", "127.0.0.1:0", "--source-cluster", "src"}, "--source-cluster wants ALIAS=CONTEXT or ALIAS=FILE"},
	} {
		out, errs, code := koff(t, c.args...)
		if code != ExitUsage || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c.args, code, out, errs)
		}
	}
}

// Quitting the dashboard does not wait for a check: a database that never
// answers, asked with a long --probe-timeout, is let go when the observer
// stops.
func TestResumePollerStopsAtOnce(t *testing.T) {
	db := silentDatabase(t)
	host, port, _ := strings.Cut(db, ":")
	dbz, _ := json.Marshal(map[string]string{
		"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "name": "dbz",
		"database.hostname": host, "database.port": port, "database.dbname": "inventory", "database.user": "debezium",
	})
	addr := checkBroker(t, map[string]string{"dbz": string(dbz)}, nil)
	produceConnect(t, addr, [2]string{`["dbz",{"server":"inventory"}]`, `{"lsn_proc":23911416,"lsn":23911416}`})
	pass := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(pass, []byte("*:*:*:koff:secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g := &Globals{Bootstrap: []string{addr}, OffsetsTopics: []string{"connect-offsets"}, Refresh: 200 * time.Millisecond,
		ConfigTopic: "connect-configs", DBPassFile: pass, ProbeTimeout: time.Minute, logger: log.New(io.Discard, "", 0)}
	ck, err := g.resumeChecker()
	if err != nil {
		t.Fatal(err)
	}
	o := observe(context.Background(), g, nil)
	o.run()
	o.runResume(ck)
	<-o.tailer.CaughtUp()
	time.Sleep(time.Second) // the check is asking the database
	if !o.store.ResumeChecked().IsZero() {
		t.Fatal("a check finished without the database's answer")
	}
	start := time.Now()
	o.stop()
	if took := time.Since(start); took > time.Second {
		t.Errorf("stopping took %v while a check waited for a database", took)
	}
}
