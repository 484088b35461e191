package interop

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"koff/model/java"
)

// historyCommit is one commit of koff history -o json.
type historyCommit struct {
	Time          time.Time       `json:"time"`
	Topic         string          `json:"topic"`
	TimestampType string          `json:"timestamp_type"`
	Copy          string          `json:"copy"`
	Value         json.RawMessage `json:"value"`
}

func koffHistory(t *testing.T, args ...string) []historyCommit {
	t.Helper()
	out := mustKoff(t, append([]string{"history", "-o", "json"}, args...)...)
	var h struct {
		Commits []historyCommit `json:"commits"`
	}
	decode(t, []byte(out), &h)
	return h.Commits
}

// TestRewindToATimeBetweenTwoCommits: a real FileStreamSource commits the
// end of its file, then, after more lines, the new end; koff set
// --to-datetime a time between the two commits puts back the first, and
// the real task resumes from there: with the first line appended after it.
func TestRewindToATimeBetweenTwoCommits(t *testing.T) {
	s := realStack(t)
	f := s.newFileConnector(t, "rewind", 3)
	first := f.position(4) // the end of lines 1-3
	appendFile(t, f.path, lines(f.name, 4, 6))
	f.content += lines(f.name, 4, 6)
	f.waitRead(t)
	s.stop(t, f.name)

	commits := koffHistory(t, s.withTopic(f.name)...)
	// The worker's last commit of the end of lines 1-3, and its next
	// commit, whatever it holds (it may commit part of the new lines).
	var at, next time.Time
	for _, c := range commits {
		if c.Copy == "live" && string(c.Value) == first && c.Time.After(at) {
			at = c.Time
		}
	}
	for _, c := range commits {
		if c.Copy == "live" && c.Time.After(at) && (next.IsZero() || c.Time.Before(next)) {
			next = c.Time
		}
	}
	if at.IsZero() || next.IsZero() {
		t.Fatalf("the worker's commits of %s and after are not in koff's history: %+v", first, commits)
	}
	between := at.Add(next.Sub(at) / 2)
	out := mustKoff(t, s.withTopic("set", f.name, "--to-datetime", between.Format(time.RFC3339Nano), "--yes")...)
	if !strings.Contains(out, first+", committed at "+at.UTC().Format("2006-01-02 15:04:05.000 UTC")+" (CreateTime") {
		t.Errorf("the rewind plan does not name the commit it took:\n%s", out)
	}
	// Told as a rewind to its time, with the undo of this edit and no other.
	to := f.name + " to " + between.UTC().Format("2006-01-02 15:04:05.000 UTC")
	for _, want := range []string{"Plan: rewind 1 partition of " + to, ": rewind of " + to + ", 1 partition via", "  undo: koff undo " + f.name + " --edit "} {
		if !strings.Contains(out, want) {
			t.Errorf("the rewind's output lacks %q:\n%s", want, out)
		}
	}
	if got := f.resumeAndNext(t); got != f.name+"-4" {
		t.Errorf("after a rewind to between the commits the task continued with %q, want %s-4", got, f.name)
	}
}

// TestHistoryOfALogAppendTimeOffsetsTopic: a broker that stamps records
// with its own time (message.timestamp.type=LogAppendTime) returns batches
// marked so; koff reads their times as such and says so.
func TestHistoryOfALogAppendTimeOffsetsTopic(t *testing.T) {
	s := realStack(t)
	const topic = "lat-offsets"
	c := &kafka.Client{Addr: kafka.TCP(s.Bootstrap), Timeout: 30 * time.Second}
	resp, err := c.CreateTopics(context.Background(), &kafka.CreateTopicsRequest{Topics: []kafka.TopicConfig{{
		Topic: topic, NumPartitions: 1, ReplicationFactor: 1,
		ConfigEntries: []kafka.ConfigEntry{{ConfigName: "cleanup.policy", ConfigValue: "compact"}, {ConfigName: "message.timestamp.type", ConfigValue: "LogAppendTime"}},
	}}})
	if err == nil {
		err = resp.Errors[topic]
	}
	if err != nil {
		t.Fatal(err)
	}
	s.waitLeaders(t, c, topic, 1)
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	res, err := c.Produce(context.Background(), &kafka.ProduceRequest{Topic: topic, Partition: 0, RequiredAcks: kafka.RequireAll,
		Records: kafka.NewRecordReader(kafka.Record{Key: kafka.NewBytes([]byte(`["lat",{"f":"a"}]`)), Value: kafka.NewBytes([]byte(`{"position":1}`)), Time: old})})
	if err == nil {
		err = res.Error
	}
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"lat", "-b", s.Bootstrap, "--offsets-topic", topic, "--config-topic", ""}
	commits := koffHistory(t, args...)
	if len(commits) != 1 || commits[0].TimestampType != "LogAppendTime" || commits[0].Time.Year() == 2020 {
		t.Errorf("want one commit with the broker's LogAppendTime, got %+v", commits)
	}
	out := mustKoff(t, append([]string{"history"}, args...)...)
	if !strings.Contains(out, "Times are LogAppendTime") {
		t.Errorf("text history does not say the times are LogAppendTime:\n%s", out)
	}
}

// TestRewindOfAConnectorWithItsOwnTopicResumesFromItsOwnCommit: a real
// FileStreamSource with its own offsets.storage.topic commits there (and,
// best effort, to the workers' topic too); a stray copy of its key in the
// workers' topic, committed between its two commits, holds position 0.
// Apache Kafka 4.1.1 decides what the task reads in
// ConnectorOffsetBackingStore#get: the workers' KafkaOffsetBackingStore's
// answer overlaid with the connector's own, which answers every key asked
// (null for one it lacks), so the workers' topic is never read. koff
// history calls the workers' copies strays, and koff set --to-datetime a
// time between the two commits takes its own topic's first commit, never
// the stray's newer position 0: the real task resumes with line 4, not
// line 1.
func TestRewindOfAConnectorWithItsOwnTopicResumesFromItsOwnCommit(t *testing.T) {
	s := realStack(t)
	const own = "rewind-own-offsets"
	f := s.newFileConnectorWith(t, "rewind-own", 3, map[string]string{"offsets.storage.topic": own})
	first := f.position(4) // the end of lines 1-3
	appendFile(t, f.path, lines(f.name, 4, 6))
	f.content += lines(f.name, 4, 6)
	f.waitRead(t)
	s.stop(t, f.name)

	commits := koffHistory(t, s.withREST(f.name)...)
	var at, next time.Time
	for _, c := range commits {
		if c.Topic == own && c.Copy == "live" && string(c.Value) == first && c.Time.After(at) {
			at = c.Time
		}
	}
	for _, c := range commits {
		if c.Topic == own && c.Copy == "live" && c.Time.After(at) && (next.IsZero() || c.Time.Before(next)) {
			next = c.Time
		}
	}
	if at.IsZero() || next.IsZero() {
		t.Fatalf("the worker's commits of %s and after in %s are not in koff's history: %+v", first, own, commits)
	}
	between := at.Add(next.Sub(at) / 2)
	// The stray: the task's own key bytes in the workers' topic, at its
	// murmur2 partition, newer than the commit in force at the time.
	key := f.key()
	produceAt(t, s.Bootstrap, "connect-offsets", java.PartitionFor([]byte(key), 25), key, `{"position":0}`, at.Add(between.Sub(at)/2))

	for _, c := range koffHistory(t, s.withREST(f.name)...) {
		if want := map[bool]string{true: "live", false: "stray"}[c.Topic == own]; c.Copy != want {
			t.Errorf("koff history calls the commit %s in %s at %s %s, want %s", c.Value, c.Topic, c.Time.Format(time.RFC3339Nano), c.Copy, want)
		}
	}
	out := mustKoff(t, s.withREST("set", f.name, "--to-datetime", between.Format(time.RFC3339Nano), "--yes")...)
	t.Logf("koff set --to-datetime:\n%s", out)
	if !strings.Contains(out, first+", committed at "+at.UTC().Format("2006-01-02 15:04:05.000 UTC")+" (CreateTime, "+own+"/") {
		t.Errorf("the rewind plan does not take the commit in the connector's own topic:\n%s", out)
	}
	if strings.Contains(out, `{"position":0}`) {
		t.Errorf("the rewind took the stray copy in the workers' topic:\n%s", out)
	}
	if got := f.resumeAndNext(t); got != f.name+"-4" {
		t.Errorf("after a rewind to between its own commits the task continued with %q, want %s-4 (%s-1 is the stray's position 0)", got, f.name, f.name)
	}
}

// produceAt writes one record with a chosen CreateTime.
func produceAt(t *testing.T, bootstrap, topic string, partition int, key, value string, at time.Time) {
	t.Helper()
	c := &kafka.Client{Addr: kafka.TCP(bootstrap), Timeout: 30 * time.Second}
	res, err := c.Produce(context.Background(), &kafka.ProduceRequest{Topic: topic, Partition: partition, RequiredAcks: kafka.RequireAll,
		Records: kafka.NewRecordReader(kafka.Record{Key: kafka.NewBytes([]byte(key)), Value: kafka.NewBytes([]byte(value)), Time: at})})
	if err == nil {
		err = res.Error
	}
	if err != nil {
		t.Fatalf("produce %s to %s/%d: %v", key, topic, partition, err)
	}
}
