package edit

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/edit/apply"
	"koff/edit/audit"
	"koff/edit/plan"
	"koff/model"
	"koff/model/java"
)

// connectWrite produces a record as a Connect worker does: no headers.
func (h *harness) connectWrite(key, value string) { h.connectWriteAt(key, value, time.Now()) }

func (h *harness) connectWriteAt(key, value string, at time.Time) {
	h.t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(h.addr), Timeout: 10 * time.Second}
	res, err := c.Produce(context.Background(), &kafkago.ProduceRequest{
		Topic: "connect-offsets", Partition: java.PartitionFor([]byte(key), 25), RequiredAcks: kafkago.RequireAll,
		Records: kafkago.NewRecordReader(kafkago.Record{Key: kafkago.NewBytes([]byte(key)), Value: kafkago.NewBytes([]byte(value)), Time: at}),
	})
	if err == nil {
		err = res.Error
	}
	if err != nil {
		h.t.Fatal(err)
	}
}

func setRequest(t *testing.T, conn, partition, offset string) plan.Request {
	return plan.Request{Connector: conn, Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, partition), Offset: mustOffset(t, offset)}}}
}

// Without Connect's REST API koff cannot know whether a task still runs:
// a commit of the task that lands after koff read its write back (here:
// once the watch has begun) is an overwrite, naming the worker's record,
// never "verified"; the audit log says overwritten.
func TestATaskCommitAfterTheReadBackIsAnOverwriteNotVerified(t *testing.T) {
	h := newHarness(t)
	key := `["files",{"filename":"/var/log/a.log"}]`
	h.workerWrite(key, `{"position":100}`)
	h.ed.WatchLimit, h.ed.FlushInterval = 0, 2*time.Second
	p, err := h.ed.Plan(context.Background(), setRequest(t, "files", `{"filename":"/var/log/a.log"}`, `{"position":5}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Watch != 3*time.Second || !strings.Contains(p.WatchText(), "watch 3s after the read-back") || !strings.Contains(p.WatchWhy, "state unknown") || !strings.Contains(p.WatchWhy, "2s (--flush-interval)") {
		t.Fatalf("watch %s: %s", p.Watch, p.WatchText())
	}
	var calls int
	h.ed.Progress = func(_ *plan.Plan, left time.Duration) {
		calls++
		if calls == 1 {
			// The edit was read back: the task's next flush commits its own position.
			if !h.readBack(p) {
				t.Error("the watch began before the read-back")
			}
			h.connectWrite(key, `{"position":130}`)
		}
	}
	start := time.Now()
	res, err := h.ed.Apply(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary()
	if res.Verified || len(res.Overwritten) != 1 || !strings.Contains(s, `written, then overwritten`) || !strings.Contains(s, `holds {"position":130}, written by a Connect worker: the connector's task (a record without koff's header, connect-offsets/`) {
		t.Fatalf("summary: %s", s)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("an overwrite ends the watch: took %s", took)
	}
	edits, _ := h.ed.Audit.Edits()
	if last := edits[len(edits)-1]; last.Result() != audit.ResultOverwritten || !strings.Contains(last.Outcome.Message, "a Connect worker") {
		t.Errorf("audit: %s %q", last.Result(), last.Outcome.Message)
	}
}

// Nothing after the read-back: verified once the whole watch passed, and
// not before.
func TestAnEditWatchedToTheEndIsVerified(t *testing.T) {
	h := newHarness(t)
	key := `["files",{"filename":"/var/log/a.log"}]`
	h.workerWrite(key, `{"position":100}`)
	h.ed.WatchLimit, h.ed.FlushInterval = 0, 100*time.Millisecond
	p, err := h.ed.Plan(context.Background(), setRequest(t, "files", `{"filename":"/var/log/a.log"}`, `{"position":5}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Watch != apply.WatchFloor {
		t.Fatalf("a short interval is watched for the floor: %s", p.Watch)
	}
	start := time.Now()
	res, err := h.ed.Apply(context.Background(), p)
	if err != nil || !res.Verified {
		t.Fatalf("%v: %s", err, res.Summary())
	}
	if took := time.Since(start); took < apply.WatchFloor {
		t.Errorf("verified after %s, before the watch ended", took)
	}
}

// A signal during the watch ends it: written and read back, not verified,
// audited unverified with why; nothing is put back.
func TestASignalDuringTheWatchLeavesTheEditUnverified(t *testing.T) {
	h := newHarness(t)
	key := `["files",{"filename":"/var/log/a.log"}]`
	h.workerWrite(key, `{"position":100}`)
	h.ed.WatchLimit, h.ed.FlushInterval = 0, 10*time.Second
	interrupt := make(chan struct{})
	h.ed.Interrupt = interrupt
	h.ed.Progress = func(*plan.Plan, time.Duration) {
		select {
		case <-interrupt:
		default:
			close(interrupt)
		}
	}
	p, err := h.ed.Plan(context.Background(), setRequest(t, "files", `{"filename":"/var/log/a.log"}`, `{"position":5}`))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := h.ed.Apply(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("the signal did not end the watch: %s", time.Since(start))
	}
	if s := res.Summary(); res.Verified || res.Unwatched == 0 || !strings.Contains(s, "written and read back, NOT verified") || !strings.Contains(s, "whether it stays is unknown") {
		t.Fatalf("summary: %s", s)
	}
	edits, _ := h.ed.Audit.Edits()
	if last := edits[len(edits)-1]; last.Result() != audit.ResultUnverified || !strings.Contains(last.Outcome.Message, "watch") {
		t.Errorf("audit: %s %q", last.Result(), last.Outcome.Message)
	}
	if got := string(h.current(p.Changes[0].Writes[0])); got != `{"position":5}` {
		t.Errorf("value now %s", got)
	}
}

// How long, and why: the config topic's STOPPED says nothing of tasks
// still running; unknown interval is Connect's default, capped.
func TestTheWatchFollowsWhatKoffKnowsOfTheState(t *testing.T) {
	e := &Editor{}
	cases := []struct {
		p    plan.Plan
		set  time.Duration
		want time.Duration
		why  string
	}{
		{plan.Plan{}, 0, apply.WatchCap, "Connect's default offset.flush.interval.ms"},
		{plan.Plan{}, 5 * time.Second, 7500 * time.Millisecond, "state unknown"},
		{plan.Plan{Target: model.TargetStopped, ConfigTopic: "connect-configs"}, 4 * time.Second, 6 * time.Second, "target state STOPPED in config topic connect-configs says nothing of tasks still running"},
		{plan.Plan{State: "UNASSIGNED", Target: model.TargetStopped}, 2 * time.Second, 3 * time.Second, "UNASSIGNED, not STOPPED"},
		{plan.Plan{State: "STOPPED"}, 2 * time.Second, 0, ""},
		{plan.Plan{State: "RUNNING", Tasks: 1}, 2 * time.Second, 0, ""},
		{plan.Plan{Target: model.TargetStarted, ConfigTopic: "connect-configs"}, 2 * time.Second, 0, ""},
		{plan.Plan{Absent: true}, 2 * time.Second, 0, ""},
		{plan.Plan{Group: "connect-sink"}, 2 * time.Second, 0, ""},
	}
	for _, c := range cases {
		e.FlushInterval = c.set
		p := c.p
		e.planWatch(&p)
		if p.Watch != c.want || !strings.Contains(p.WatchWhy, c.why) {
			t.Errorf("%+v with %s: watch %s, %q", c.p, c.set, p.Watch, p.WatchWhy)
		}
	}
}

// A connector Connect's REST API says is STOPPED keeps the short
// verification, and a running one of the demo's simulated workers, edited
// with neither REST nor the config topic, is overwritten by its task's
// next flush: reported so, naming the worker's record.
func TestTheDemoWorkersOverwriteAnEditWithoutREST(t *testing.T) {
	h, _ := demoHarness(t)
	ctx := context.Background()
	if err := h.ed.StopConnector(ctx, "jdbc-billing"); err != nil {
		t.Fatal(err)
	}
	part := `{"protocol":"1","table":"billing.public.invoices"}`
	offset := func(n int) string {
		return `{"timestamp_nanos":0,"incrementing":` + strconv.Itoa(n) + `,"timestamp":1700000000000}`
	}
	h.waitFor("the stop's last commit", func() bool { return len(h.rows("jdbc-billing")) > 0 })
	time.Sleep(300 * time.Millisecond)
	p, err := h.ed.Plan(ctx, setRequest(t, "jdbc-billing", part, offset(7)))
	if err != nil {
		t.Fatal(err)
	}
	if p.Watch != 0 {
		t.Fatalf("STOPPED by REST, yet watched: %s", p.WatchText())
	}
	start := time.Now()
	if res, err := h.ed.Apply(ctx, p); err != nil || !res.Verified {
		t.Fatalf("%v: %s", err, res.Summary())
	}
	if took := time.Since(start); took > apply.WatchFloor {
		t.Errorf("a REST-STOPPED edit took %s", took)
	}

	// jdbc-shop runs; koff has neither REST nor the config topic.
	h.ed.REST, h.ed.Configs = nil, nil
	shop := `{"protocol":"1","table":"shop.public.orders"}`
	var res apply.Result
	for try := 0; ; try++ {
		p, err = h.ed.Plan(ctx, setRequest(t, "jdbc-shop", shop, `{"incrementing":3}`))
		if err != nil {
			t.Fatal(err)
		}
		if p.Watch <= 0 || p.Watch > apply.WatchCap {
			t.Fatalf("watch %s", p.Watch)
		}
		res, err = h.ed.Apply(ctx, p)
		var conflict *apply.ConflictError
		if errors.As(err, &conflict) && try < 20 {
			continue // its task flushed between the plan and the write
		}
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	if s := res.Summary(); res.Verified || len(res.Overwritten) == 0 || !strings.Contains(s, "a Connect worker: the connector's task (a record without koff's header") {
		t.Fatalf("summary: %s", s)
	}
	edits, _ := h.ed.Audit.Edits()
	if last := edits[len(edits)-1]; last.Result() != audit.ResultOverwritten {
		t.Errorf("audit: %s", last.Result())
	}
}

func TestWatchDurationsReadAsTyped(t *testing.T) {
	for d, want := range map[time.Duration]string{200 * time.Millisecond: "200ms", 1500 * time.Millisecond: "1.5s", 9 * time.Second: "9s", time.Minute: "1m", 90 * time.Second: "1m30s", 2 * time.Hour: "2h"} {
		if got := plan.ShortDuration(d); got != want {
			t.Errorf("%s: %q, want %q", d, got, want)
		}
	}
}

// Another koff's record over the edit during the watch may be a racing
// edit that lost and puts this edit's value back (edit/apply/verify.go): waited for,
// not reported. One that stays for the verify timeout is an overwrite.
func TestAnotherKoffsRecordDuringTheWatchMustStay(t *testing.T) {
	for _, back := range []bool{true, false} {
		h := newHarness(t)
		key := `["files",{"filename":"/var/log/a.log"}]`
		h.workerWrite(key, `{"position":100}`)
		h.ed.WatchLimit, h.ed.FlushInterval, h.ed.VerifyTimeout = 0, 100*time.Millisecond, 1500*time.Millisecond
		p, err := h.ed.Plan(context.Background(), setRequest(t, "files", `{"filename":"/var/log/a.log"}`, `{"position":5}`))
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		h.ed.Progress = func(*plan.Plan, time.Duration) {
			calls++
			switch {
			case calls == 1:
				h.workerWrite(key, `{"position":7}`) // kafka.Config writes koff's header
			case calls == 3 && back:
				h.workerWrite(key, `{"position":5}`)
			}
		}
		res, err := h.ed.Apply(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary()
		switch {
		case back && !res.Verified:
			t.Errorf("put back: %s", s)
		case !back && (res.Verified || !strings.Contains(s, `holds {"position":7}, written by another koff, not in this audit log (a record with koff's header`)):
			t.Errorf("stayed: %s", s)
		}
	}
}

// A connector that flushed too seldom to tell its interval (just created,
// or stopped) is watched for its workers' interval, which every connector
// of theirs shares: estimated from the others' flushes.
func TestTheWatchOfAConnectorWithFewFlushesIsItsWorkersInterval(t *testing.T) {
	h := newHarness(t)
	h.ed.WatchLimit = 0
	t0 := time.Now().Add(-time.Minute)
	for i := 0; i < 6; i++ {
		h.connectWriteAt(`["busy",{"file":"b"}]`, `{"position":`+strconv.Itoa(i)+`}`, t0.Add(time.Duration(i)*2*time.Second))
	}
	key := `["files",{"filename":"/var/log/a.log"}]`
	h.connectWrite(key, `{"position":100}`)
	// Every flush of busy read, its last one included: the estimate is of
	// all six.
	h.waitFor("the records", func() bool {
		busy := h.rows("busy")
		return len(busy) == 1 && busy[0].Offset == `{"position":5}` && len(h.rows("files")) == 1
	})
	p, err := h.ed.Plan(context.Background(), setRequest(t, "files", `{"filename":"/var/log/a.log"}`, `{"position":5}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Watch != 3*time.Second || !strings.Contains(p.WatchWhy, "2s (too few flushes of its own: estimated from the flushes of 1 other connector of its workers)") {
		t.Errorf("watch %s: %s", p.Watch, p.WatchWhy)
	}
}

type stoppedAt time.Time

func (s stoppedAt) ConnectorConfig(name string) (model.ConnectorConfig, bool) {
	return model.ConnectorConfig{Name: name, Config: map[string]string{}, TargetState: model.TargetStopped, TargetSince: time.Time(s)}, true
}

func (s stoppedAt) ConnectConfigs() model.ConnectConfigs {
	return model.ConnectConfigs{Topic: "connect-configs"}
}

// STOPPED in the config topic: its tasks were told then, and commit once
// more as they stop. A stop long ago leaves the floor; a recent one the
// rest of StopSettle; one of unknown time the whole flush interval.
func TestTheWatchOfAConnectorStoppedInTheConfigTopicCountsFromTheStop(t *testing.T) {
	now := time.Date(2026, 12, 5, 4, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		since time.Time
		want  time.Duration
		why   string
	}{
		{now.Add(-time.Hour), apply.WatchFloor, "since 1h ago"},
		{now.Add(-5 * time.Second), 10 * time.Second, "since 5s ago: a task told then to stop commits once more as it stops, within 15s"},
		{now.Add(-time.Second), 14 * time.Second, "since 1s ago"},
		{time.Time{}, 90 * time.Second, "says nothing of tasks still running"},
	} {
		e := &Editor{Configs: stoppedAt(c.since), FlushInterval: time.Minute, Now: func() time.Time { return now }}
		p := plan.Plan{Request: plan.Request{Connector: "files"}, Target: model.TargetStopped, ConfigTopic: "connect-configs"}
		e.planWatch(&p)
		if p.Watch != c.want || !strings.Contains(p.WatchWhy, c.why) {
			t.Errorf("stopped at %s: watch %s, %q", c.since, p.Watch, p.WatchWhy)
		}
	}
}
