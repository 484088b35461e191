package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/model/java"
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
		// A reset of a new name has nothing to reset: no --create hint.
		if code == 0 || !strings.Contains(errs, "unknown connector jdbc-ordres") || !strings.Contains(errs, "did you mean jdbc-orders?") || strings.Contains(errs, "--create") != (args[0] != "reset") {
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
	if code != 0 || !strings.Contains(out, "written and read back, NOT verified for the worker: set 1 partition of jdbc-orders-v2") || !strings.Contains(out, "new name to koff (--create)") {
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
	home := java.PartitionFor([]byte(task), 25)
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

// Class 10: every JSON document koff prints is valid, whatever the topic
// holds; a value the task cannot read is a string field with its reason.
func TestEveryPrintedJSONDocumentIsValid(t *testing.T) {
	addr := offsetsBroker(t)
	nasty := []string{
		"not json", "{\"pos\":\"\xff\"}", `{"pos":007}`, `{"pos":1} trailing`, `{ "pos" : 1 }`, "", "null", "[1]",
		`{"pos":{"nested":1}}`, `{"pos":1e400}`, `{"pos":"\ud800"}`, "\xef\xbb\xbf{\"pos\":2}", `{"pos":18446744073709551621}`,
	}
	var recs [][2]string
	for i, v := range nasty {
		recs = append(recs, [2]string{`["c",{"n":` + strconv.Itoa(i) + `}]`, v})
	}
	recs = append(recs, [2]string{`["c",{"n":007}]`, `{"pos":3}`}, [2]string{`["c",{"s":"\ud83d"}]`, `{"pos":4}`})
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- Main([]string{"tail", "-b", addr, "-o", "jsonl"}, Env{Context: ctx, Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	}()
	time.Sleep(time.Second)
	produceConnect(t, addr, recs...)
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "\n") < len(recs) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	docs := map[string]string{"tail -o jsonl": out.String()}
	for _, args := range [][]string{{"get", "-o", "json"}, {"get", "c", "-o", "json"}, {"export"}, {"status", "-o", "json"}} {
		o, errs, code := koff(t, append(args, "-b", addr)...)
		if code != 0 {
			t.Fatalf("koff %s: exit %d %s", strings.Join(args, " "), code, errs)
		}
		docs["koff "+strings.Join(args, " ")] = o
	}
	for name, text := range docs {
		lines := []string{text}
		if strings.HasPrefix(name, "tail") {
			lines = strings.Split(strings.TrimSpace(text), "\n")
			if len(lines) != len(recs) {
				t.Errorf("%s: %d lines for %d records:\n%s", name, len(lines), len(recs), text)
			}
		}
		for _, l := range lines {
			if !json.Valid([]byte(l)) {
				t.Errorf("%s printed invalid JSON: %q", name, l)
			}
		}
	}
	if !strings.Contains(out.String(), `"offset":null,"value":"not json","error":"not JSON the converter reads:`) {
		t.Errorf("an unreadable value is not a string field with its reason:\n%s", out.String())
	}
	// What the task reads: the BOM'd and leading-zero values are offsets;
	// the rest of n=0..12 give the task nothing, so they are not exported.
	exp := docs["koff export"]
	for _, want := range []string{`{"partition":{"n":2},"offset":{"pos":7}}`, `{"partition":{"n":3},"offset":{"pos":1}}`, `{"partition":{"n":4},"offset":{"pos":1}}`, `{"partition":{"n":11},"offset":{"pos":2}}`} {
		if !strings.Contains(exp, want) {
			t.Errorf("export lacks %s:\n%s", want, exp)
		}
	}
	for _, dead := range []string{`{"n":0}`, `{"n":1}`, `{"n":5}`, `{"n":6}`, `{"n":7}`, `{"n":8}`} {
		if strings.Contains(exp, `"partition":`+dead) {
			t.Errorf("export brings back %s, whose task gets no offset:\n%s", dead, exp)
		}
	}
}
