package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/internal/sshtest"
	"koff/kafka"
)

// koff metrics is a service: its log is stderr by default, one line per
// event. Its offsets topic deleted is one line, a series and never live;
// the broker gone is one line, however many partitions fail.
func TestMetricsLogsEachEventOnceOnStderr(t *testing.T) {
	b := broker(t)
	if err := b.CreateTopic("connect-offsets", 25, map[string]string{"cleanup.policy": "compact"}); err != nil {
		t.Fatal(err)
	}
	addr := b.Bootstrap()
	produceConnect(t, addr, [2]string{`["src",{"server":"db"}]`, `{"lsn":1}`})
	listen := freeLoopback(t)
	errb, done := runInBackground(t, "metrics", "--web.listen-address", listen, "-b", addr, "--refresh", "200ms")
	url := "http://" + listen + "/metrics"
	scrapeFor(t, url, done, `koff_connector_source_partitions{connector="src",offsets_topic="connect-offsets"} 1`, `koff_tailer_state{state="live"} 1`)

	res, err := kafka.Config{Brokers: []string{addr}}.Client().DeleteTopics(context.Background(), &kafkago.DeleteTopicsRequest{Topics: []string{"connect-offsets"}})
	if err != nil || res.Errors["connect-offsets"] != nil {
		t.Fatalf("delete topic: %v %v", err, res.Errors)
	}
	body := scrapeFor(t, url, done, `koff_offsets_topic_deleted{topic="connect-offsets"} 1`, `koff_offsets_topic_missing{topic="connect-offsets"} 1`)
	if !strings.Contains(body, `koff_tailer_state{state="live"} 0`) {
		t.Errorf("live with its offsets topic deleted:\n%s", body)
	}
	waitLog(t, errb, "koff: kafka: offsets topic connect-offsets was deleted: every offset in it is gone; koff waits for it\n")

	time.Sleep(time.Second)
	log := errb.String()
	if n := strings.Count(log, "was deleted"); n != 1 || strings.Count(log, "\n") != 3 || strings.Contains(log, "cannot read") || strings.Contains(log, "tailer:") {
		t.Errorf("the deletion in %d lines, want 1 and the reload's:\n%s", n, log)
	}
}

// The broker gone is one line on stderr, however many partitions fail.
func TestMetricsLogsAnOutageOnce(t *testing.T) {
	b := broker(t)
	if err := b.CreateTopic("connect-offsets", 25, map[string]string{"cleanup.policy": "compact"}); err != nil {
		t.Fatal(err)
	}
	addr := b.Bootstrap()
	produceConnect(t, addr, [2]string{`["src",{"server":"db"}]`, `{"lsn":1}`})
	listen := freeLoopback(t)
	errb, done := runInBackground(t, "metrics", "--web.listen-address", listen, "-b", addr, "--refresh", "200ms")
	scrapeFor(t, "http://"+listen+"/metrics", done, `koff_tailer_state{state="live"} 1`)
	b.Close()
	waitLog(t, errb, "koff: kafka: cannot read the offsets topics since ")
	time.Sleep(2 * time.Second)
	log := errb.String()
	if n := strings.Count(log, "cannot read the offsets topics"); n != 1 || strings.Contains(log, "tailer:") {
		t.Errorf("the outage in %d lines, want 1 and no diagnostics:\n%s", n, log)
	}
}

// runInBackground runs koff with args until the test ends, its stderr
// in errb; done says its exit code should it end before.
func runInBackground(t *testing.T, args ...string) (errb *syncBuffer, done chan int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done = make(chan int, 1)
	errb = &syncBuffer{}
	var out syncBuffer
	go func() {
		done <- Main(args, Env{Context: ctx, Stdout: &out, Stderr: errb, Getenv: func(string) string { return "" }})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return errb, done
}

func waitLog(t *testing.T, b *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(b.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q on stderr in 20s:\n%s", want, b.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// koff serve is a service too: its events go to stderr (journald),
// never to an SSH session.
func TestServeLogsAnOutageOnStderr(t *testing.T) {
	b := broker(t)
	if err := b.CreateTopic("connect-offsets", 25, map[string]string{"cleanup.policy": "compact"}); err != nil {
		t.Fatal(err)
	}
	addr := b.Bootstrap()
	produceConnect(t, addr, [2]string{`["src",{"server":"db"}]`, `{"lsn":1}`})
	dir := t.TempDir()
	_, line := sshtest.Key(t, "op")
	keys := sshtest.WriteFile(t, dir, "ops.keys", line+"\n")
	metricsAddr := freeLoopback(t)
	errb, done := runInBackground(t, "serve", "-b", addr, "--authorized-keys", keys, "--host-key", filepath.Join(dir, "host"),
		"--ssh-listen", freeLoopback(t), "--metrics-listen", metricsAddr, "--audit-log", filepath.Join(dir, "audit.jsonl"), "--refresh", "200ms")
	scrapeFor(t, "http://"+metricsAddr+"/metrics", done, `koff_tailer_state{state="live"} 1`)
	b.Close()
	waitLog(t, errb, "koff: kafka: cannot read the offsets topics since ")
}

// Each change is one line, said once: a topic missing, deleted, back;
// Connect's REST API gone and back; nothing while nothing changes.
func TestEventLinesSayEachChangeOnce(t *testing.T) {
	steps := []struct {
		st   eventState
		want []string
	}{
		{eventState{missing: "nope"}, []string{"kafka: offsets topic nope does not exist; koff waits for it"}},
		{eventState{missing: "nope"}, nil},
		{eventState{missing: "crm,nope", deleted: "crm", reloads: 1, reloadWhy: "topic crm no longer exists"}, []string{
			"kafka: reading every offsets topic again from scratch: topic crm no longer exists",
			"kafka: offsets topic crm was deleted: every offset in it is gone; koff waits for it"}},
		{eventState{missing: "crm,nope", deleted: "crm", reloads: 1, restAsked: true, restErr: "connection refused"}, []string{"connect: the REST API does not answer: connection refused"}},
		{eventState{missing: "crm,nope", deleted: "crm", reloads: 1, restAsked: true, restErr: "timeout"}, nil},
		{eventState{missing: "nope", reloads: 1, restAsked: true}, []string{"kafka: offsets topic crm exists again: reading it from the start", "connect: the REST API answers again"}},
	}
	var last eventState
	for i, s := range steps {
		got := s.st.since(last, i == 0)
		if strings.Join(got, "|") != strings.Join(s.want, "|") {
			t.Errorf("step %d: %q, want %q", i, got, s.want)
		}
		last = s.st
	}
}
