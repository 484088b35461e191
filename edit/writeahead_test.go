package edit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"koff/edit/apply"
	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/undo"
	"koff/kafka"
	"koff/model"
	"koff/model/java"
	"koff/model/store"
)

// spyWriter is the real Kafka writer with a hook before each produce
// request: it records the requests and can fail one, or stop the edit.
type spyWriter struct {
	kafka.Config
	mu     sync.Mutex
	calls  []model.TopicPartition
	counts []int
	before func(n int, tp model.TopicPartition) error // n counts from 1
	after  func(tp model.TopicPartition)
}

// notSent is a produce error that says its request never went out, as a
// failed dial does: "not written" on evidence.
type notSent string

func (e notSent) Error() string    { return string(e) }
func (e notSent) NotApplied() bool { return true }

func (s *spyWriter) ProduceBatch(ctx context.Context, tp model.TopicPartition, recs []store.Record) (int64, error) {
	s.mu.Lock()
	s.calls = append(s.calls, tp)
	s.counts = append(s.counts, len(recs))
	n := len(s.calls)
	s.mu.Unlock()
	if s.before != nil {
		if err := s.before(n, tp); err != nil {
			return -1, err
		}
	}
	off, err := s.Config.ProduceBatch(ctx, tp, recs)
	if err == nil && s.after != nil {
		s.after(tp)
	}
	return off, err
}

// importPlan plans n new partitions of connector "big" (spread over all
// 25 partitions of the offsets topic), each over an existing offset 111.
func importPlan(t *testing.T, h *harness, n int) *plan.Plan {
	t.Helper()
	var recs []store.Record
	for i := 0; i < n; i++ {
		key := fmt.Sprintf(`["big",{"table":"t%04d"}]`, i)
		recs = append(recs, store.Record{Topic: "connect-offsets", Partition: java.PartitionFor([]byte(key), 25), Key: []byte(key), Value: []byte(`{"id":111}`)})
	}
	if err := h.kafka.WriteRecords(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the tailer to read the old offsets", func() bool { return len(h.rows("big")) == n })
	req := plan.Request{Connector: "big", Kind: plan.KindImport}
	for i := 0; i < n; i++ {
		req.Items = append(req.Items, plan.Item{Partition: mustPartition(t, fmt.Sprintf(`{"table":"t%04d"}`, i)), Offset: mustOffset(t, fmt.Sprintf(`{"id":%d}`, 1000+i))})
	}
	p, err := h.ed.Plan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWriteAheadAuditIsOnDiskBeforeTheFirstWrite(t *testing.T) {
	h := newHarness(t)
	spy := &spyWriter{Config: h.kafka}
	h.ed.Kafka = spy
	p := importPlan(t, h, 200)
	spy.before = func(n int, _ model.TopicPartition) error {
		if n > 1 {
			return nil
		}
		b, err := os.ReadFile(h.ed.Audit.Path)
		if err != nil {
			return err
		}
		edits := audit.GroupEdits(mustEntries(t, h))
		if len(edits) != 1 || edits[0].Result() != audit.ResultInProgress || len(edits[0].Start.Changes) != 200 || len(edits[0].Start.Positions) != 25 {
			return fmt.Errorf("audit log before the first write: %s", b)
		}
		for _, ch := range edits[0].Start.Changes {
			if len(ch.Records) != 1 || ch.Records[0].Before == nil || *ch.Records[0].Before != `{"id":111}` {
				return fmt.Errorf("write-ahead change without its before-value: %+v", ch)
			}
		}
		return nil
	}
	res, err := h.ed.Apply(context.Background(), p)
	if err != nil || !res.Verified {
		t.Fatalf("apply: %v %s", err, res.Summary())
	}
	// One produce request per topic-partition, in topic-partition order.
	if len(spy.calls) != 25 {
		t.Fatalf("%d produce requests for 25 topic-partitions: %v", len(spy.calls), spy.calls)
	}
	total := 0
	for i, tp := range spy.calls {
		if tp.Partition != i {
			t.Fatalf("request %d went to %s: not in order %v", i, tp, spy.calls)
		}
		total += spy.counts[i]
	}
	if total != 200 {
		t.Errorf("%d records produced, want 200", total)
	}
	edits, _ := h.ed.Audit.Edits()
	if len(edits) != 1 || edits[0].Result() != audit.ResultVerified || len(edits[0].WrittenSet()) != 25 {
		t.Errorf("audit: %+v", edits)
	}
}

func mustEntries(t *testing.T, h *harness) []audit.Entry {
	t.Helper()
	en, err := h.ed.Audit.Entries()
	if err != nil {
		t.Fatal(err)
	}
	return en
}

// values is connector big's offsets as the tailer has them.
func values(h *harness) map[string]string {
	out := map[string]string{}
	for _, r := range h.rows("big") {
		out[r.Partition] = r.Offset
	}
	return out
}

func TestAFailedProduceNamesWrittenAndNotWrittenAndUndoRestoresExactlyThat(t *testing.T) {
	h := newHarness(t)
	spy := &spyWriter{Config: h.kafka}
	h.ed.Kafka = spy
	p := importPlan(t, h, 200)
	spy.before = func(n int, _ model.TopicPartition) error {
		if n == 5 {
			return notSent("dial tcp 127.0.0.1:9092: connect: connection refused")
		}
		return nil
	}
	_, err := h.ed.Apply(context.Background(), p)
	var we *apply.WriteError
	if !errors.As(err, &we) || len(we.Written) != 4 || len(we.NotWritten) != 21 {
		t.Fatalf("apply: %v", err)
	}
	if !strings.Contains(err.Error(), "written: connect-offsets/0, connect-offsets/1, connect-offsets/2, connect-offsets/3; not written: connect-offsets/4") {
		t.Errorf("error does not name what was written: %v", err)
	}
	edits, _ := h.ed.Audit.Edits()
	if len(edits) != 1 || edits[0].Result() != audit.ResultPartial || len(edits[0].Outcome.NotWritten) != 21 {
		t.Fatalf("audit: %+v", edits[0].Outcome)
	}
	if n, _ := h.ed.Audit.Interrupted(""); len(n) != 1 || !strings.Contains(n[0].Notice(), "4 of 25 topic-partitions written") {
		t.Errorf("interrupted notice: %+v", n)
	}
	// What reached the log: exactly the changes of partitions 0-3.
	written := map[int]bool{0: true, 1: true, 2: true, 3: true}
	want := 0
	for _, ch := range p.Changes {
		if written[ch.Writes[0].Partition] {
			want++
		}
	}
	h.waitFor("the tailer to read the written part", func() bool {
		n := 0
		for _, v := range values(h) {
			if v != `{"id":111}` {
				n++
			}
		}
		return n == want
	})

	spy.before = nil
	req, entry, err := h.ed.UndoRequest("big")
	if err != nil {
		t.Fatal(err)
	}
	if entry.Result != audit.ResultPartial || len(req.Items) != want {
		t.Fatalf("undo plans %d partitions of a %s edit, want %d", len(req.Items), entry.Result, want)
	}
	undo, err := h.ed.Plan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := h.ed.Apply(context.Background(), undo); err != nil || !res.Verified {
		t.Fatalf("undo: %v", err)
	}
	for part, v := range values(h) {
		if v != `{"id":111}` {
			t.Errorf("after undo %s = %s", part, v)
		}
	}
	if n, _ := h.ed.Audit.Interrupted(""); len(n) != 0 {
		t.Errorf("still interrupted after the undo: %+v", n)
	}
}

func TestAnInterruptStopsBetweenProduceRequests(t *testing.T) {
	h := newHarness(t)
	spy := &spyWriter{Config: h.kafka}
	h.ed.Kafka = spy
	stop := make(chan struct{})
	h.ed.Interrupt = stop
	p := importPlan(t, h, 100)
	spy.before = func(n int, _ model.TopicPartition) error {
		if n == 3 {
			close(stop) // the signal arrives while request 3 is in flight
		}
		return nil
	}
	res, err := h.ed.Apply(context.Background(), p)
	if !errors.Is(err, apply.ErrInterrupted) || !res.Interrupted || len(res.Written) != 3 || len(spy.calls) != 3 {
		t.Fatalf("apply: %v; written %v; %d requests", err, res.Written, len(spy.calls))
	}
	edits, _ := h.ed.Audit.Edits()
	if edits[0].Result() != audit.ResultInterrupted || len(edits[0].WrittenSet()) != 3 {
		t.Errorf("audit: %+v", edits[0].Outcome)
	}
}

// A process killed after a produce request reached the log but before its
// audit line: the log is read to find it.
func TestAnEditWithoutOutcomeIsReconciledWithTheLog(t *testing.T) {
	h := newHarness(t)
	spy := &spyWriter{Config: h.kafka}
	h.ed.Kafka = spy
	p := importPlan(t, h, 100)
	spy.before = func(n int, _ model.TopicPartition) error {
		if n == 7 {
			return notSent("stop here")
		}
		return nil
	}
	if _, err := h.ed.Apply(context.Background(), p); err == nil {
		t.Fatal("apply did not stop")
	}
	// As SIGKILL after request 6 landed leaves it: no outcome line, and
	// no line for request 6.
	b, _ := os.ReadFile(h.ed.Audit.Path)
	lines := strings.SplitAfter(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 1+6+1 {
		t.Fatalf("%d audit lines", len(lines))
	}
	// ... and the process is gone.
	dead := strings.ReplaceAll(strings.Join(lines[:6], ""), fmt.Sprintf(`"pid":%d,`, os.Getpid()), `"pid":999999999,`)
	if err := os.WriteFile(h.ed.Audit.Path, []byte(dead), 0o600); err != nil {
		t.Fatal(err)
	}
	n, _ := h.ed.Audit.Interrupted("")
	if len(n) != 1 || n[0].Result() != audit.ResultInProgress || !strings.Contains(n[0].Notice(), fmt.Sprintf("at least 5 of %d topic-partitions", len(n[0].Start.Positions))) {
		t.Fatalf("interrupted: %d edits", len(n))
	}
	spy.before = nil
	req, entry, err := h.ed.UndoRequest("")
	if err != nil {
		t.Fatal(err)
	}
	if entry.Result != audit.ResultInterrupted || len(entry.Written) != 6 {
		t.Fatalf("reconciled: %s written %v", entry.Result, entry.Written)
	}
	want := 0
	for _, ch := range p.Changes {
		if ch.Writes[0].Partition < 6 {
			want++
		}
	}
	if len(req.Items) != want {
		t.Errorf("undo plans %d partitions, want %d", len(req.Items), want)
	}
}

// Lines written before write-ahead logging (no id, one line per edit) are
// still read: as whole edits that undo can reverse. They name no cluster,
// so a bare undo refuses and names the id (their time) that undoes them.
func TestOlderAuditLinesStillUndo(t *testing.T) {
	h := newHarness(t)
	h.workerWrite(`["src",{"server":"a"}]`, `{"lsn":7}`)
	old := `{"time":"2026-11-30T10:00:00Z","user":"alice","connector":"src","kind":"set","path":"topic","changes":[{"partition":{"server":"a"},"before":{"lsn":9007199254740993},"after":{"lsn":7},"writes":["connect-offsets/3"]}],"result":"verified"}` + "\n" +
		`{"time":"2026-11-30T10:01:00Z","user":"alice","connector":"src","kind":"set","path":"topic","changes":[{"partition":{"server":"a"},"before":{"lsn":7},"after":{"lsn":8}}],"result":"refused","error":"read-only"}` + "\n"
	if err := os.WriteFile(h.ed.Audit.Path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	edits, err := h.ed.Audit.Edits()
	if err != nil || len(edits) != 2 || edits[0].Result() != audit.ResultVerified || edits[1].Result() != audit.ResultRefused {
		t.Fatalf("edits: %v %d", err, len(edits))
	}
	if n, _ := h.ed.Audit.Interrupted(""); len(n) != 0 {
		t.Errorf("an old verified edit reads as interrupted")
	}
	if _, _, err := h.ed.UndoRequest("src"); err == nil || !strings.Contains(err.Error(), "does not name its cluster") || !strings.Contains(err.Error(), "--edit 20261130T100000.000Z") {
		t.Fatalf("a bare undo of an edit of an unknown cluster: %v", err)
	}
	u, err := h.ed.FindUndo(context.Background(), undo.Query{Connector: "src", EditID: "20261130T100000.000Z"})
	if err != nil || u.Edit.User != "alice" || len(u.Request.Items) != 1 || len(u.Notes) != 1 {
		t.Fatalf("undo --edit: %v %+v", err, u)
	}
	req := u.Request
	v, _ := req.Items[0].Offset.Get("lsn")
	if fmt.Sprint(v) != "9007199254740993" {
		t.Errorf("undo puts back lsn %v", v)
	}
}

// A sink edit whose process died after the group commit: the group's
// offsets say it landed, and undo puts the old ones back.
func TestAnInterruptedSinkEditIsReconciledWithTheGroup(t *testing.T) {
	h, _ := sinkHarness(t)
	tp0 := model.TopicPartition{Topic: "orders", Partition: 0}
	p, err := h.ed.PlanSink(context.Background(), plan.SinkRequest{Connector: "s3", Kind: plan.KindSet, Partitions: []model.TopicPartition{tp0}, Strategy: plan.SinkStrategy{Kind: plan.SinkToOffset, Offset: 7}})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := h.ed.Apply(context.Background(), p); err != nil || !res.Verified {
		t.Fatalf("apply: %v", err)
	}
	b, _ := os.ReadFile(h.ed.Audit.Path)
	first := strings.SplitAfter(string(b), "\n")[0]
	first = strings.ReplaceAll(first, fmt.Sprintf(`"pid":%d,`, os.Getpid()), `"pid":999999999,`)
	if err := os.WriteFile(h.ed.Audit.Path, []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	req, entry, err := h.ed.UndoRequest("s3")
	if err != nil {
		t.Fatal(err)
	}
	if entry.Result != audit.ResultInterrupted || len(entry.Written) != 1 || entry.Written[0] != "group connect-s3" || len(req.Items) != 1 {
		t.Fatalf("reconciled: %s %v, %d items", entry.Result, entry.Written, len(req.Items))
	}
	undo, err := h.ed.Plan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.ed.Apply(context.Background(), undo); err != nil {
		t.Fatal(err)
	}
	if got := committed(t, h, "connect-s3"); got["orders/0"] != 12 {
		t.Errorf("after undo: %v", got)
	}
}

// A process that died right after logging request 6 as written: request 7
// may have been in flight, so the topic-partition after the last one logged
// is unknown when the log does not show it (undo covers it), and the ones
// after it were never sent.
func TestAnEditWithoutOutcomeHasItsRequestInFlightUnknown(t *testing.T) {
	h := newHarness(t)
	spy := &spyWriter{Config: h.kafka}
	h.ed.Kafka = spy
	p := importPlan(t, h, 100)
	spy.before = func(n int, _ model.TopicPartition) error {
		if n == 7 {
			return notSent("stop here")
		}
		return nil
	}
	if _, err := h.ed.Apply(context.Background(), p); err == nil {
		t.Fatal("apply did not stop")
	}
	// The start line and six written lines; no outcome; the process gone.
	b, _ := os.ReadFile(h.ed.Audit.Path)
	lines := strings.SplitAfter(strings.TrimSpace(string(b)), "\n")
	dead := strings.ReplaceAll(strings.Join(lines[:7], ""), fmt.Sprintf(`"pid":%d,`, os.Getpid()), `"pid":999999999,`)
	if err := os.WriteFile(h.ed.Audit.Path, []byte(dead), 0o600); err != nil {
		t.Fatal(err)
	}
	spy.before = nil
	req, entry, err := h.ed.UndoRequest("")
	if err != nil {
		t.Fatal(err)
	}
	edits, _ := h.ed.Audit.Edits()
	out := edits[0].Outcome
	if entry.Result != audit.ResultInterrupted || len(entry.Written) != 6 || out == nil || strings.Join(out.Unknown, ",") != "connect-offsets/6" || len(out.NotWritten) != len(edits[0].Start.Positions)-7 {
		t.Fatalf("reconciled: %s written %v, outcome %+v", entry.Result, entry.Written, out)
	}
	if n := edits[0].Notice(); !strings.Contains(n, fmt.Sprintf("6 of %d topic-partitions written, 1 may have been", len(edits[0].Start.Positions))) {
		t.Errorf("notice: %s", n)
	}
	want := 0
	for _, ch := range p.Changes {
		if ch.Writes[0].Partition <= 6 {
			want++
		}
	}
	if len(req.Items) != want {
		t.Errorf("undo plans %d partitions, want %d (written and unknown)", len(req.Items), want)
	}
}
