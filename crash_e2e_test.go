package main

// Crash tests of the built binary: a 5,000-partition `koff import` killed
// (SIGKILL, SIGTERM) or cut off by the broker while it writes. Afterwards
// the audit log must say exactly which records reached the log, and
// `koff undo` must put back exactly those.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"koff/edit/audit"
	"koff/edit/plan"
	"koff/kafka"
	"koff/model"
	"koff/model/java"
	"koff/model/store"
)

const (
	crashTopic      = "connect-offsets"
	crashPartitions = 25
	crashKeys       = 5000
)

// crashCluster is an embedded broker with an offsets topic holding
// crashKeys source partitions of connector "bulk", each at {"id":111}.
type crashCluster struct {
	t     *testing.T
	fake  *kfake.Cluster
	addr  string
	kafka kafka.Config
	state string // XDG_STATE_HOME of the koff processes
	file  string // the export file koff imports
	// produces counts the produce requests to the offsets topic.
	produces atomic.Int32
}

func crashKey(i int) string { return fmt.Sprintf(`["bulk",{"table":"t%05d"}]`, i) }

func newCrashCluster(t *testing.T) *crashCluster {
	t.Helper()
	fake, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(crashPartitions, crashTopic), kfake.SeedTopics(1, "connect-configs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	c := &crashCluster{t: t, fake: fake, addr: fake.ListenAddrs()[0], state: t.TempDir()}
	c.kafka = kafka.Config{Brokers: []string{c.addr}}
	// Connect's config topic: bulk is a STOPPED connector using the
	// workers' offsets topic, so koff knows its edits reach the task.
	if err := c.kafka.WriteRecords(context.Background(), []store.Record{
		{Topic: "connect-configs", Key: []byte("connector-bulk"), Value: []byte(`{"properties":{"connector.class":"BulkSource","name":"bulk"}}`)},
		{Topic: "connect-configs", Key: []byte("target-state-bulk"), Value: []byte(`{"state":"PAUSED","state.v2":"STOPPED"}`)},
	}); err != nil {
		t.Fatal(err)
	}
	var recs []store.Record
	for i := 0; i < crashKeys; i++ {
		k := crashKey(i)
		recs = append(recs, store.Record{Topic: crashTopic, Partition: java.PartitionFor([]byte(k), crashPartitions), Key: []byte(k), Value: []byte(`{"id":111}`)})
	}
	if err := c.kafka.WriteRecords(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	// The export koff imports: every partition to a new offset.
	var b strings.Builder
	b.WriteString(`{"bulk":{"offsets":[`)
	for i := 0; i < crashKeys; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"partition":{"table":"t%05d"},"offset":{"id":%d}}`, i, 100000+i)
	}
	b.WriteString(`]}}`)
	c.file = filepath.Join(t.TempDir(), "offsets.json")
	if err := os.WriteFile(c.file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return c
}

// slowProduce makes every produce request to the offsets topic take d,
// so that a kill lands between requests, and counts them.
func (c *crashCluster) slowProduce(d time.Duration, onProduce func(n int32) (kmsg.Response, error, bool)) {
	c.fake.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		pr := req.(*kmsg.ProduceRequest)
		if len(pr.Topics) == 0 || pr.Topics[0].Topic != crashTopic {
			return nil, nil, false
		}
		n := c.produces.Add(1)
		if onProduce != nil {
			if resp, err, handled := onProduce(n); handled {
				c.fake.KeepControl()
				return resp, err, true
			}
		}
		if d > 0 {
			c.fake.SleepControl(func() { time.Sleep(d) })
		}
		return nil, nil, false
	})
}

// ends are the log-end offsets of the offsets topic.
func (c *crashCluster) ends() map[int]int64 {
	c.t.Helper()
	var tps []model.TopicPartition
	for p := 0; p < crashPartitions; p++ {
		tps = append(tps, model.TopicPartition{Topic: crashTopic, Partition: p})
	}
	b, err := c.kafka.LogBounds(context.Background(), tps)
	if err != nil {
		c.t.Fatal(err)
	}
	out := map[int]int64{}
	for tp, v := range b {
		out[tp.Partition] = v[1]
	}
	return out
}

// since reads every record after the given end offsets.
func (c *crashCluster) since(ends map[int]int64) []store.Record {
	c.t.Helper()
	var out []store.Record
	for p := 0; p < crashPartitions; p++ {
		recs, _, err := c.kafka.ReadRecords(context.Background(), model.TopicPartition{Topic: crashTopic, Partition: p}, ends[p])
		if err != nil {
			c.t.Fatal(err)
		}
		out = append(out, recs...)
	}
	return out
}

func (c *crashCluster) koff(args ...string) *exec.Cmd {
	// bulk is STOPPED in the config topic only: each edit is watched after
	// its read-back for a flush interval, here the floor.
	cmd := exec.Command(koffBin, append(args, "-b", c.addr, "--flush-interval", "100ms")...)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+c.state)
	return cmd
}

func (c *crashCluster) audit() *audit.Log {
	return &audit.Log{Path: filepath.Join(c.state, "koff", "audit.jsonl")}
}

// startImport runs `koff import --yes` and returns once it is running.
func (c *crashCluster) startImport() (*exec.Cmd, *bytes.Buffer) {
	c.t.Helper()
	cmd := c.koff("import", c.file, "--yes")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	return cmd, &out
}

func (c *crashCluster) waitProduces(n int32, cmd *exec.Cmd, out *bytes.Buffer) {
	c.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for c.produces.Load() < n {
		if time.Now().After(deadline) {
			c.t.Fatalf("only %d produce requests; koff said: %s", c.produces.Load(), out)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// imported groups the import's records (new values) by partition.
func imported(recs []store.Record) map[int]int {
	out := map[int]int{}
	for _, r := range recs {
		if !bytes.Equal(r.Value, []byte(`{"id":111}`)) {
			out[r.Partition]++
		}
	}
	return out
}

// checkOutcome compares what reached the log with what the audit log says
// and with what undo writes; it returns the figures.
func (c *crashCluster) checkOutcome(before map[int]int64, wantResult string) (records, auditTPs, undone int) {
	c.t.Helper()
	got := imported(c.since(before))
	for _, n := range got {
		records += n
	}
	if records == 0 || records == crashKeys {
		c.t.Fatalf("%d of %d records written: the kill did not land mid-write", records, crashKeys)
	}
	// Batches are whole: a topic-partition has all its records or none.
	perTP := map[int]int{}
	for i := 0; i < crashKeys; i++ {
		perTP[java.PartitionFor([]byte(crashKey(i)), crashPartitions)]++
	}
	for p, n := range got {
		if n != perTP[p] {
			c.t.Errorf("partition %d has %d of its %d records: a batch was cut", p, n, perTP[p])
		}
	}

	// `koff status` says loudly that an edit was interrupted.
	st := c.koff("status")
	stOut, _ := st.CombinedOutput()
	if !strings.Contains(string(stOut), "INTERRUPTED EDIT: import of bulk") || !strings.Contains(string(stOut), "koff undo bulk") {
		c.t.Errorf("koff status does not say an edit was interrupted:\n%s", stOut)
	}

	// Undo reconciles (when the process left no outcome) and restores.
	mid := c.ends()
	undo := c.koff("undo", "bulk", "--yes")
	undoOut, err := undo.CombinedOutput()
	if err != nil {
		c.t.Fatalf("koff undo: %v\n%s", err, undoOut)
	}
	if !strings.Contains(string(undoOut), "verified: undid the import of bulk:") {
		c.t.Errorf("undo output:\n%s", lastLines(string(undoOut), 5))
	}
	edits, err := c.audit().Edits()
	if err != nil {
		c.t.Fatal(err)
	}
	var imp *audit.Edit
	for i := range edits {
		if edits[i].Start.Kind == plan.KindImport {
			imp = &edits[i]
		}
	}
	if imp == nil || imp.Result() != wantResult {
		c.t.Fatalf("audit: import edit %+v", imp)
	}
	ws := imp.WrittenSet()
	auditTPs = len(ws)
	if auditTPs != len(got) {
		c.t.Errorf("audit says %d topic-partitions written, the log has %d", auditTPs, len(got))
	}
	for p := range got {
		if !ws[fmt.Sprintf("%s/%d", crashTopic, p)] {
			c.t.Errorf("audit misses %s/%d", crashTopic, p)
		}
	}
	// Undo also writes the before-values of a topic-partition whose
	// outcome is unknown: right whether or not its request landed.
	covered, want := map[int]bool{}, records
	for p := range got {
		covered[p] = true
	}
	for tp := range imp.UnknownSet() {
		p, _ := strconv.Atoi(strings.TrimPrefix(tp, crashTopic+"/"))
		if !covered[p] {
			covered[p] = true
			want += perTP[p]
		}
	}
	undoRecs := c.since(mid)
	undone = len(undoRecs)
	if undone != want {
		c.t.Errorf("undo wrote %d records, the import had written %d (and may have written %d more)", undone, records, want-records)
	}
	for _, r := range undoRecs {
		if !covered[r.Partition] || string(r.Value) != `{"id":111}` {
			c.t.Errorf("undo wrote %s = %s to partition %d, which the import never touched", r.Key, r.Value, r.Partition)
		}
	}
	// The banner is gone once undone.
	st = c.koff("status")
	stOut, _ = st.CombinedOutput()
	if strings.Contains(string(stOut), "INTERRUPTED EDIT") {
		c.t.Errorf("still interrupted after undo:\n%s", stOut)
	}
	return records, auditTPs, undone
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

func TestCrashDuringImport(t *testing.T) {
	t.Run("SIGKILL", func(t *testing.T) {
		c := newCrashCluster(t)
		before := c.ends()
		c.slowProduce(100*time.Millisecond, nil)
		cmd, out := c.startImport()
		c.waitProduces(10, cmd, out)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		// The request the broker was holding when koff died still lands.
		time.Sleep(300 * time.Millisecond)
		// The process left no outcome: an in-progress edit.
		recs, tps, undone := c.checkOutcome(before, audit.ResultInterrupted)
		t.Logf("SIGKILL: %d of %d records written; audit: %d topic-partitions; undo rewrote %d records", recs, crashKeys, tps, undone)
	})
	t.Run("SIGTERM", func(t *testing.T) {
		c := newCrashCluster(t)
		before := c.ends()
		c.slowProduce(100*time.Millisecond, nil)
		cmd, out := c.startImport()
		c.waitProduces(10, cmd, out)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("koff import after SIGTERM: %v, want exit 1", err)
		}
		if !strings.Contains(out.String(), "interrupted by a signal") || !strings.Contains(out.String(), "not written: connect-offsets/") {
			t.Errorf("koff import after SIGTERM said:\n%s", lastLines(out.String(), 3))
		}
		recs, tps, undone := c.checkOutcome(before, audit.ResultInterrupted)
		t.Logf("SIGTERM: %d of %d records written; audit: %d topic-partitions; undo rewrote %d records", recs, crashKeys, tps, undone)
	})
	// The broker closes the connection on the 5th produce request without
	// appending it. koff cannot tell that from an answer lost after the
	// append: it reads for the batch until the verify timeout, then says
	// the topic-partition may have been written (exit 3, outcome unknown),
	// and undo covers it.
	t.Run("connection dropped at the 5th produce request", func(t *testing.T) {
		c := newCrashCluster(t)
		before := c.ends()
		c.slowProduce(0, func(n int32) (kmsg.Response, error, bool) {
			if n == 5 {
				return nil, errors.New("drop the connection"), true
			}
			return nil, nil, false
		})
		cmd, out := c.startImport()
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Errorf("koff import: %v, want exit 3\n%s", err, out)
		}
		if !strings.Contains(out.String(), "may have been written: connect-offsets/4 (") ||
			!strings.Contains(out.String(), "written: connect-offsets/0, connect-offsets/1, connect-offsets/2, connect-offsets/3; not written: connect-offsets/5,") {
			t.Errorf("koff import said:\n%s", lastLines(out.String(), 3))
		}
		recs, tps, undone := c.checkOutcome(before, audit.ResultUnknown)
		t.Logf("dropped connection: %d of %d records written; audit: %d topic-partitions; undo rewrote %d records", recs, crashKeys, tps, undone)
	})
}
