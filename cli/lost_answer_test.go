package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"koff/demo"
	"koff/edit/audit"
	"koff/edit/plan"
	"koff/internal/faultproxy"
	"koff/kafka"
	"koff/model"
	"koff/model/java"
	"koff/model/store"
)

// cutBroker is an embedded broker behind the fault proxy, with a
// 25-partition offsets topic: a write request can reach the broker and
// lose its answer, and the broker can hold it before appending.
type cutBroker struct {
	t      *testing.T
	proxy  *faultproxy.Proxy
	broker *demo.Broker
	kafka  kafka.Config // through the proxy, as koff connects
	audit  string
	cuts   atomic.Int32 // requests whose answer was cut
}

func newCutBroker(t *testing.T) *cutBroker {
	t.Helper()
	p, b := proxiedOffsetsBroker(t)
	return &cutBroker{t: t, proxy: p, broker: b, kafka: kafka.Config{Brokers: []string{p.Addr()}}, audit: filepath.Join(t.TempDir(), "audit.jsonl")}
}

// cut makes the nth request of kind (counted from 1, for which match is
// true) lose its answer: once the broker has received it, the proxy resets
// every connection, and the broker holds the request until hold returns,
// then handles it as any other (it appends, and its answer goes nowhere).
func (c *cutBroker) cut(kind kmsg.Key, nth int32, match func(kmsg.Request) bool, hold func()) {
	fake := c.broker.Cluster()
	var seen atomic.Int32
	fake.ControlKey(int16(kind), func(req kmsg.Request) (kmsg.Response, error, bool) {
		fake.KeepControl()
		if !match(req) || seen.Add(1) != nth {
			return nil, nil, false
		}
		c.cuts.Add(1)
		c.proxy.ResetConns()
		fake.SleepControl(hold)
		return nil, nil, false
	})
}

func toOffsetsTopic(req kmsg.Request) bool {
	pr := req.(*kmsg.ProduceRequest)
	return len(pr.Topics) > 0 && pr.Topics[0].Topic == "connect-offsets"
}

func (c *cutBroker) koff(args ...string) (string, string, int) {
	c.t.Helper()
	return koff(c.t, append(args, "-b", c.proxy.Addr(), "--audit-log", c.audit)...)
}

// seed writes each key's value to its murmur2 partition.
func (c *cutBroker) seed(kv map[string]string) {
	c.t.Helper()
	var recs []store.Record
	for k, v := range kv {
		recs = append(recs, store.Record{Topic: "connect-offsets", Partition: java.PartitionFor([]byte(k), 25), Key: []byte(k), Value: []byte(v), Time: time.Now()})
	}
	if err := c.kafka.WriteRecords(context.Background(), recs); err != nil {
		c.t.Fatal(err)
	}
}

// inForce is the value of every key in the log now: its last record
// ("" for a tombstone).
func (c *cutBroker) inForce() map[string]string {
	c.t.Helper()
	out := map[string]string{}
	for p := 0; p < 25; p++ {
		recs, _, err := c.kafka.ReadRecords(context.Background(), model.TopicPartition{Topic: "connect-offsets", Partition: p}, 0)
		if err != nil {
			c.t.Fatal(err)
		}
		for _, r := range recs {
			out[string(r.Key)] = string(r.Value)
		}
	}
	return out
}

// waitValue waits until key holds value in the log: a held request landed.
func (c *cutBroker) waitValue(key, value string) {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for c.inForce()[key] != value {
		if time.Now().After(deadline) {
			c.t.Fatalf("%s never came to hold %s", key, value)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lastEdit is the newest edit of kind in the audit log.
func (c *cutBroker) lastEdit(kind plan.Kind) audit.Edit {
	c.t.Helper()
	edits, err := (&audit.Log{Path: c.audit}).Edits()
	if err != nil {
		c.t.Fatal(err)
	}
	for i := len(edits) - 1; i >= 0; i-- {
		if edits[i].Start.Kind == kind {
			return edits[i]
		}
	}
	c.t.Fatalf("no %s in the audit log", kind)
	return audit.Edit{}
}

func bulkKey(i int) string { return fmt.Sprintf(`["bulk",{"table":"t%05d"}]`, i) }

// A single `koff set` whose produce answer is lost, but whose record the
// broker appends a moment later, is written: koff reads the partition
// until the record shows, and reports the edit verified, never "written:
// none" while its value is in force.
func TestASetWhoseAnswerIsLostButLandsIsWritten(t *testing.T) {
	c := newCutBroker(t)
	c.seed(map[string]string{bulkKey(0): `{"id":1}`})
	c.cut(kmsg.Produce, 1, toOffsetsTopic, func() { time.Sleep(1500 * time.Millisecond) })
	out, errs, code := c.koff("set", "bulk", "--yes", "--partition", `{"table":"t00000"}`, "--offset", `{"id":2}`)
	t.Logf("exit %d\n%s%s", code, out, errs)
	if c.cuts.Load() != 1 {
		t.Fatalf("%d requests cut", c.cuts.Load())
	}
	if code != ExitOK || !strings.Contains(out, "read back, NOT verified for the worker: set 1 partition of bulk") || strings.Contains(out+errs, "written: none") {
		t.Errorf("set whose answer was lost and whose record landed: exit %d\n%s%s", code, out, errs)
	}
	if got := c.inForce()[bulkKey(0)]; got != `{"id":2}` {
		t.Errorf("in force: %s", got)
	}
	if ed := c.lastEdit(plan.KindSet); ed.Result() != audit.ResultVerified || len(ed.WrittenSet()) != 1 {
		t.Errorf("audit: %s, written %v", ed.Result(), ed.WrittenSet())
	}
}

// An import of 1,000 partitions (25 topic-partitions) whose nth produce
// request loses its answer, in rounds: in a "late" round the broker appends
// the request only after koff gave up reading for it, so that
// topic-partition "may have been written" (exit 3, audit outcome unknown),
// the ones before it are written and the ones after it were never sent; in
// a "soon" round it appends a second later, while koff still reads for it,
// so it is written and the import goes on. Every outcome is checked against
// the log, and once the held request has landed `koff undo` puts back every
// before-value, those of an unknown topic-partition included.
// KOFF_CUT_ROUNDS=N runs N rounds (default 2: a late cut at the 5th
// request, a soon one at the 12th).
func TestAnImportWhoseAnswerIsLostIsUnknownAndUndoneExactly(t *testing.T) {
	rounds := []cutRound{{nth: 5, late: true}, {nth: 12}}
	if n, _ := strconv.Atoi(os.Getenv("KOFF_CUT_ROUNDS")); n > 0 {
		rounds = nil
		for i := 0; i < n; i++ {
			rounds = append(rounds, cutRound{nth: int32(1 + (i*7)%25), late: i%2 == 0})
		}
	}
	var cuts, written, unknown, notWritten, restored, keysTotal int
	for i, r := range rounds {
		t.Run(fmt.Sprintf("round %d: cut at request %d, lands %s", i+1, r.nth, map[bool]string{true: "after koff gave up", false: "while koff reads"}[r.late]), func(t *testing.T) {
			st := importRound(t, r)
			cuts += st.cuts
			written += st.written
			unknown += st.unknown
			notWritten += st.notWritten
			restored += st.restored
			keysTotal += st.keys
		})
	}
	t.Logf("%d rounds: %d cut writes; topic-partitions traced against the log: %d written, %d unknown (each landed later), %d not written; after undo %d of %d keys hold their before-value",
		len(rounds), cuts, written, unknown, notWritten, restored, keysTotal)
}

type cutRound struct {
	nth  int32 // which produce request loses its answer
	late bool  // the broker appends it only after koff gave up
}

type cutStats struct{ cuts, written, unknown, notWritten, restored, keys int }

func importRound(t *testing.T, r cutRound) cutStats {
	c := newCutBroker(t)
	const keys = 1000
	before := map[string]string{}
	var file strings.Builder
	file.WriteString(`{"bulk":{"offsets":[`)
	for i := 0; i < keys; i++ {
		before[bulkKey(i)] = `{"id":111}`
		if i > 0 {
			file.WriteByte(',')
		}
		fmt.Fprintf(&file, `{"partition":{"table":"t%05d"},"offset":{"id":%d}}`, i, 9007199254740993+i)
	}
	file.WriteString(`]}}`)
	path := filepath.Join(t.TempDir(), "offsets.json")
	if err := os.WriteFile(path, []byte(file.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	c.seed(before)
	ends := map[int]int64{}
	for p := 0; p < 25; p++ {
		_, end, err := c.kafka.ReadRecords(context.Background(), model.TopicPartition{Topic: "connect-offsets", Partition: p}, 0)
		if err != nil {
			t.Fatal(err)
		}
		ends[p] = end
	}
	release := make(chan struct{})
	hold := func() { <-release }
	if !r.late {
		hold = func() { time.Sleep(time.Second) }
	}
	c.cut(kmsg.Produce, r.nth, toOffsetsTopic, hold)
	out, errs, code := c.koff("import", path, "--yes")
	close(release)
	cutTP := fmt.Sprintf("connect-offsets/%d", r.nth-1) // requests go in partition order
	ed := c.lastEdit(plan.KindImport)
	if r.late {
		var sent []string
		for p := 0; p < int(r.nth)-1; p++ {
			sent = append(sent, fmt.Sprintf("connect-offsets/%d", p))
		}
		if code != ExitUnknown || !strings.Contains(errs, "may have been written: "+cutTP+" (") {
			t.Errorf("import whose answer was lost: exit %d\n%s%s", code, out, errs)
		}
		if r.nth > 1 && r.nth < 9 && !strings.Contains(errs, "written: "+strings.Join(sent, ", ")+"; not written: ") {
			t.Errorf("the error does not name what was written: %s", errs)
		}
		if ed.Result() != audit.ResultUnknown || len(ed.UnknownSet()) != 1 || !ed.UnknownSet()[cutTP] || len(ed.WrittenSet()) != int(r.nth)-1 || len(ed.Outcome.NotWritten) != 25-int(r.nth) {
			t.Fatalf("audit: %s, written %v, unknown %v, not written %v", ed.Result(), ed.WrittenSet(), ed.UnknownSet(), ed.Outcome.NotWritten)
		}
	} else if code != ExitOK || !strings.Contains(out, "read back, NOT verified for the worker: imported 1000 partitions of bulk") || ed.Result() != audit.ResultVerified || len(ed.WrittenSet()) != 25 {
		t.Errorf("import whose answer was lost while koff read for it: exit %d, audit %s\n%s%s", code, ed.Result(), lastLine(out), errs)
	}
	// The held request lands (in a late round, after koff gave up on it).
	for i := 0; i < keys; i++ {
		if fmt.Sprintf("connect-offsets/%d", java.PartitionFor([]byte(bulkKey(i)), 25)) == cutTP {
			c.waitValue(bulkKey(i), fmt.Sprint(`{"id":`, 9007199254740993+i, `}`))
			break
		}
	}
	// Trace: each topic-partition's outcome matches the log.
	st := cutStats{cuts: int(c.cuts.Load()), keys: keys}
	unknown, written := ed.UnknownSet(), ed.WrittenSet()
	for p := 0; p < 25; p++ {
		tp := fmt.Sprintf("connect-offsets/%d", p)
		recs, _, err := c.kafka.ReadRecords(context.Background(), model.TopicPartition{Topic: "connect-offsets", Partition: p}, ends[p])
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case written[tp] || unknown[tp]:
			if len(recs) == 0 {
				t.Errorf("%s: audit says it was or may have been written, the log has no record of the import", tp)
			}
			if written[tp] {
				st.written++
			} else {
				st.unknown++
			}
		default:
			if len(recs) != 0 {
				t.Errorf("%s: audit says not written, the log has %d records", tp, len(recs))
			}
			st.notWritten++
		}
	}
	out, errs, code = c.koff("undo", "bulk", "--yes")
	if code != ExitOK || !strings.Contains(out, "read back, NOT verified for the worker: undid the import of bulk:") {
		t.Fatalf("undo: exit %d\n%s%s", code, out, errs)
	}
	now := c.inForce()
	for k, v := range before {
		if now[k] != v {
			t.Errorf("after undo %s holds %s, want %s", k, now[k], v)
		} else {
			st.restored++
		}
	}
	return st
}

func lastLine(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return l[len(l)-1]
}

// A partition reset (a tombstone) whose answer is lost and which lands
// late is unknown; undo writes the value back.
func TestAResetWhoseAnswerIsLostIsUnknownAndUndone(t *testing.T) {
	c := newCutBroker(t)
	c.seed(map[string]string{bulkKey(0): `{"id":7}`, bulkKey(1): `{"id":8}`})
	release := make(chan struct{})
	c.cut(kmsg.Produce, 1, toOffsetsTopic, func() { <-release })
	out, errs, code := c.koff("reset", "bulk", "--yes", "--partition", `{"table":"t00000"}`)
	close(release)
	tp := fmt.Sprintf("connect-offsets/%d", java.PartitionFor([]byte(bulkKey(0)), 25))
	if code != ExitUnknown || !strings.Contains(errs, "may have been written: "+tp+" (") || strings.Contains(errs, "written: none") {
		t.Errorf("reset whose answer was lost: exit %d\n%s%s", code, out, errs)
	}
	if ed := c.lastEdit(plan.KindReset); ed.Result() != audit.ResultUnknown || !ed.UnknownSet()[tp] {
		t.Errorf("audit: %s, unknown %v", ed.Result(), ed.UnknownSet())
	}
	c.waitValue(bulkKey(0), "")
	out, errs, code = c.koff("undo", "bulk", "--yes")
	if code != ExitOK || c.inForce()[bulkKey(0)] != `{"id":7}` || c.inForce()[bulkKey(1)] != `{"id":8}` {
		t.Errorf("undo: exit %d, %v\n%s%s", code, c.inForce(), out, errs)
	}
}

// A sink's group commit whose answer is lost, applied by the coordinator
// after koff gave up polling the group, may have been written: exit 3,
// audit outcome unknown for the group, and undo puts the offsets the group
// held before back.
func TestASinkCommitWhoseAnswerIsLostIsUnknownAndUndone(t *testing.T) {
	c := newCutBroker(t)
	if err := c.broker.CreateTopic("orders", 2, nil); err != nil {
		t.Fatal(err)
	}
	var recs []store.Record
	for i := 0; i < 10; i++ {
		recs = append(recs, store.Record{Topic: "orders", Partition: i % 2, Key: []byte(fmt.Sprint(i)), Value: []byte("x"), Time: time.Now()})
	}
	if err := c.kafka.WriteRecords(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	o0, o1 := model.TopicPartition{Topic: "orders", Partition: 0}, model.TopicPartition{Topic: "orders", Partition: 1}
	if err := c.kafka.CommitGroupOffsets(context.Background(), "connect-s3", map[model.TopicPartition]int64{o0: 4, o1: 3}); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	c.cut(kmsg.OffsetCommit, 1, func(kmsg.Request) bool { return true }, func() { <-release })
	out, errs, code := c.koff("set", "s3", "--to-earliest", "--yes")
	close(release)
	if code != ExitUnknown || !strings.Contains(errs, "may have been written: the commit to group connect-s3") {
		t.Errorf("sink commit whose answer was lost: exit %d\n%s%s", code, out, errs)
	}
	ed := c.lastEdit(plan.KindSet)
	if ed.Result() != audit.ResultUnknown || !ed.UnknownSet()["group connect-s3"] {
		t.Errorf("audit: %s, unknown %v", ed.Result(), ed.UnknownSet())
	}
	committed := func() string {
		polls, err := c.kafka.GroupPolls(context.Background(), []string{"connect-s3"})
		if err != nil || len(polls) != 1 {
			t.Fatalf("poll connect-s3: %v %d", err, len(polls))
		}
		m := map[model.TopicPartition]int64{}
		for _, gp := range polls[0].Partitions {
			m[gp.TopicPartition] = gp.Committed
		}
		return fmt.Sprint(m[o0], m[o1])
	}
	deadline := time.Now().Add(20 * time.Second)
	for committed() != "0 0" {
		if time.Now().After(deadline) {
			t.Fatalf("the held commit never landed: %s", committed())
		}
		time.Sleep(50 * time.Millisecond)
	}
	out, errs, code = c.koff("undo", "s3", "--yes")
	if got := committed(); code != ExitOK || got != "4 3" {
		t.Errorf("undo: exit %d, group holds %s\n%s%s", code, got, out, errs)
	}
}

// A REST PATCH that Connect answers "500 Request timed out" and applies
// after koff gave up reading for it may have been written: exit 3, audit
// outcome unknown; once Connect applied it, undo puts the offset back.
func TestARESTEditAppliedLateIsUnknownAndUndone(t *testing.T) {
	dc := demoCluster(t)
	faults, err := faultproxy.NewREST(dc.ConnectURL())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(faults)
	t.Cleanup(srv.Close)
	flags := []string{"-b", dc.Bootstrap(), "--connect-url", srv.URL}
	auditLog := filepath.Join(t.TempDir(), "audit.jsonl")
	if _, errs, code := koff(t, append([]string{"stop", "jdbc-shop"}, flags...)...); code != 0 {
		t.Fatal(errs)
	}
	part := `{"protocol":"1","table":"shop.public.orders"}`
	offsetOf := func() string {
		out, errs, code := koff(t, append([]string{"get", "jdbc-shop", "-o", "json"}, flags...)...)
		if code != 0 {
			t.Fatal(errs)
		}
		var got struct {
			Offsets []struct {
				Partition json.RawMessage `json:"partition"`
				Offset    json.RawMessage `json:"offset"`
			} `json:"offsets"`
		}
		dec := json.NewDecoder(strings.NewReader(out))
		dec.UseNumber()
		_ = dec.Decode(&got)
		for _, o := range got.Offsets {
			if strings.Contains(string(o.Partition), "shop.public.orders") {
				return string(o.Offset)
			}
		}
		return ""
	}
	before := offsetOf()
	faults.Set(faultproxy.RESTLate, "PATCH", "/connectors")
	out, errs, code := koff(t, append([]string{"set", "jdbc-shop", "--yes", "--partition", part, "--offset", `{"incrementing":9007199254740993}`, "--audit-log", auditLog}, flags...)...)
	if code != ExitUnknown || !strings.Contains(errs, "may have been written: connect-offsets/") || !strings.Contains(errs, "Request timed out") {
		t.Errorf("PATCH answered 500 and held: exit %d\n%s%s", code, out, errs)
	}
	ed := (func() audit.Edit {
		edits, _ := (&audit.Log{Path: auditLog}).Edits()
		return edits[len(edits)-1]
	})()
	if ed.Result() != audit.ResultUnknown || len(ed.UnknownSet()) != 1 {
		t.Errorf("audit: %s, unknown %v", ed.Result(), ed.UnknownSet())
	}
	faults.Set(faultproxy.RESTPass, "", "")
	if codes, err := faults.ReleaseLate(); err != nil || len(codes) != 1 || codes[0] != 200 {
		t.Fatalf("the held PATCH: %v %v", codes, err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for offsetOf() != `{"incrementing":9007199254740993}` {
		if time.Now().After(deadline) {
			t.Fatalf("the late PATCH never showed: %s", offsetOf())
		}
		time.Sleep(100 * time.Millisecond)
	}
	out, errs, code = koff(t, append([]string{"undo", "jdbc-shop", "--yes", "--audit-log", auditLog}, flags...)...)
	if got := offsetOf(); code != ExitOK || got != before {
		t.Errorf("undo: exit %d, offset %s, want %s\n%s%s", code, got, before, out, errs)
	}
}

// A rewind (set --to-datetime) reads the topic once, its Store loaded by
// the history read and tailed on from there: a produce answer it loses is
// still told truly. Appended while koff reads for it, the record is
// verified; appended only after koff gave up, the partition may have been
// written (exit 3, audit unknown), and once it has landed undo puts the
// value before back.
func TestARewindWhoseAnswerIsLostIsToldTruly(t *testing.T) {
	for _, late := range []bool{false, true} {
		c := newCutBroker(t)
		k := bulkKey(0)
		p := java.PartitionFor([]byte(k), 25)
		tp := fmt.Sprintf("connect-offsets/%d", p)
		now := time.Now()
		if err := c.kafka.WriteRecords(context.Background(), []store.Record{
			{Topic: "connect-offsets", Partition: p, Key: []byte(k), Value: []byte(`{"id":1}`), Time: now.Add(-2 * time.Hour)},
			{Topic: "connect-offsets", Partition: p, Key: []byte(k), Value: []byte(`{"id":2}`), Time: now.Add(-time.Hour)},
		}); err != nil {
			t.Fatal(err)
		}
		release := make(chan struct{})
		hold := func() { time.Sleep(1500 * time.Millisecond) }
		if late {
			hold = func() { <-release }
		}
		c.cut(kmsg.Produce, 1, toOffsetsTopic, hold)
		out, errs, code := c.koff("set", "bulk", "--yes", "--to-datetime", now.Add(-90*time.Minute).UTC().Format(time.RFC3339))
		close(release)
		if c.cuts.Load() != 1 {
			t.Fatalf("late %v: %d requests cut", late, c.cuts.Load())
		}
		ed := c.lastEdit(plan.KindRewind)
		if !late {
			if code != ExitOK || !strings.Contains(out, "read back") || strings.Contains(out+errs, "written: none") || c.inForce()[k] != `{"id":1}` || ed.Result() != audit.ResultVerified {
				t.Errorf("a rewind whose answer was lost and whose record landed soon: exit %d, in force %s, audit %s\n%s%s", code, c.inForce()[k], ed.Result(), out, errs)
			}
			continue
		}
		if code != ExitUnknown || !strings.Contains(errs, "may have been written: "+tp+" (") || strings.Contains(errs, "written: none") || ed.Result() != audit.ResultUnknown || !ed.UnknownSet()[tp] {
			t.Errorf("a rewind whose answer was lost: exit %d, audit %s %v\n%s%s", code, ed.Result(), ed.UnknownSet(), out, errs)
		}
		c.waitValue(k, `{"id":1}`)
		out, errs, code = c.koff("undo", "bulk", "--yes")
		if code != ExitOK || c.inForce()[k] != `{"id":2}` {
			t.Errorf("undo of the rewind: exit %d, in force %s\n%s%s", code, c.inForce()[k], out, errs)
		}
	}
}
