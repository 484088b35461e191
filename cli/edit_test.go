package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	kafkago "github.com/segmentio/kafka-go"

	"koff/model/java"
)

// endOffsets sums the end offsets of connect-offsets: any write moves it.
func endOffsets(t *testing.T, addr string) int64 {
	t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(addr)}
	var reqs []kafkago.OffsetRequest
	for p := 0; p < 25; p++ {
		reqs = append(reqs, kafkago.LastOffsetOf(p))
	}
	res, err := c.ListOffsets(context.Background(), &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{"connect-offsets": reqs}})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, p := range res.Topics["connect-offsets"] {
		n += p.LastOffset
	}
	return n
}

func withAudit(t *testing.T, args ...string) []string {
	return append(args, "--audit-log", filepath.Join(t.TempDir(), "audit.jsonl"))
}

// kcatRecords returns "partition key value" lines of connect-offsets, read
// by kcat, an independent client.
func kcatRecords(t *testing.T, kcat, addr string) []string {
	t.Helper()
	out, err := exec.Command(kcat, "-b", addr, "-C", "-t", "connect-offsets", "-e", "-q", "-f", "%p %k %s\n").Output()
	if err != nil {
		t.Fatalf("kcat: %v", err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

func TestSetRewritesTheWorkersKeyBytesCheckedWithKcat(t *testing.T) {
	kcat := needTool(t, "kcat")
	addr := offsetsBroker(t)
	// A Java worker with a LinkedHashMap wrote this key: not HashMap order.
	key := `["jdbc-src",{"table":"orders","database":"shop","schema":"public","a":1}]`
	produceConnect(t, addr, [2]string{key, `{"incrementing":5}`})
	out, errs, code := koff(t, withAudit(t, "set", "jdbc-src", "-b", addr, "--yes",
		"--partition", `{"a":1,"schema":"public","database":"shop","table":"orders"}`,
		"--offset", `{"incrementing":9223372036854775807}`)...)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	if !strings.Contains(out, `{"incrementing":5} → {"incrementing":9223372036854775807}`) || !strings.Contains(out, "existing key, exact bytes") || !strings.Contains(out, "written and read back, NOT verified for the worker: set 1 partition of jdbc-src") {
		t.Errorf("output:\n%s", out)
	}
	recs := kcatRecords(t, kcat, addr)
	if len(recs) != 2 {
		t.Fatalf("want the original and the edit, got %q", recs)
	}
	if recs[0][:strings.IndexByte(recs[0], ' ')] != recs[1][:strings.IndexByte(recs[1], ' ')] ||
		!strings.HasSuffix(recs[1], " "+key+` {"incrementing":9223372036854775807}`) {
		t.Errorf("the edit is not the same key bytes in the same partition:\n%s", strings.Join(recs, "\n"))
	}
	// A new partition lands in its murmur2 partition.
	if _, errs, code := koff(t, withAudit(t, "set", "jdbc-src", "-b", addr, "--yes", "--create", "--partition", `{"table":"payments","database":"shop","schema":"public","a":1}`, "--offset", `{"incrementing":9007199254740993}`)...); code != 0 {
		t.Fatal(errs)
	}
	newKey := `["jdbc-src",{"table":"payments","database":"shop","schema":"public","a":1}]`
	recs = kcatRecords(t, kcat, addr)
	found := false
	for _, r := range recs {
		if strings.HasSuffix(r, " "+newKey+` {"incrementing":9007199254740993}`) {
			found = strings.HasPrefix(r, partitionOf(newKey)+" ")
		}
	}
	if !found {
		t.Errorf("new partition not in its murmur2 partition %s:\n%s", partitionOf(newKey), strings.Join(recs, "\n"))
	}
}

func TestWritesNeedConfirmationAndDryRunAndReadOnlyWriteNothing(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["src",{"server":"db"}]`, `{"lsn":1}`})
	before := endOffsets(t, addr)
	set := []string{"set", "src", "-b", addr, "--partition", `{"server":"db"}`, "--offset", `{"lsn":2}`}

	_, errs, code := koff(t, withAudit(t, set...)...)
	if code != ExitUsage || !strings.Contains(errs, "stdin is not a terminal") {
		t.Errorf("without --yes on a pipe: exit %d %q", code, errs)
	}
	out, errs, code := koff(t, withAudit(t, append(set, "--dry-run")...)...)
	if code != 0 || !strings.Contains(out, `{"lsn":1} → {"lsn":2}`) || !strings.Contains(out, "dry run: nothing written") {
		t.Errorf("dry run: exit %d %s\n%s", code, errs, out)
	}
	_, errs, code = koff(t, withAudit(t, append(set, "--yes", "--read-only")...)...)
	if code != ExitFailed || !strings.Contains(errs, "read-only") {
		t.Errorf("read-only: exit %d %q", code, errs)
	}
	_, errs, code = koff(t, withAudit(t, "reset", "src", "-b", addr, "--yes", "--read-only")...)
	if code != ExitFailed || !strings.Contains(errs, "read-only") {
		t.Errorf("read-only reset: exit %d %q", code, errs)
	}
	if after := endOffsets(t, addr); after != before {
		t.Errorf("end offsets moved %d → %d", before, after)
	}
	// Without --connect-url the state is unknown, and the plan says so.
	if !strings.Contains(out, "state:  unknown (no --connect-url, no config topic)") || !strings.Contains(out, "overwrite this edit") {
		t.Errorf("plan does not warn about an unknown state:\n%s", out)
	}
}

func TestExportResetImportRestoresEveryOffsetByteForByte(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr,
		[2]string{`["inventory",{"server":"inventory"}]`, `{"lsn_proc":1152921504606846977,"lsn":9223372036854775807,"txId":9007199254740993}`},
		[2]string{`["files",{"filename":"/var/log/a.log"}]`, `{"position":42}`},
		[2]string{`["files",{"filename":"/var/log/b.log"}]`, `{"position":7}`},
	)
	exported, errs, code := koff(t, "export", "-b", addr)
	if code != 0 {
		t.Fatal(errs)
	}
	file := filepath.Join(t.TempDir(), "offsets.json")
	if err := os.WriteFile(file, []byte(exported), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"inventory", "files"} {
		if _, errs, code := koff(t, withAudit(t, "reset", c, "-b", addr, "--yes")...); code != 0 {
			t.Fatalf("reset %s: %s", c, errs)
		}
	}
	if out, _, _ := koff(t, "get", "-b", addr); strings.Contains(out, "position") {
		t.Fatalf("offsets survived the reset:\n%s", out)
	}
	out, errs, code := koff(t, withAudit(t, "import", file, "-b", addr, "--yes")...)
	if code != 0 {
		t.Fatalf("import: %s\n%s", errs, out)
	}
	again, _, _ := koff(t, "export", "-b", addr)
	if again != exported {
		t.Errorf("after export, reset, import:\n got %s\nwant %s", again, exported)
	}
}

func partitionOf(key string) string {
	return strconv.Itoa(java.PartitionFor([]byte(key), 25))
}
