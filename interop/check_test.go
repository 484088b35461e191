package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	koffkafka "koff/kafka"
	"koff/model"
)

// checkResult is the part of `koff check -o json` these tests read.
type checkResult struct {
	Connectors []struct {
		Name       string `json:"name"`
		State      string `json:"state"`
		Note       string `json:"note"`
		Partitions []struct {
			Partition string `json:"partition"`
			State     string `json:"state"`
			Lost      *struct {
				Records *int64 `json:"records"`
			} `json:"lost"`
			Replayed *struct {
				Records *int64 `json:"records"`
			} `json:"replayed"`
			ResumesAt string `json:"resumes_at"`
			Action    string `json:"action"`
			Reason    string `json:"reason"`
		} `json:"partitions"`
	} `json:"connectors"`
}

// koffCheck runs koff check NAME -o json both ways (the config topic
// alone, and REST), wants the same answer and the exit code, and returns it.
func (s *Stack) koffCheck(t *testing.T, name string, exit int, flags ...string) checkResult {
	t.Helper()
	var first checkResult
	var firstOut string
	args := append([]string{"check", name, "-o", "json"}, flags...)
	for i, how := range [][]string{s.withTopic(args...), s.withREST(args...)} {
		out, errs, code := koff(t, how...)
		var c checkResult
		if err := json.Unmarshal([]byte(out), &c); err != nil || code != exit || len(c.Connectors) != 1 {
			t.Fatalf("koff %s: exit %d (want %d) %s: %v\n%s", strings.Join(how, " "), code, exit, errs, err, out)
		}
		if i == 0 {
			first, firstOut = c, out
		} else if out != firstOut && !sameCheck(first, c) {
			t.Errorf("koff check with REST says otherwise than with the config topic:\n%s\n%s", firstOut, out)
		}
	}
	return first
}

func sameCheck(a, b checkResult) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// deleteRecords moves topic/0's log start to offset, with Kafka's own
// kafka-delete-records (org.apache.kafka.tools.DeleteRecordsCommand).
func (s *Stack) deleteRecords(t *testing.T, topic string, offset int64) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "delete.json")
	body := fmt.Sprintf(`{"version":1,"partitions":[{"topic":%q,"partition":0,"offset":%d}]}`, topic, offset)
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := s.Tool(ctx, s.JVM("org.apache.kafka.tools.DeleteRecordsCommand", "--bootstrap-server", s.Bootstrap, "--offset-json-file", file)...)
	if err != nil || !strings.Contains(out, "low_watermark: "+fmt.Sprint(offset)) {
		t.Fatalf("kafka-delete-records: %v\n%s", err, out)
	}
}

// TestCheckSaysTheGapTheRealSinkSkips: a FileStreamSink stopped at offset
// 5; ten more records arrive and kafka-delete-records moves the log start
// to 9. koff check says gap 4, resuming at offset 9 (Connect's earliest),
// and the real sink, resumed, writes exactly the records from 9 on: the 4
// koff named are the ones it never writes.
func TestCheckSaysTheGapTheRealSinkSkips(t *testing.T) {
	s := realStack(t)
	name, topic := "check-gap", "check-gap-in"
	s.createTopic(t, topic, 1)
	s.produce(t, topic, 0, sinkValues(0, 4)...)
	out := filepath.Join(s.FilesDir, name+".txt")
	s.createConnector(t, name, fileSink(out, topic))
	s.waitSinkCommitted(t, name, topic, 5)
	c := s.koffCheck(t, name, 0)
	if c.Connectors[0].State != "resumes" {
		t.Fatalf("a sink at its log end: %+v", c)
	}
	s.stop(t, name)
	s.produce(t, topic, 0, sinkValues(5, 14)...)
	s.deleteRecords(t, topic, 9)

	c = s.koffCheck(t, name, 6)
	p := c.Connectors[0].Partitions[0]
	if p.Partition != topic+"/0" || p.State != "gap" || p.Lost == nil || *p.Lost.Records != 4 || p.ResumesAt != "offset 9" {
		t.Fatalf("koff check after DeleteRecords: %+v", p)
	}
	t.Logf("koff check: %s", p.Action)
	s.resume(t, name)
	s.waitSinkCommitted(t, name, topic, 15)
	want := append(sinkLines(0, 4), sinkLines(9, 14)...)
	wantFile(t, out, want, "after the resume koff said skips 4 records")
	if skipped := 15 - 5 - int64(len(want)-5); skipped != *p.Lost.Records {
		t.Errorf("the sink skipped %d records, koff said %d", skipped, *p.Lost.Records)
	}
}

// TestCheckOfASinkOnATopicCreatedAgain: a FileStreamSink read r0..r5 of a
// topic that is then deleted and created again with two new records.
// Kafka's group coordinator drops the deleted topic's offsets, so the sink
// has none and starts at the log start, as koff says. A committed offset
// the group keeps beyond the new log end (one restored from a backup, a
// commit racing the deletion) goes one of two ways, and koff says which:
// without a leader epoch (-1, as REST and kafka-consumer-groups commit)
// the fetch is out of range and Connect's earliest replays the new log;
// with the leader epoch a consumer commits (0 here), the consumer's
// validation finds epoch 0 ending at the log end and moves there,
// skipping the new log ("Truncation detected").
func TestCheckOfASinkOnATopicCreatedAgain(t *testing.T) {
	s := realStack(t)
	name, topic := "check-recreated", "check-recreated-in"
	group := "connect-" + name
	s.createTopic(t, topic, 1)
	s.produce(t, topic, 0, sinkValues(0, 5)...)
	out := filepath.Join(s.FilesDir, name+".txt")
	s.createConnector(t, name, fileSink(out, topic))
	s.waitSinkCommitted(t, name, topic, 6)
	s.stop(t, name)

	c := &kafka.Client{Addr: kafka.TCP(s.Bootstrap), Timeout: 30 * time.Second}
	recreate := func(values ...string) {
		t.Helper()
		res, err := c.DeleteTopics(context.Background(), &kafka.DeleteTopicsRequest{Topics: []string{topic}})
		if err != nil || res.Errors[topic] != nil {
			t.Fatalf("delete %s: %v %v", topic, err, res)
		}
		waitFor(t, 60*time.Second, topic+" gone", func() (bool, string) {
			md, err := c.Metadata(context.Background(), &kafka.MetadataRequest{Topics: []string{topic}})
			return err == nil && len(md.Topics) == 1 && md.Topics[0].Error != nil, fmt.Sprint(err)
		})
		s.createTopic(t, topic, 1)
		s.produce(t, topic, 0, values...)
	}
	recreate(sinkValues(100, 101)...)
	tp := model.TopicPartition{Topic: topic}
	k := koffkafka.Config{Brokers: []string{s.Bootstrap}}
	polls, err := k.GroupBounds(context.Background(), []string{group})
	if err != nil {
		t.Fatal(err)
	}
	want := sinkLines(0, 5)
	if len(polls.Polls[0].Partitions) == 0 {
		// The coordinator dropped the offsets: koff says it starts afresh.
		ck := s.koffCheck(t, name, 0)
		if !strings.Contains(ck.Connectors[0].Note, "no committed offsets in consumer group "+group) {
			t.Errorf("no offsets left: %+v", ck)
		}
		s.resume(t, name)
		s.waitSinkCommitted(t, name, topic, 2)
		want = append(want, sinkLines(100, 101)...)
		wantFile(t, out, want, "after the topic was created again with no offsets left")
		s.stop(t, name)
	} else {
		t.Logf("the group kept %s's offsets after its deletion: %+v", topic, polls.Polls[0].Partitions)
	}

	// Beyond the end, no leader epoch: replay of the new log.
	recreate(sinkValues(200, 201)...)
	if err := k.CommitGroupOffsets(context.Background(), group, map[model.TopicPartition]int64{tp: 6}); err != nil {
		t.Fatal(err)
	}
	ck := s.koffCheck(t, name, 6)
	p := ck.Connectors[0].Partitions[0]
	if p.State != "replay" || p.Replayed == nil || *p.Replayed.Records != 2 || p.ResumesAt != "offset 0" {
		t.Fatalf("offset 6 with no epoch on a log of 2: %+v", p)
	}
	t.Logf("koff check: %s", p.Action)
	s.resume(t, name)
	s.waitSinkCommitted(t, name, topic, 2)
	want = append(want, sinkLines(200, 201)...)
	wantFile(t, out, want, "after the resume koff said replays the new log from offset 0")
	s.stop(t, name)

	// Beyond the end with leader epoch 0 (kafka-go's OffsetCommit sends
	// it, as the sink's own consumer would): the real consumer skips the
	// new log, and koff says so.
	recreate(sinkValues(300, 301)...)
	res, err := c.OffsetCommit(context.Background(), &kafka.OffsetCommitRequest{GroupID: group, GenerationID: -1,
		Topics: map[string][]kafka.OffsetCommit{topic: {{Partition: 0, Offset: 6}}}})
	if err != nil || res.Topics[topic][0].Error != nil {
		t.Fatalf("commit with epoch 0: %v %+v", err, res)
	}
	if off, epoch := s.committed(t, group, topic); off != 6 || epoch != 0 {
		t.Fatalf("committed %d with epoch %d, want 6 with 0", off, epoch)
	}
	ck = s.koffCheck(t, name, 6)
	p = ck.Connectors[0].Partitions[0]
	if p.State != "gap" || p.Lost == nil || *p.Lost.Records != 2 || p.ResumesAt != "offset 2" || !strings.Contains(p.Action, "Truncation detected") {
		t.Fatalf("offset 6 with epoch 0 on a log of 2: %+v", p)
	}
	t.Logf("koff check: %s", p.Action)
	s.resume(t, name)
	s.produce(t, topic, 0, sinkValues(302, 302)...)
	s.waitSinkCommitted(t, name, topic, 3)
	want = append(want, sinkLines(302, 302)...)
	wantFile(t, out, want, "after the resume koff said skips the 2 records of the new log")
}

// TestCheckSaysWhereMirrorMakerCopiesFrom: a MirrorSourceConnector reads
// its source cluster over the broker's SASL_SSL listener (SCRAM-SHA-512
// and a client certificate) and copied v0..v4 (stored offset 4, the last
// copied); stopped, v5..v14 arrive and kafka-delete-records moves the
// source log start to 9. koff check cannot reach the source cluster from
// its config alone and says so; given its client properties with
// --source-cluster src=FILE it reads the source topic's log there and says
// gap 4, resuming at 9; resumed, MirrorMaker 2 copies v9..v14 and never
// v5..v8.
func TestCheckSaysWhereMirrorMakerCopiesFrom(t *testing.T) {
	s := realStack(t)
	const name, src = "check-mm", "check-mm-a"
	target := "src." + src
	s.createTopic(t, src, 1)
	values := func(from, to int) []string {
		var vs []string
		for i := from; i <= to; i++ {
			vs = append(vs, fmt.Sprintf("v%d", i))
		}
		return vs
	}
	s.produce(t, src, 0, values(0, 4)...)
	keystore := filepath.Join(t.TempDir(), "client-keystore.pem")
	if err := concat(keystore, s.TLS.ClientKey, s.TLS.ClientCert); err != nil {
		t.Fatal(err)
	}
	config := s.mirrorSource(src)
	for k, v := range map[string]string{
		"bootstrap.servers": s.SecureBootstrap, "security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
		"sasl.jaas.config":    fmt.Sprintf(`org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="%s";`, SCRAMUser, SCRAMPassword),
		"ssl.truststore.type": "PEM", "ssl.truststore.location": s.TLS.CA, "ssl.keystore.type": "PEM", "ssl.keystore.location": keystore,
	} {
		config["source.cluster."+k] = v
	}
	s.createConnector(t, name, config)
	once := func(vs []string) map[string]int {
		n := map[string]int{}
		for _, v := range vs {
			n[v] = 1
		}
		return n
	}
	s.waitCopies(t, target, once(values(0, 4)))
	part := fmt.Sprintf(`{"cluster":"src","partition":0,"topic":%q}`, src)
	s.waitOffset(t, name, part+` => {"offset":4}`)
	props := s.clientProperties(t, true)
	c := s.koffCheck(t, name, 7)
	if r := c.Connectors[0].Partitions[0]; r.State != "unknown" || !strings.Contains(r.Reason, "source cluster src speaks SASL_SSL (source.cluster.security.protocol)") {
		t.Fatalf("a SASL_SSL source cluster without its settings: %+v", r)
	}
	source := []string{"--source-cluster", "src=" + props}
	c = s.koffCheck(t, name, 0, source...)
	if c.Connectors[0].State != "resumes" {
		t.Fatalf("MirrorMaker at its source's log end: %+v", c)
	}
	s.stop(t, name)
	s.produce(t, src, 0, values(5, 14)...)
	s.deleteRecords(t, src, 9)

	c = s.koffCheck(t, name, 6, source...)
	p := c.Connectors[0].Partitions[0]
	if p.Partition != part || p.State != "gap" || p.Lost == nil || *p.Lost.Records != 4 || p.ResumesAt != "offset 9" {
		t.Fatalf("koff check after DeleteRecords on the source: %+v", p)
	}
	t.Logf("koff check: %s", p.Action)
	s.resume(t, name)
	s.waitCopies(t, target, once(append(values(0, 4), values(9, 14)...)))
}

// TestCheckOfAFileStreamSourceOnATruncatedFile: a FileStreamSource read a
// file of 10 lines (position at its end); stopped, the file is replaced
// by a shorter one. koff check, on the worker's host, says gap: the bytes
// and lines the file holds now are never read, and the task resumes at
// the old position once the file has grown past it. Resumed and appended
// to, the real task's records are the file's text from that byte on (the
// first one the rest of the line it falls in), nothing before it.
func TestCheckOfAFileStreamSourceOnATruncatedFile(t *testing.T) {
	s := realStack(t)
	name, topic := "check-fs", "check-fs-out"
	s.createTopic(t, topic, 1)
	path := s.writeFile(t, name+".txt", lines("a", 1, 10))
	size := fileSize(t, path)
	s.createConnector(t, name, fileSource(path, topic))
	s.waitOffset(t, name, fmt.Sprintf(`{"filename":%q} => {"position":%d}`, path, size))
	if c := s.koffCheck(t, name, 0); c.Connectors[0].State != "resumes" {
		t.Fatalf("a file read to its end: %+v", c)
	}
	s.stop(t, name)
	before := s.endOffset(t, topic, 0)
	if err := os.WriteFile(path, []byte(lines("b", 1, 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	c := s.koffCheck(t, name, 6)
	p := c.Connectors[0].Partitions[0]
	short := fileSize(t, path)
	if p.State != "gap" || p.Lost == nil || *p.Lost.Records != 2 || p.ResumesAt != fmt.Sprintf("byte %d, once the file has grown by %d bytes", size, size-short) {
		t.Fatalf("koff check of a truncated file: %+v", p)
	}
	t.Logf("koff check: %s", p.Action)
	s.resume(t, name)
	appendFile(t, path, lines("c", 1, 20))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(data[size:]), "\n"), "\n")
	// The worker writes exactly once: transaction markers take offsets too.
	texts := func(rs []record) []string {
		var out []string
		for _, r := range rs {
			if len(r.Value) > 0 && r.Value[0] == '"' {
				out = append(out, lineText(t, r.Value))
			}
		}
		return out
	}
	s.readUntil(t, topic, 0, before, 90*time.Second, func(rs []record) bool { return len(texts(rs)) >= len(want) })
	time.Sleep(2 * time.Second)
	end := s.endOffset(t, topic, 0)
	got := texts(s.readUntil(t, topic, 0, before, 30*time.Second, func(rs []record) bool { return len(rs) > 0 && rs[len(rs)-1].Offset >= end-1 }))
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("after the resume the task wrote:\n  %s\nwant the file from byte %d on:\n  %s", strings.Join(got, "|"), size, strings.Join(want, "|"))
	}
}
