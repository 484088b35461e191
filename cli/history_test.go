package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"koff/kafka"
	"koff/model"
	"koff/model/java"
)

// commitAt writes one offset record as a worker does (its murmur2
// partition of 25), stamped with a chosen CreateTime; value "" is a
// tombstone. It returns the record's offset.
func commitAt(t *testing.T, addr, topic, key, value string, at time.Time) int64 {
	t.Helper()
	return commitTo(t, addr, topic, java.PartitionFor([]byte(key), 25), key, value, at)
}

func commitTo(t *testing.T, addr, topic string, partition int, key, value string, at time.Time) int64 {
	t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 10 * time.Second}
	rec := kafkago.Record{Key: kafkago.NewBytes([]byte(key)), Time: at}
	if value != "" {
		rec.Value = kafkago.NewBytes([]byte(value))
	}
	res, err := c.Produce(context.Background(), &kafkago.ProduceRequest{
		Topic: topic, Partition: partition, RequiredAcks: kafkago.RequireAll, Records: kafkago.NewRecordReader(rec),
	})
	if err == nil {
		err = res.Error
	}
	if err != nil {
		t.Fatalf("produce %s: %v", key, err)
	}
	return res.BaseOffset
}

// historyJSON runs koff history -o json and decodes it with exact numbers.
func historyJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, errs, code := koff(t, append([]string{"history", "-o", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("history: exit %d: %s", code, errs)
	}
	d := json.NewDecoder(strings.NewReader(out))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("history -o json is not JSON: %v\n%s", err, out)
	}
	return v
}

func getOffsets(t *testing.T, addr, name string) string {
	t.Helper()
	out, errs, code := koff(t, "get", name, "-b", addr, "-o", "json")
	if code != 0 {
		t.Fatalf("get: exit %d: %s", code, errs)
	}
	return strings.TrimSpace(out)
}

// Three commits an hour apart; a rewind to between the second and the
// third puts the second back, byte for byte (a number beyond 2^53), and
// undo puts the third back again. A partition first committed after the
// time is left alone unless --if-newer says otherwise; a partition whose
// commit then was a tombstone is deleted; a stray copy with a newer value
// at that time is not what the task read, so it is not taken.
func TestRewindToATimeBetweenCommits(t *testing.T) {
	addr := offsetsBroker(t)
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	key := `["pg",{"server":"db"}]`
	commitAt(t, addr, "connect-offsets", key, `{"lsn":9007199254740993}`, t0)
	second := commitAt(t, addr, "connect-offsets", key, `{"lsn":9007199254740995}`, t0.Add(time.Hour))
	commitAt(t, addr, "connect-offsets", key, `{"lsn":9007199254740999}`, t0.Add(2*time.Hour))
	// A stray copy (whitespace in the key) committed between.
	commitAt(t, addr, "connect-offsets", `["pg", {"server":"db"}]`, `{"lsn":1}`, t0.Add(90*time.Minute))
	// Reset at 02:00 (a tombstone), committed again at 03:00.
	gone := `["pg",{"server":"gone"}]`
	commitAt(t, addr, "connect-offsets", gone, `{"lsn":5}`, t0)
	commitAt(t, addr, "connect-offsets", gone, "", t0.Add(time.Hour))
	commitAt(t, addr, "connect-offsets", gone, `{"lsn":6}`, t0.Add(2*time.Hour))
	// First committed at 03:00.
	commitAt(t, addr, "connect-offsets", `["pg",{"server":"new"}]`, `{"lsn":7}`, t0.Add(2*time.Hour))

	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	at := t0.Add(90 * time.Minute).Format(time.RFC3339)
	// "new" is left alone: the command says so and exits ExitLeftAlone,
	// having rewound the others (with --dry-run: would have).
	out, errs, code := koff(t, "set", "pg", "-b", addr, "--to-datetime", at, "--dry-run", "--audit-log", audit)
	if code != ExitLeftAlone || !strings.Contains(errs, `left alone, not rewound to 2026-11-29 02:30:00.000 UTC: {"server":"new"} (first committed at 2026-11-29 03:00:00.000 UTC`) {
		t.Fatalf("dry run: exit %d (want %d): %s\n%s", code, ExitLeftAlone, errs, out)
	}
	for _, want := range []string{
		`1 partition left alone ({"server":"new"}): --if-newer reset deletes their offsets`,
		`{"server":"db"}  {"lsn":9007199254740995}, committed at 2026-11-29 02:00:00.000 UTC (CreateTime, connect-offsets/` + strconv.Itoa(java.PartitionFor([]byte(key), 25)) + "@" + strconv.Itoa(int(second)) + ")",
		`{"server":"gone"}  deleted: a tombstone was in force, committed at 2026-11-29 02:00:00.000 UTC`,
		`{"server":"new"}  left alone: first committed at 2026-11-29 03:00:00.000 UTC`,
		"dry run: nothing written",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan lacks %q:\n%s", want, out)
		}
	}
	before := getOffsets(t, addr, "pg")
	if _, errs, code := koff(t, "set", "pg", "-b", addr, "--to-datetime", at, "--yes", "--audit-log", audit); code != ExitLeftAlone {
		t.Fatalf("rewind: exit %d, want %d (new left alone): %s", code, ExitLeftAlone, errs)
	}
	got := getOffsets(t, addr, "pg")
	if !strings.Contains(got, `{"partition":{"server":"db"},"offset":{"lsn":9007199254740995}}`) {
		t.Errorf("after the rewind, db is not at its 02:00 commit: %s", got)
	}
	if strings.Contains(got, `"gone"`) {
		t.Errorf("after the rewind, gone still has an offset: %s", got)
	}
	if !strings.Contains(got, `{"partition":{"server":"new"},"offset":{"lsn":7}}`) {
		t.Errorf("the rewind changed a partition first committed after the time: %s", got)
	}
	// The history marks the rewind's records as koff's edit.
	h := historyJSON(t, "pg", "-b", addr, "--audit-log", audit, "--since", t0.Add(3*time.Hour).Format(time.RFC3339))
	commits := h["commits"].([]any)
	if len(commits) != 2 {
		t.Fatalf("want the rewind's 2 records since 04:00, got %d: %v", len(commits), commits)
	}
	for _, c := range commits {
		if e, ok := c.(map[string]any)["koff_edit"].(map[string]any); !ok || e["kind"] != "rewind" {
			t.Errorf("a record of the rewind is not marked as koff's edit: %v", c)
		}
	}
	if _, errs, code := koff(t, "undo", "pg", "-b", addr, "--yes", "--audit-log", audit); code != 0 {
		t.Fatalf("undo: %s", errs)
	}
	if after := getOffsets(t, addr, "pg"); after != before {
		t.Errorf("undo did not put back the offsets before the rewind:\n got %s\nwant %s", after, before)
	}
	// --if-newer reset deletes the partition first committed after the time.
	out, _, code = koff(t, "set", "pg", "-b", addr, "--to-datetime", at, "--if-newer", "reset", "--yes", "--partition", `{"server":"new"}`, "--audit-log", audit)
	if code != 0 || !strings.Contains(out, "deleted (--if-newer reset)") {
		t.Fatalf("--if-newer reset: exit %d:\n%s", code, out)
	}
	if got := getOffsets(t, addr, "pg"); strings.Contains(got, `"new"`) {
		t.Errorf("--if-newer reset left the newer partition's offset: %s", got)
	}
}

// The history lists every retained commit with its time, the copy it is
// (live or stray), tombstones as null, numbers as stored; and says where
// each key's history begins.
func TestHistoryListsEveryRetainedCommit(t *testing.T) {
	addr := offsetsBroker(t)
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	key := `["pg",{"server":"db"}]`
	commitAt(t, addr, "connect-offsets", key, `{"lsn":18446744073709551616}`, t0)
	commitAt(t, addr, "connect-offsets", key, "", t0.Add(time.Hour))
	commitAt(t, addr, "connect-offsets", key, `{"lsn":1.50}`, t0.Add(2*time.Hour))
	commitAt(t, addr, "connect-offsets", `["pg", {"server":"db"}]`, `{"lsn":3}`, t0.Add(3*time.Hour))
	commitAt(t, addr, "connect-offsets", `["other",{"server":"db"}]`, `{"lsn":3}`, t0)
	out, _, _ := koff(t, "history", "pg", "-b", addr, "-o", "json")
	for _, want := range []string{`"value":{"lsn":18446744073709551616}`, `"value":{"lsn":1.50}`, `"value":null`} {
		if !strings.Contains(out, want) {
			t.Errorf("the JSON history lacks %s (stored bytes):\n%s", want, out)
		}
	}
	h := historyJSON(t, "pg", "-b", addr)
	commits := h["commits"].([]any)
	var copies []string
	for _, c := range commits {
		m := c.(map[string]any)
		copies = append(copies, m["time"].(string)+" "+m["copy"].(string))
	}
	if len(commits) != 4 {
		t.Fatalf("want pg's 4 commits, not other's, got %v", copies)
	}
	want := []string{"2026-11-29T01:00:00.000Z live", "2026-11-29T02:00:00.000Z live", "2026-11-29T03:00:00.000Z live", "2026-11-29T04:00:00.000Z stray"}
	for _, w := range want {
		if !strings.Contains(strings.Join(copies, "\n"), w) {
			t.Errorf("history lacks %q: %v", w, copies)
		}
	}
	for _, p := range h["partitions"].([]any) {
		m := p.(map[string]any)
		if m["history_complete"] != true {
			t.Errorf("nothing was removed, yet the history does not begin with the first commit: %v", m)
		}
		if m["copy"] == "live" && (m["commits"].(json.Number).String() != "3" || m["tombstones"].(json.Number).String() != "1") {
			t.Errorf("the live key's summary: %v", m)
		}
	}
	// --until and --partition narrow it; text says the timestamp type.
	text, errs, code := koff(t, "history", "pg", "-b", addr, "--until", "2026-11-29T02:30:00Z", "--partition", `{"server":"db"}`)
	if code != 0 {
		t.Fatalf("history: %s", errs)
	}
	if !strings.Contains(text, "2 commits shown, in time order. Times are CreateTime") || !strings.Contains(text, "(tombstone)") {
		t.Errorf("text history:\n%s", text)
	}
	_, errs, code = koff(t, "history", "pgg", "-b", addr)
	if code == 0 || !strings.Contains(errs, "pg") {
		t.Errorf("a typo is refused with the closest name: exit %d: %s", code, errs)
	}
}

// deleteRecordsBefore moves a partition's log start, as retention or
// kafka-delete-records does: what was before it is gone from the history.
func deleteRecordsBefore(t *testing.T, addr, topic string, partition int32, offset int64) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrDeleteRecordsRequest()
	rt := kmsg.NewDeleteRecordsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewDeleteRecordsRequestTopicPartition()
	rp.Partition, rp.Offset = partition, offset
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	req.TimeoutMillis = 10000
	res, err := req.RequestWith(context.Background(), cl)
	if err != nil {
		t.Fatal(err)
	}
	if code := res.Topics[0].Partitions[0].ErrorCode; code != 0 {
		t.Fatalf("delete records: error %d", code)
	}
}

// A partition whose retained history begins after the time (its older
// commits deleted) is left alone, and said so; --if-newer oldest takes its
// oldest retained commit.
func TestRewindWhereTheHistoryBeginsAfterTheTime(t *testing.T) {
	addr := offsetsBroker(t)
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	key := `["pg",{"server":"db"}]`
	p := int32(java.PartitionFor([]byte(key), 25))
	commitAt(t, addr, "connect-offsets", key, `{"lsn":1}`, t0)
	third := commitAt(t, addr, "connect-offsets", key, `{"lsn":2}`, t0.Add(time.Hour))
	commitAt(t, addr, "connect-offsets", key, `{"lsn":3}`, t0.Add(2*time.Hour))
	deleteRecordsBefore(t, addr, "connect-offsets", p, third)
	h := historyJSON(t, "pg", "-b", addr)
	parts := h["partitions"].([]any)
	if len(parts) != 1 || parts[0].(map[string]any)["history_complete"] != false {
		t.Fatalf("the history does not say older commits are gone: %v", parts)
	}
	at := t0.Add(30 * time.Minute).Format(time.RFC3339)
	out, errs, code := koff(t, "set", "pg", "-b", addr, "--to-datetime", at, "--dry-run")
	if code != ExitLeftAlone || !strings.Contains(out, "left alone: its retained history begins at 2026-11-29 02:00:00.000 UTC") || !strings.Contains(out, `nothing to change: every partition is as it was then, or left alone: {"server":"db"}`) {
		t.Errorf("exit %d (want %d, partitions left alone):\n%s", code, ExitLeftAlone, out)
	}
	if want := `koff: 1 partition of pg left alone, not rewound to 2026-11-29 01:30:00.000 UTC: {"server":"db"} (its retained history begins at 2026-11-29 02:00:00.000 UTC`; !strings.HasPrefix(errs, want) || strings.Count(errs, "\n") != 1 {
		t.Errorf("stderr %q, want one line beginning %q", errs, want)
	}
	out, _, code = koff(t, "set", "pg", "-b", addr, "--to-datetime", at, "--if-newer", "oldest", "--dry-run")
	if code != 0 || !strings.Contains(out, `{"lsn":2}, its oldest retained commit at 2026-11-29 02:00:00.000 UTC`) || !strings.Contains(out, `{"lsn":3} → {"lsn":2}`) {
		t.Errorf("--if-newer oldest: exit %d:\n%s", code, out)
	}
}

// A sink's history says plainly what Kafka keeps: the latest commit per
// partition of its group; set --to-datetime of a sink still moves its
// group by the data topics' record times.
func TestHistoryOfASinkSaysKafkaKeepsOnlyTheLatestCommit(t *testing.T) {
	b := broker(t)
	for _, tp := range []string{"connect-offsets", "logs"} {
		if err := b.CreateTopic(tp, 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	addr := b.Bootstrap()
	for i := range 3 {
		commitTo(t, addr, "logs", 0, "k", "v", time.Date(2026, 11, 29, i, 0, 0, 0, time.UTC))
	}
	k := kafka.Config{Brokers: []string{addr}}
	if err := k.CommitGroupOffsets(context.Background(), "connect-archive", map[model.TopicPartition]int64{{Topic: "logs", Partition: 0}: 3}); err != nil {
		t.Fatal(err)
	}
	out, errs, code := koff(t, "history", "archive", "-b", addr)
	if code != 0 || !strings.Contains(out, "Kafka keeps only the latest committed offset") || !strings.Contains(out, "logs/0  committed 3") {
		t.Errorf("sink history: exit %d: %s\n%s", code, errs, out)
	}
	out, errs, code = koff(t, "set", "archive", "-b", addr, "--to-datetime", "2026-11-29T01:00:00Z", "--dry-run")
	if code != 0 || !strings.Contains(out, `{"kafka_offset":3} → {"kafka_offset":1}`) {
		t.Errorf("sink --to-datetime: exit %d: %s\n%s", code, errs, out)
	}
}

// Through Connect's REST API the worker writes the rewind's records, with
// no koff header: the history still names the edit (by key, value and the
// edit's time in the audit log), and records the worker wrote itself are
// not marked.
func TestRewindThroughRESTIsMarkedInTheHistory(t *testing.T) {
	c := demoCluster(t)
	flags := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL(), "--audit-log", filepath.Join(t.TempDir(), "audit.jsonl")}
	part := `{"filename":"/var/log/app-1.log"}`
	// A commit whose value the partition no longer holds (the demo worker
	// commits every 200 ms as its file grows).
	var first map[string]any
	for try := 0; first == nil; try++ {
		if try == 300 {
			t.Fatal("the demo worker made no two different commits of app-1.log")
		}
		time.Sleep(100 * time.Millisecond)
		var live []map[string]any // in offset order
		for _, c := range historyJSON(t, append([]string{"file-logs", "--partition", part}, flags...)...)["commits"].([]any) {
			if m := c.(map[string]any); m["copy"] == "live" {
				live = append(live, m)
			}
		}
		if len(live) > 1 && string(mustJSON(t, live[0]["value"])) != string(mustJSON(t, live[len(live)-1]["value"])) {
			first = live[0]
		}
	}
	if _, errs, code := koff(t, append([]string{"stop", "file-logs"}, flags...)...); code != 0 {
		t.Fatal(errs)
	}
	at := first["time"].(string)
	out, errs, code := koff(t, append([]string{"set", "file-logs", "--to-datetime", at, "--partition", part, "--yes"}, flags...)...)
	if code != 0 || !strings.Contains(out, "via Connect REST") {
		t.Fatalf("rewind through REST: exit %d %s\n%s", code, errs, out)
	}
	h := historyJSON(t, append([]string{"file-logs", "--partition", part}, flags...)...)
	var marked []string
	for _, c := range h["commits"].([]any) {
		m := c.(map[string]any)
		if e, ok := m["koff_edit"].(map[string]any); ok {
			marked = append(marked, string(mustJSON(t, m["value"]))+" "+e["kind"].(string))
		}
	}
	want := string(mustJSON(t, first["value"])) + " rewind"
	if len(marked) != 1 || marked[0] != want {
		t.Errorf("want only the worker's record of the rewind marked (%s), got %v", want, marked)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A typo in the name or the partition of a history or a rewind gets the
// closest names, and no --create hint: neither makes a connector or a
// partition.
func TestHistoryAndRewindTyposSayNoCreate(t *testing.T) {
	addr := offsetsBroker(t)
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	commitAt(t, addr, "connect-offsets", `["pg",{"server":"db"}]`, `{"lsn":1}`, t0)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"history", "pgg"}, "did you mean pg?"},
		{[]string{"history", "pg", "--partition", `{"server":"dbb"}`}, `did you mean {"server":"db"}?`},
		{[]string{"set", "pg", "--to-datetime", "2026-11-29T02:00:00Z", "--partition", `{"server":"dbb"}`, "--dry-run"}, `did you mean {"server":"db"}?`},
	} {
		_, errs, code := koff(t, append(tc.args, "-b", addr)...)
		if code == 0 || !strings.Contains(errs, tc.want) || strings.Contains(errs, "--create") || strings.Count(errs, "\n") != 1 {
			t.Errorf("koff %s: exit %d, stderr %q: want one line with %q and no --create", strings.Join(tc.args, " "), code, errs, tc.want)
		}
	}
}
