package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/model"
)

// produceIn writes one record to an explicit partition of connect-offsets
// (as a careless operator with kcat -p would); value "\x00" is a tombstone.
func produceIn(t *testing.T, addr string, partition int, key, value string) {
	t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 10 * time.Second}
	rec := kafkago.Record{Key: kafkago.NewBytes([]byte(key)), Time: time.Now()}
	if value != "\x00" {
		rec.Value = kafkago.NewBytes([]byte(value))
	}
	res, err := c.Produce(context.Background(), &kafkago.ProduceRequest{
		Topic: "connect-offsets", Partition: partition, RequiredAcks: kafkago.RequireAll, Records: kafkago.NewRecordReader(rec),
	})
	if err == nil {
		err = res.Error
	}
	if err != nil {
		t.Fatalf("produce %s: %v", key, err)
	}
	time.Sleep(2 * time.Millisecond) // record timestamps in order
}

// Class 8: set, reset, copy and import refuse a name koff has never seen,
// naming the closest known ones, unless --create; nothing is written.
func TestTypoedNamesAreRefused(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["jdbc-orders",{"table":"orders"}]`, `{"incrementing":5}`})
	file := filepath.Join(t.TempDir(), "export.json")
	if err := os.WriteFile(file, []byte(`{"jdbc-ordres":{"offsets":[{"partition":{"table":"orders"},"offset":{"incrementing":1}}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	before := endOffsets(t, addr)
	for _, args := range [][]string{
		{"set", "jdbc-ordres", "--partition", `{"table":"orders"}`, "--offset", `{"incrementing":1}`},
		{"reset", "jdbc-ordres"},
		{"reset", "jdbc-ordres", "--partition", `{"table":"orders"}`},
		{"copy", "jdbc-orders", "jdbc-ordres"},
		{"import", file},
		{"set", "jdbc-ordres", "--to-earliest"}, // a sink strategy: no group connect-jdbc-ordres either
	} {
		_, errs, code := koff(t, withAudit(t, append(args, "-b", addr, "--yes")...)...)
		if code == 0 || !strings.Contains(errs, "unknown connector jdbc-ordres") || !strings.Contains(errs, "did you mean jdbc-orders?") || !strings.Contains(errs, "--create") {
			t.Errorf("koff %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
		}
		if n := strings.Count(strings.TrimSpace(errs), "\n"); n > 0 {
			t.Errorf("koff %s: %d lines on stderr, want one", strings.Join(args, " "), n+1)
		}
	}
	if after := endOffsets(t, addr); after != before {
		t.Errorf("a refused command wrote: end offsets %d → %d", before, after)
	}
	out, errs, code := koff(t, withAudit(t, "set", "jdbc-orders-v2", "--create", "-b", addr, "--yes", "--partition", `{"table":"orders"}`, "--offset", `{"incrementing":1}`)...)
	if code != 0 || !strings.Contains(out, "verified: set 1 partition of jdbc-orders-v2") || !strings.Contains(out, "new name to koff (--create)") {
		t.Errorf("--create: exit %d %s\n%s", code, errs, out)
	}
}

// Class 1 end to end: get and export show the value under the task's key
// bytes, not the newer hand-written copy, and say which copy is a stray.
func TestGetAndExportShowWhatTheTaskReads(t *testing.T) {
	addr := offsetsBroker(t)
	const (
		task   = `["file-src",{"filename":"/var/log/app.log"}]`
		spaced = `["file-src", {"filename": "/var/log/app.log"}]`
	)
	home := model.PartitionFor([]byte(task), 25)
	produceIn(t, addr, home, task, `{"position":4096}`)
	produceIn(t, addr, home, spaced, `{"position":0}`) // by hand, later, into the wrong partition
	out, errs, code := koff(t, "get", "file-src", "-o", "json", "-b", addr)
	if code != 0 || strings.TrimSpace(out) != `{"offsets":[{"partition":{"filename":"/var/log/app.log"},"offset":{"position":4096}}]}` {
		t.Errorf("get -o json: exit %d %s\n%s", code, errs, out)
	}
	out, _, _ = koff(t, "export", "file-src", "-b", addr)
	if strings.TrimSpace(out) != `{"file-src":{"offsets":[{"partition":{"filename":"/var/log/app.log"},"offset":{"position":4096}}]}}` {
		t.Errorf("export:\n%s", out)
	}
	out, _, _ = koff(t, "get", "file-src", "-b", addr)
	if !strings.Contains(out, "stray") || !strings.Contains(out, "task reads") {
		t.Errorf("get table does not tell the live copy from the stray:\n%s", out)
	}
}
