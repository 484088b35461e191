package store

import (
	"fmt"
	"testing"
	"time"

	"koff/model"
	"koff/model/java"
)

// flushesEvery makes n flush events, every d, ending at t0.
func flushesEvery(n int, d time.Duration) []model.FlushEvent {
	var ev []model.FlushEvent
	for i := n - 1; i >= 0; i-- {
		at := t0.Add(-time.Duration(i) * d)
		ev = append(ev, model.FlushEvent{Start: at, End: at.Add(20 * time.Millisecond), Records: 3})
	}
	return ev
}

func TestEstimateIntervalIsTheMedianGap(t *testing.T) {
	ev := flushesEvery(12, 5*time.Second)
	// One late flush and one missed interval do not move the median.
	ev[5].Start, ev[5].End = ev[5].Start.Add(2*time.Second), ev[5].End.Add(2*time.Second)
	ev = append(ev[:8], ev[9:]...)
	if got := model.EstimateInterval(ev); got != 5*time.Second {
		t.Errorf("estimate = %s, want 5s", got)
	}
	if got := model.EstimateInterval(flushesEvery(1, time.Second)); got != 0 {
		t.Errorf("one event: %s, want 0 (unknown)", got)
	}
}

func TestAssessFlushStatuses(t *testing.T) {
	ev := flushesEvery(5, 10*time.Second)
	last := ev[len(ev)-1].End
	cases := []struct {
		name     string
		age      time.Duration
		in       model.FlushInputs
		want     model.FlushStatus
		source   string
		interval time.Duration
	}{
		{"just flushed", 2 * time.Second, model.FlushInputs{Unflushed: -1}, model.FlushOK, "estimated", 10 * time.Second},
		{"at 1.5×", 15 * time.Second, model.FlushInputs{Unflushed: -1}, model.FlushOK, "estimated", 10 * time.Second},
		{"late", 25 * time.Second, model.FlushInputs{Unflushed: -1}, model.FlushLate, "estimated", 10 * time.Second},
		{"configured interval wins", 25 * time.Second, model.FlushInputs{Configured: time.Minute, Unflushed: -1}, model.FlushOK, "configured", time.Minute},
		{"stalled: running", 40 * time.Second, model.FlushInputs{State: "RUNNING", Unflushed: -1}, model.FlushStalled, "estimated", 10 * time.Second},
		{"stalled: topics grew", 40 * time.Second, model.FlushInputs{Unflushed: 120}, model.FlushStalled, "estimated", 10 * time.Second},
		{"idle: nothing produced", 40 * time.Second, model.FlushInputs{Unflushed: 0}, model.FlushIdle, "estimated", 10 * time.Second},
		{"idle: stopped", 40 * time.Second, model.FlushInputs{State: "STOPPED", Unflushed: -1}, model.FlushIdle, "estimated", 10 * time.Second},
		// Records after the flush do not make a paused or stopped connector stalled.
		{"idle: running, nothing produced", 40 * time.Second, model.FlushInputs{State: "RUNNING", Unflushed: 0}, model.FlushIdle, "estimated", 10 * time.Second},
		{"idle: stopped with records", 40 * time.Second, model.FlushInputs{State: "STOPPED", Unflushed: 3}, model.FlushIdle, "estimated", 10 * time.Second},
		{"idle: paused with records", 40 * time.Second, model.FlushInputs{State: "PAUSED", Unflushed: 3}, model.FlushIdle, "estimated", 10 * time.Second},
		{"unknown without evidence", 40 * time.Second, model.FlushInputs{Unflushed: -1}, model.FlushUnknown, "estimated", 10 * time.Second},
		// Records only in a topic other connectors write too may be theirs.
		{"late: records only in a shared topic", 40 * time.Second, model.FlushInputs{State: "RUNNING", Unflushed: 0, Shared: 83, SharedWith: []string{"file-app-1"}}, model.FlushLate, "estimated", 10 * time.Second},
		{"stalled: records in its own topic too", 40 * time.Second, model.FlushInputs{State: "RUNNING", Unflushed: 2, Shared: 83, SharedWith: []string{"file-app-1"}}, model.FlushStalled, "estimated", 10 * time.Second},
	}
	for _, c := range cases {
		r := model.AssessFlush(ev, last.Add(c.age), c.in)
		if r.Status != c.want || r.IntervalSource != c.source || r.Interval != c.interval || r.Age != c.age {
			t.Errorf("%s: %+v, want %s (%s %s)", c.name, r, c.want, c.source, c.interval)
		}
		if r.Reason == "" {
			t.Errorf("%s: no reason", c.name)
		}
	}
	if r := model.AssessFlush(nil, t0, model.FlushInputs{Unflushed: -1}); r.Status != model.FlushUnknown || r.Reason != "no flush seen" {
		t.Errorf("no events: %+v", r)
	}
	// One flush: Connect's default interval until there are two.
	one := flushesEvery(1, time.Second)
	if r := model.AssessFlush(one, t0.Add(2*time.Minute), model.FlushInputs{State: "RUNNING", Unflushed: -1}); r.Interval != time.Minute || r.IntervalSource != "default" || r.Status != model.FlushLate {
		t.Errorf("one event: %+v", r)
	}
	// Running and stalled, and a new flush arrives: ok again.
	ev = append(ev, model.FlushEvent{Start: last.Add(45 * time.Second), End: last.Add(45 * time.Second), Records: 1})
	if r := model.AssessFlush(ev, last.Add(46*time.Second), model.FlushInputs{State: "RUNNING", Unflushed: -1}); r.Status != model.FlushOK {
		t.Errorf("after a new flush: %+v", r)
	}
}

func TestRatesAreExactForHugeOffsets(t *testing.T) {
	h := []model.Update{
		{Time: t0, Value: []byte(`{"lsn":1152921504606846976,"file":"x","pos":10}`)},
		{Time: t0.Add(5 * time.Second), Value: []byte(`{"lsn":1152921504606847476,"file":"y","pos":5}`)},
		{Time: t0.Add(10 * time.Second), Value: []byte(`{"lsn":1152921504606847976,"file":"y","pos":8}`)},
	}
	r := model.Rates(h)
	if r["lsn"] != 100 || len(r) != 1 {
		t.Errorf("rates = %v, want lsn 100/s only (pos went backwards, file is text)", r)
	}
	if model.Rates(h[:1]) != nil {
		t.Error("one update has no rate")
	}
	withReset := []model.Update{h[0], {Time: t0.Add(time.Second)}, h[1], h[2]}
	if r := model.Rates(withReset); r["lsn"] != 100 {
		t.Errorf("rates after a reset = %v, want counted from the reset", r)
	}
}

func TestStalePartitions(t *testing.T) {
	report := model.FlushReport{Status: model.FlushOK, Interval: 5 * time.Second}
	rows := []model.PartitionRow{
		{Partition: "a", Updated: t0.Add(-2 * time.Second)},
		{Partition: "b", Updated: t0.Add(-time.Minute)},
		{Partition: "c", Updated: t0.Add(-time.Minute), Deleted: true},
	}
	got := model.StalePartitions(rows, report, t0)
	if len(got) != 1 || got[0].Partition != "b" {
		t.Errorf("stale = %+v", got)
	}
	report.Status = model.FlushStalled
	if model.StalePartitions(rows, report, t0) != nil {
		t.Error("a stalled connector's partitions are not individually stale")
	}
}

// Three tasks flush every 5s, 300ms apart: the connector's flush events
// come in bursts, but each partition is written once per 5s.
func TestFlushIntervalOfAMultiTaskConnector(t *testing.T) {
	s := NewStore(StoreOptions{})
	var off int64
	for round := 0; round < 6; round++ {
		for task := 0; task < 3; task++ {
			at := time.Duration(round)*5*time.Second + time.Duration(task)*300*time.Millisecond
			for p := 0; p < 2; p++ {
				off++
				s.Ingest([]Record{rec(task*2+p, off, fmt.Sprintf(`["mm2",{"p":%d}]`, task*2+p), `{"offset":1}`, at)})
			}
		}
	}
	row := s.Connectors()[0]
	if got := model.EstimateInterval(row.Flushes); got != 300*time.Millisecond {
		t.Logf("flush-event median = %s (the bursts)", got)
	}
	if row.PartitionInterval != 5*time.Second {
		t.Fatalf("partition interval = %s, want 5s", row.PartitionInterval)
	}
	now := t0.Add(25*time.Second + 600*time.Millisecond + 2*time.Second)
	if r := row.Flush(now, 0); r.Interval != 5*time.Second || r.Status != model.FlushOK || r.IntervalSource != "estimated" {
		t.Errorf("flush report = %+v", r)
	}
}

// A topic several source connectors write: its records are counted apart,
// and the poller is told whose else they may be.
func TestFlushTargetsSplitSharedTopics(t *testing.T) {
	s := NewStore(StoreOptions{})
	s.SetTopicPartitions("connect-offsets", 25)
	for i, name := range []string{"a", "b", "c"} {
		s.Ingest([]Record{{Topic: "connect-offsets", Partition: i, Offset: 0, Key: java.EncodeKey(name, java.Object{{Name: "f", Value: name}}), Value: []byte(`{"p":1}`), Time: t0}})
	}
	s.SetConnectorTopics("a", []string{"logs", "a-only"})
	s.SetConnectorTopics("b", []string{"logs"})
	s.SetConnectorTopics("c", []string{"c-only"})
	ft := s.FlushTargets()
	if a := ft["a"]; fmt.Sprint(a.Topics, a.Shared, a.SharedWith) != "[a-only] [logs] [b]" {
		t.Errorf("a: %+v", a)
	}
	if b := ft["b"]; len(b.Topics) != 0 || fmt.Sprint(b.Shared, b.SharedWith) != "[logs] [a]" {
		t.Errorf("b: %+v", b)
	}
	if c := ft["c"]; fmt.Sprint(c.Topics) != "[c-only]" || len(c.Shared) != 0 {
		t.Errorf("c: %+v", c)
	}
}
