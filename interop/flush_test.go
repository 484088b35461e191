package interop

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// flushStatus is koff status NAME -o json's flush of one connector (the
// authoritative row).
type flushStatus struct {
	interval  float64
	source    string
	status    string
	reason    string
	unflushed *int64
	shared    *int64
	raw       string
}

func (s *Stack) flushOf(t *testing.T, name string) flushStatus {
	t.Helper()
	// koff status exits 1 when a connector is stalled; the JSON is printed either way.
	out, errs, code := koff(t, s.withREST("status", name, "-o", "json")...)
	if code != 0 && code != 1 {
		t.Fatalf("koff status %s: exit %d: %s", name, code, errs)
	}
	var st statusOut
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("koff status -o json: %v\n%s", err, out)
	}
	for _, c := range st.Connectors {
		if c.Name == name && c.Authoritative && c.Flush != nil {
			f := flushStatus{source: c.Flush.IntervalSource, status: c.Flush.Status, reason: c.Flush.Reason, unflushed: c.Flush.Unflushed, shared: c.Flush.Shared, raw: out}
			if c.Flush.IntervalSeconds != nil {
				f.interval = *c.Flush.IntervalSeconds
			}
			return f
		}
	}
	t.Fatalf("koff status: no flush of %s:\n%s", name, out)
	return flushStatus{}
}

func (f flushStatus) String() string {
	u := "null"
	if f.unflushed != nil {
		u = fmt.Sprint(*f.unflushed)
	}
	if f.shared != nil && *f.shared > 0 {
		u += fmt.Sprintf(" (+%d in shared topics)", *f.shared)
	}
	return fmt.Sprintf("%s (%s), interval %.2fs %s, unflushed %s", f.status, f.reason, f.interval, f.source, u)
}

// TestFlushOfTheRealWorker: koff's estimate of a real task's commit
// interval is within 25% of the worker's offset.flush.interval.ms (2 s);
// the status is ok while the file grows and idle once it stops; a paused or
// stopped connector is not called stalled; unflushed records are never
// negative and reach 0 after a flush.
//
// With exactly.once.source.support=enabled every source task commits in
// transactions; transaction.boundary=interval makes it commit every
// offset.flush.interval.ms (SourceConnectorConfig
// TRANSACTION_BOUNDARY_INTERVAL_CONFIG defaults to it), as a regular task
// flushes.
func TestFlushOfTheRealWorker(t *testing.T) {
	s := realStack(t)
	name := "flush-file"
	path := s.writeFile(t, name+".txt", "")
	cfg := fileSource(path, name+"-out")
	cfg["transaction.boundary"] = "interval"
	s.createConnector(t, name, cfg)

	// The file grows for 16 s, a line every 200 ms.
	stopGrowing := every(200*time.Millisecond, func(i int) {
		appendFileQuiet(path, fmt.Sprintf("flush-line-%d\n", i))
	})
	var seen []flushStatus
	check := func(f flushStatus) {
		seen = append(seen, f)
		if f.unflushed != nil && *f.unflushed < 0 {
			t.Errorf("unflushed records negative: %s", f)
		}
	}
	deadline := time.Now().Add(16 * time.Second)
	for time.Now().Before(deadline) {
		check(s.flushOf(t, name))
		time.Sleep(time.Second)
	}
	growing := s.flushOf(t, name)
	check(growing)
	stopGrowing()
	if growing.source != "estimated" || math.Abs(growing.interval-2.0) > 0.5 {
		t.Errorf("while the file grows: %s; want an estimated interval within 25%% of offset.flush.interval.ms=2000", growing)
	}
	if growing.status != "ok" {
		t.Errorf("while the file grows the status is %s, want ok", growing)
	}

	// The file stops growing: idle, and nothing left unflushed.
	var last flushStatus
	waitFor(t, 60*time.Second, name+" idle with 0 unflushed", func() (bool, string) {
		last = s.flushOf(t, name)
		check(last)
		return last.status == "idle" && last.unflushed != nil && *last.unflushed == 0, last.String()
	})

	// Paused, then stopped, for well over 3× the interval: never stalled.
	for _, state := range []string{"PAUSED", "STOPPED"} {
		if state == "PAUSED" {
			s.mustREST(t, 202, "PUT", "/connectors/"+name+"/pause", nil)
		} else {
			s.stop(t, name)
		}
		s.waitState(t, name, state)
		appendFileQuiet(path, "while-"+strings.ToLower(state)+"\n")
		for range 8 {
			f := s.flushOf(t, name)
			check(f)
			if f.status == "stalled" {
				t.Errorf("%s connector called stalled: %s", state, f)
				break
			}
			time.Sleep(time.Second)
		}
	}
	var trail []string
	for _, f := range seen {
		trail = append(trail, f.String())
	}
	t.Logf("koff status over the test:\n  %s", strings.Join(trail, "\n  "))
}

// TestFlushOfConnectorsSharingATopic: two FileStreamSource connectors
// write one topic; one file keeps growing, the other stops. The records in
// the topic since the quiet one's last flush are the busy one's, so koff
// must not call the quiet one stalled: it counts them apart (Connect's
// GET /connectors/NAME/topics names the topic for both) and says late.
func TestFlushOfConnectorsSharingATopic(t *testing.T) {
	s := realStack(t)
	busy, quiet := "shared-busy", "shared-quiet"
	busyPath := s.writeFile(t, busy+".txt", "")
	quietPath := s.writeFile(t, quiet+".txt", "")
	for name, path := range map[string]string{busy: busyPath, quiet: quietPath} {
		cfg := fileSource(path, "shared-out")
		cfg["transaction.boundary"] = "interval"
		s.createConnector(t, name, cfg)
	}
	defer every(200*time.Millisecond, func(i int) {
		appendFileQuiet(busyPath, fmt.Sprintf("busy-line-%d\n", i))
		if i <= 50 { // 10 s: several flushes, then quiet
			appendFileQuiet(quietPath, fmt.Sprintf("quiet-line-%d\n", i))
		}
	})()
	// Connect reports a topic in /topics once the connector has written to it.
	waitFor(t, 60*time.Second, "both connectors to name shared-out", func() (bool, string) {
		var got []string
		for _, n := range []string{busy, quiet} {
			_, b := s.rest(t, "GET", "/connectors/"+n+"/topics", nil)
			if !strings.Contains(string(b), "shared-out") {
				return false, n + ": " + string(b)
			}
			got = append(got, n)
		}
		return true, strings.Join(got, " ")
	})
	// Well past 3× the 2 s interval since the quiet one's last flush.
	var last flushStatus
	waitFor(t, 60*time.Second, quiet+" past 3× its interval", func() (bool, string) {
		last = s.flushOf(t, quiet)
		if last.status == "stalled" {
			t.Fatalf("%s called stalled on another connector's records: %s", quiet, last)
		}
		return last.status == "late" && strings.Contains(last.reason, "shared with"), last.String()
	})
	if !strings.Contains(last.reason, "shared with "+busy) || last.unflushed == nil || *last.unflushed != 0 {
		t.Errorf("%s: %s; want 0 unflushed of its own and the records in shared-out counted apart, shared with %s", quiet, last, busy)
	}
	for range 5 {
		if f := s.flushOf(t, quiet); f.status == "stalled" {
			t.Fatalf("%s called stalled on another connector's records: %s", quiet, f)
		}
		time.Sleep(time.Second)
	}
	if f := s.flushOf(t, busy); f.status != "ok" {
		t.Errorf("%s, whose file grows: %s, want ok", busy, f)
	}
}

// every calls f(1), f(2)… once per period until the returned stop is
// called; stop waits for the call in progress.
func every(period time.Duration, f func(i int)) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for i := 1; ; i++ {
			select {
			case <-quit:
				return
			case <-tick.C:
				f(i)
			}
		}
	}()
	return func() { close(quit); <-done }
}

func appendFileQuiet(path, content string) {
	f, err := openAppend(path)
	if err != nil {
		return
	}
	f.WriteString(content)
	f.Close()
}
