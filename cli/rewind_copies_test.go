package cli

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"koff/model/java"
)

// Which copy a rewind takes its value from, and which copy the history
// calls live, is the Store's judgement of what a restarted task reads
// (model/store/taskread.go), in the topic it reads: the connector's own
// offsets.storage.topic when it has one (Apache Kafka 4.1.1's
// ConnectorOffsetBackingStore#get overlays the workers' store with the
// connector's KafkaOffsetBackingStore, which answers every key: the
// workers' topic is never read), and within a topic the key bytes the
// task writes, in read order. A stray is never the source of a rewind.

// ownTopicCluster is a broker with the workers' connect-offsets, a
// config topic naming crm's own offsets topic crm-offsets, and crm's
// partition committed there at t0 and t0+2h, with its copy in the workers'
// topic written at t0 (as the worker's secondary write) and a stray copy
// there at t0+1h holding {"incrementing":1}.
func ownTopicCluster(t *testing.T, t0 time.Time) (addr, key string) {
	t.Helper()
	b := broker(t)
	compact := map[string]string{"cleanup.policy": "compact"}
	for name, n := range map[string]int{"connect-offsets": 25, "crm-offsets": 25, "connect-configs": 1} {
		if err := b.CreateTopic(name, n, compact); err != nil {
			t.Fatal(err)
		}
	}
	addr = b.Bootstrap()
	produceTo(t, addr, "connect-configs", 0,
		[2]string{"connector-crm", `{"properties":{"connector.class":"io.confluent.connect.jdbc.JdbcSourceConnector","offsets.storage.topic":"crm-offsets","name":"crm"}}`},
		[2]string{"target-state-crm", `{"state":"PAUSED","state.v2":"STOPPED"}`})
	key = `["crm",{"protocol":"1","table":"crm.public.deals"}]`
	commitAt(t, addr, "crm-offsets", key, `{"incrementing":4120}`, t0)
	commitAt(t, addr, "connect-offsets", key, `{"incrementing":4120}`, t0)
	commitAt(t, addr, "connect-offsets", key, `{"incrementing":1}`, t0.Add(time.Hour))
	commitAt(t, addr, "crm-offsets", key, `{"incrementing":4180}`, t0.Add(2*time.Hour))
	return addr, key
}

// A connector with its own offsets topic and a newer stray copy of its
// key in the workers' topic: the rewind takes its own topic's commit at
// the time, and the history calls the workers' copies strays, as koff get
// says they are not read.
func TestRewindOfAConnectorWithItsOwnTopicTakesItsOwnCommit(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	addr, key := ownTopicCluster(t, t0)
	at := t0.Add(90 * time.Minute).Format(time.RFC3339)
	out, errs, code := koff(t, withAudit(t, "set", "crm", "-b", addr, "--to-datetime", at, "--dry-run")...)
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s\n%s", code, errs, out)
	}
	own := "crm-offsets/" + partitionOf(key)
	for _, want := range []string{`{"incrementing":4120}, committed at 2026-11-29 01:00:00.000 UTC (CreateTime, ` + own + "@0)", `{"incrementing":4180} → {"incrementing":4120}`, "write " + own} {
		if !strings.Contains(out, want) {
			t.Errorf("the rewind's plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `{"incrementing":1}`) {
		t.Errorf("the rewind took the stray copy in the workers' topic, which the task never reads:\n%s", out)
	}
	if _, errs, code := koff(t, withAudit(t, "set", "crm", "-b", addr, "--to-datetime", at, "--yes")...); code != 0 {
		t.Fatalf("rewind: exit %d: %s", code, errs)
	}
	if got := getOffsets(t, addr, "crm"); !strings.Contains(got, `"offset":{"incrementing":4120}`) {
		t.Errorf("after the rewind koff get says %s, want the own topic's 01:00 commit", got)
	}

	h := historyJSON(t, "crm", "-b", addr, "--until", t0.Add(3*time.Hour).Format(time.RFC3339))
	for _, c := range h["commits"].([]any) {
		c := c.(map[string]any)
		want := "live"
		if c["topic"] == "connect-offsets" {
			want = "stray"
		}
		if c["copy"] != want {
			t.Errorf("history calls the commit in %s/%v %v %s, want %s", c["topic"], c["partition"], c["value"], c["copy"], want)
		}
	}
	for _, p := range h["partitions"].([]any) {
		p := p.(map[string]any)
		if p["topic"] == "connect-offsets" && !strings.Contains(fmt.Sprint(p["stray"]), "its own offsets.storage.topic crm-offsets") {
			t.Errorf("the workers' copy is not said to be unread for the own topic: %v", p)
		}
	}
}

// The same key bytes in two partitions of one topic: the rewind takes the
// commits of the copy a restarted worker reads (koff get's "reads"), not
// a newer commit of the other.
func TestRewindOfTheSameKeyBytesInTwoPartitionsTakesTheCopyTheTaskReads(t *testing.T) {
	addr := offsetsBroker(t)
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	key := `["pg",{"server":"db"}]`
	home := java.PartitionFor([]byte(key), 25) // 6
	other := home + 1
	// In one poll the consumer hands the copy in partition 6 over after
	// the one in 7 (the Store works the order out: FreshRead), so the copy
	// in 6 is the task's, however old.
	lo, hi := other, home
	commitTo(t, addr, "connect-offsets", hi, key, `{"lsn":10}`, t0)
	commitTo(t, addr, "connect-offsets", lo, key, `{"lsn":1}`, t0.Add(time.Hour))
	commitTo(t, addr, "connect-offsets", hi, key, `{"lsn":30}`, t0.Add(2*time.Hour))
	reads := "connect-offsets/" + strconv.Itoa(hi)
	out, errs, code := koff(t, "get", "pg", "-b", addr)
	if code != 0 || !strings.Contains(out, reads) {
		t.Fatalf("get: exit %d %s\n%s", code, errs, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "pg ") && strings.Contains(l, "connect-offsets/"+strconv.Itoa(lo)) && !strings.Contains(l, "stray") {
			t.Fatalf("the Store no longer reads the copy in %s last (the test's premise):\n%s", reads, out)
		}
	}
	at := t0.Add(90 * time.Minute).Format(time.RFC3339)
	out, errs, code = koff(t, withAudit(t, "set", "pg", "-b", addr, "--to-datetime", at, "--dry-run")...)
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s\n%s", code, errs, out)
	}
	if want := `{"lsn":10}, committed at 2026-11-29 01:00:00.000 UTC (CreateTime, ` + reads + "@0)"; !strings.Contains(out, want) {
		t.Errorf("the rewind's plan lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, `{"lsn":1},`) {
		t.Errorf("the rewind took the stray copy's commit:\n%s", out)
	}
	h := historyJSON(t, "pg", "-b", addr)
	for _, c := range h["commits"].([]any) {
		c := c.(map[string]any)
		want := "stray"
		if c["partition"].(interface{ String() string }).String() == strconv.Itoa(hi) {
			want = "live"
		}
		if c["copy"] != want {
			t.Errorf("history calls the commit in partition %v %s, want %s", c["partition"], c["copy"], want)
		}
	}
}

// Key bytes that parse alike but are not what the task writes (a space):
// the rewind takes the canonical key's commit, never the other's.
func TestRewindBesideNonCanonicalKeyBytesTakesTheTaskKey(t *testing.T) {
	addr := offsetsBroker(t)
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	key := `["pg",{"server":"db"}]`
	commitAt(t, addr, "connect-offsets", key, `{"lsn":10}`, t0)
	commitAt(t, addr, "connect-offsets", `["pg", {"server":"db"}]`, `{"lsn":1}`, t0.Add(time.Hour))
	commitAt(t, addr, "connect-offsets", key, `{"lsn":30}`, t0.Add(2*time.Hour))
	out, errs, code := koff(t, withAudit(t, "set", "pg", "-b", addr, "--to-datetime", t0.Add(90*time.Minute).Format(time.RFC3339), "--dry-run")...)
	if code != 0 || !strings.Contains(out, `{"lsn":30} → {"lsn":10}`) || strings.Contains(out, `{"lsn":1}`) {
		t.Errorf("dry run: exit %d %s: want db back to its own key's 01:00 commit:\n%s", code, errs, out)
	}
}

// The demo's jdbc-crm, through Connect's REST API (which names its own
// offsets topic): a stray {"incrementing":1} of one of its keys in the
// workers' topic, newer than its own commits, is never what a rewind puts
// back into connect-offsets-crm, where its task reads.
func TestRewindOfJdbcCrmNeverTakesTheWorkersTopicCopy(t *testing.T) {
	c := demoCluster(t)
	rest := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	if _, errs, code := koff(t, append([]string{"stop", "jdbc-crm"}, rest...)...); code != 0 {
		t.Fatal(errs)
	}
	time.Sleep(300 * time.Millisecond) // its last commit
	key := `["jdbc-crm",{"protocol":"1","table":"crm.public.deals"}]`
	at := time.Now().UTC().Truncate(time.Millisecond)
	commitAt(t, c.Bootstrap(), "connect-offsets", key, `{"incrementing":1}`, at.Add(-time.Millisecond))
	out, errs, code := koff(t, withAudit(t, append([]string{"set", "jdbc-crm", "--to-datetime", at.Format(time.RFC3339Nano), "--dry-run"}, rest...)...)...)
	if code != 0 && code != ExitLeftAlone {
		t.Fatalf("dry run: exit %d: %s\n%s", code, errs, out)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, `"table":"crm.public.deals"`) {
			line = l
			break
		}
	}
	t.Logf("%s", out)
	if !strings.Contains(line, "connect-offsets-crm/") || strings.Contains(out, `{"incrementing":1}`) {
		t.Errorf("the rewind of crm.public.deals does not take its own topic's commit:\n%s", out)
	}
	if strings.Contains(out, "write connect-offsets-crm/") && strings.Contains(out, `"incrementing":1}`) {
		t.Errorf("the stray's value is planned into the connector's own topic:\n%s", out)
	}
}

// A partition of a connector with its own offsets topic that only the
// workers' topic holds is no commit its task reads: the rewind names it,
// leaves it alone, and exits ExitLeftAlone.
func TestRewindLeavesAlonePartitionsOnlyTheWorkersTopicHolds(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	addr, _ := ownTopicCluster(t, t0)
	commitAt(t, addr, "connect-offsets", `["crm",{"protocol":"1","table":"crm.public.old"}]`, `{"incrementing":9}`, t0)
	out, errs, code := koff(t, withAudit(t, "set", "crm", "-b", addr, "--to-datetime", t0.Add(90*time.Minute).Format(time.RFC3339), "--dry-run")...)
	if code != ExitLeftAlone || !strings.Contains(out, `{"protocol":"1","table":"crm.public.old"}  left alone: not in its own offsets topic crm-offsets`) ||
		!strings.Contains(errs, `{"protocol":"1","table":"crm.public.old"} (not in its own offsets topic crm-offsets`) {
		t.Errorf("exit %d (want %d) %s\n%s", code, ExitLeftAlone, errs, out)
	}
	if strings.Contains(out, `{"incrementing":9}`) || !strings.Contains(out, `{"incrementing":4180} → {"incrementing":4120}`) {
		t.Errorf("the rewind took the workers' copy, or left the rest alone:\n%s", out)
	}
}
