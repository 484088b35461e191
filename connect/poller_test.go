package connect

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"koff/model"
)

type sinkRecorder struct {
	mu     sync.Mutex
	polls  []model.RESTStatus
	topics map[string][]string
}

func (s *sinkRecorder) SetREST(r model.RESTStatus) {
	s.mu.Lock()
	s.polls = append(s.polls, r)
	s.mu.Unlock()
}

func (s *sinkRecorder) SetConnectorTopics(name string, topics []string) {
	s.mu.Lock()
	if s.topics == nil {
		s.topics = map[string][]string{}
	}
	s.topics[name] = topics
	s.mu.Unlock()
}

func (s *sinkRecorder) last(t *testing.T, n int) model.RESTStatus {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		if len(s.polls) >= n {
			r := s.polls[len(s.polls)-1]
			s.mu.Unlock()
			return r
		}
		s.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d polls", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPollReportsStatesAndErrors(t *testing.T) {
	f := newFake()
	srv := f.start(t)
	c := mustNew(t, Config{URL: srv.URL})
	rec := &sinkRecorder{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Poll(ctx, 20*time.Millisecond, rec); close(done) }()
	defer func() { cancel(); <-done }()

	r := rec.last(t, 1)
	if r.Err != "" || r.Version != "3.7.0" {
		t.Fatalf("poll: %+v", r)
	}
	src := r.Connectors["jdbc-src"]
	if src.Type != "source" || src.State != "RUNNING" || len(src.Tasks) != 2 || src.TaskSummary() != "2/2 running" || src.Config["tasks.max"] != "2" {
		t.Errorf("jdbc-src = %+v (%s)", src, src.TaskSummary())
	}
	rec.last(t, 2) // topics are read after the first poll's states
	rec.mu.Lock()
	if got := rec.topics["jdbc-src"]; len(got) != 2 || got[0] != "db.orders" {
		t.Errorf("topics of jdbc-src = %v", got)
	}
	if _, ok := rec.topics["my sink"]; ok {
		t.Error("a sink's topics are its consumer group's business, not polled")
	}
	rec.mu.Unlock()
	if s := r.Connectors["my sink"]; s.Type != "sink" || s.State != "STOPPED" || s.TaskSummary() != "no tasks" {
		t.Errorf("my sink = %+v", s)
	}
	rec.mu.Lock()
	n := len(rec.polls)
	rec.mu.Unlock()
	srv.Close()
	r = rec.last(t, n+2)
	if !strings.HasPrefix(r.Err, "cannot reach Kafka Connect at "+srv.URL) {
		t.Errorf("error with Connect down = %q", r.Err)
	}
}
