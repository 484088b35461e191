package interop

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
)

// The cases of Apache Kafka's OffsetsApiIntegrationTest (connect-runtime)
// that concern koff, each run against the real worker: what Connect answers
// for its REST API, and what koff does for the same request, with REST and
// through the topics alone.

// TestOffsetsAPIUnknownConnector: Connect answers 404 "Connector NAME not
// found" for an unknown connector's offsets (testGetNonExistentConnectorOffsets,
// testAlterOffsetsNonExistentConnector); koff refuses get, set and reset of
// it with REST and without, in one line, and writes nothing.
func TestOffsetsAPIUnknownConnector(t *testing.T) {
	s := realStack(t)
	const name = "no-such-connector"
	if code, body := s.rest(t, "GET", "/connectors/"+name+"/offsets", nil); code != http.StatusNotFound || !strings.Contains(string(body), "Connector "+name+" not found") {
		t.Errorf("Connect's GET of an unknown connector: %d %s", code, body)
	}
	end := s.offsetsEnd(t)
	for _, args := range [][]string{
		{"get", name, "-o", "json"},
		{"set", name, "--partition", `{"filename":"/nowhere"}`, "--offset", `{"position":1}`, "--yes"},
		{"reset", name, "--yes"},
	} {
		for _, how := range []func(...string) []string{s.withTopic, s.withREST} {
			a := how(args...)
			out, errs, code := koff(t, a...)
			if code == 0 || strings.Count(strings.TrimSpace(errs), "\n") > 0 || !strings.Contains(errs, name) {
				t.Errorf("koff %s: exit %d, want one line naming %s on stderr and a non-zero exit\nstdout: %s\nstderr: %s", strings.Join(a, " "), code, name, out, errs)
			}
		}
	}
	if got := s.offsetsEnd(t); got != end {
		t.Errorf("the offsets topic grew from %d to %d records: koff wrote for an unknown connector", end, got)
	}
}

// offsetsEnd is the sum of the workers' offsets topic's log-end offsets.
func (s *Stack) offsetsEnd(t *testing.T) int64 {
	t.Helper()
	var n int64
	for p := range 25 {
		n += s.endOffset(t, "connect-offsets", p)
	}
	return n
}

// TestOffsetsAPINotStopped: Connect refuses to alter or reset the offsets of
// a RUNNING and of a PAUSED connector with 400
// (testAlterOffsetsNonStoppedConnector; AbstractHerder checks the target
// state); so does koff, with REST and without it (from the target state in
// the config topic), and it writes nothing.
func TestOffsetsAPINotStopped(t *testing.T) {
	s := realStack(t)
	const name = "api-running"
	path := s.writeFile(t, name+".txt", lines(name, 1, 3))
	s.createConnector(t, name, fileSource(path, name+"-out"))
	s.waitOffset(t, name, fmt.Sprintf(`{"filename":%q} => {"position":%d}`, path, fileSize(t, path)))
	partition := fmt.Sprintf(`{"filename":%q}`, path)
	body := map[string]any{"offsets": []map[string]any{{"partition": map[string]any{"filename": path}, "offset": map[string]any{"position": 1}}}}
	// Without REST koff decides by the target state in the config topic
	// (STARTED for a running connector), with REST by its status too.
	for _, st := range []struct{ state, target string }{{"RUNNING", "STARTED"}, {"PAUSED", "PAUSED"}} {
		state := st.state
		if state == "PAUSED" {
			s.mustREST(t, http.StatusAccepted, "PUT", "/connectors/"+name+"/pause", nil)
			s.waitState(t, name, "PAUSED")
		}
		if code, resp := s.rest(t, "PATCH", "/connectors/"+name+"/offsets", body); code != http.StatusBadRequest {
			t.Errorf("Connect's PATCH of a %s connector: %d %s, want 400", state, code, resp)
		}
		if code, resp := s.rest(t, "DELETE", "/connectors/"+name+"/offsets", nil); code != http.StatusBadRequest {
			t.Errorf("Connect's DELETE of a %s connector: %d %s, want 400", state, code, resp)
		}
		end := s.offsetsEnd(t)
		for _, args := range [][]string{
			{"set", name, "--partition", partition, "--offset", `{"position":1}`, "--yes"},
			{"reset", name, "--yes"},
		} {
			for _, how := range []struct {
				args func(...string) []string
				word string
			}{{s.withTopic, st.target}, {s.withREST, state}} {
				a := how.args(args...)
				out, errs, code := koff(t, a...)
				if code == 0 || !strings.Contains(errs, how.word) {
					t.Errorf("koff %s of a %s connector: exit %d, want a refusal naming its state %s\nstdout: %s\nstderr: %s", strings.Join(a, " "), state, code, how.word, out, errs)
				}
			}
		}
		if got := s.offsetsEnd(t); got != end {
			t.Errorf("%s: the offsets topic grew from %d to %d records: koff wrote to a connector that was not stopped", state, end, got)
		}
	}
}

// TestOffsetsAPIPatchAndDelete: PATCH alters only the partitions it lists
// and never removes the others; "offset": null removes one partition; a
// second DELETE of a stopped connector's offsets succeeds (reset is
// idempotent). koff's set and reset through REST do the same, and koff's
// second reset says there is nothing left and exits 0.
func TestOffsetsAPIPatchAndDelete(t *testing.T) {
	s := realStack(t)
	const name, src = "api-patch", "api-patch-a"
	s.createTopic(t, src, 2)
	s.produce(t, src, 0, "a0", "a1", "a2")
	s.produce(t, src, 1, "b0", "b1")
	s.createConnector(t, name, s.mirrorSource(src))
	p0 := fmt.Sprintf(`{"cluster":"src","partition":0,"topic":%q}`, src)
	p1 := fmt.Sprintf(`{"cluster":"src","partition":1,"topic":%q}`, src)
	s.waitOffset(t, name, p0+` => {"offset":2}`)
	s.waitOffset(t, name, p1+` => {"offset":1}`)
	s.stop(t, name)

	// MirrorSourceConnector also copies every heartbeats topic it finds
	// (another test's MirrorHeartbeatConnector makes one): only this
	// topic's partitions are the test's.
	mine := func() []string {
		var out []string
		for _, e := range canonical(t, s.connectOffsets(t, name)) {
			if strings.Contains(e, `"topic":"`+src+`"`) {
				out = append(out, e)
			}
		}
		return out
	}
	mustKoff(t, s.withREST("set", name, "--partition", p0, "--offset", `{"offset":0}`, "--yes")...)
	want := []string{canonicalEntry(t, p0+` => {"offset":0}`), canonicalEntry(t, p1+` => {"offset":1}`)}
	if got := mine(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after koff set of one partition through REST, Connect's GET:\n%s\nwant the other partition kept:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	mustKoff(t, s.withREST("reset", name, "--partition", p0, "--yes")...)
	want = want[1:]
	if got := mine(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after koff reset of one partition through REST (offset null), Connect's GET:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	mustKoff(t, s.withREST("reset", name, "--yes")...)
	if got := canonical(t, s.connectOffsets(t, name)); len(got) != 0 {
		t.Errorf("after koff reset through REST, Connect's GET: %v", got)
	}
	if code, body := s.rest(t, "DELETE", "/connectors/"+name+"/offsets", nil); code != http.StatusOK {
		t.Errorf("Connect's second DELETE: %d %s, want 200 (reset is idempotent)", code, body)
	}
	for _, how := range []func(...string) []string{s.withTopic, s.withREST} {
		a := how("reset", name, "--yes")
		out, errs, code := koff(t, a...)
		if code != 0 {
			t.Errorf("koff %s of a connector with no offsets left: exit %d, want 0 as Connect's second DELETE\nstdout: %s\nstderr: %s", strings.Join(a, " "), code, out, errs)
		}
	}
}

// TestOffsetsAPIInvalidSinkBodies: the sink offsets Connect's
// SinkUtils.parseSinkConnectorOffsets refuses with 400
// (testAlterSinkConnectorOffsetsInvalidRequestBody) are refused by koff
// before anything is sent, in Connect's words; the forms Connect accepts
// ("0" and "2" as strings) koff accepts too.
func TestOffsetsAPIInvalidSinkBodies(t *testing.T) {
	s := realStack(t)
	const name = "api-sink-bodies"
	in := name + "-in"
	s.createTopic(t, in, 1)
	s.produce(t, in, 0, `"r0"`, `"r1"`, `"r2"`)
	s.createConnector(t, name, fileSink(s.FilesDir+"/"+name+".txt", in))
	waitFor(t, 90*time.Second, name+" committed", func() (bool, string) {
		got := canonical(t, s.connectOffsets(t, name))
		return len(got) == 1 && strings.HasSuffix(got[0], `{"kafka_offset":3}`), strings.Join(got, "\n")
	})
	s.stop(t, name)
	for _, c := range []struct {
		partition, offset, says string
	}{
		{`{}`, `{"kafka_offset":1}`, "must contain the keys 'kafka_topic' and 'kafka_partition'"},
		{`{"kafka_topic":"` + in + `","kafka_partition":"not a number"}`, `{"kafka_offset":1}`, "Partition values for sink connectors need to be integers"},
		{`{"kafka_topic":"` + in + `","kafka_partition":0}`, `{}`, "should either be null or contain the key 'kafka_offset'"},
		{`{"kafka_topic":"` + in + `","kafka_partition":0}`, `{"kafka_offset":"not a number"}`, "Offset values for sink connectors need to be integers"},
	} {
		body := `{"offsets":[{"partition":` + c.partition + `,"offset":` + c.offset + `}]}`
		code, resp := s.restOnce(t, "PATCH", "/connectors/"+name+"/offsets", true, []byte(body))
		if code != http.StatusBadRequest || !strings.Contains(string(resp), c.says) {
			t.Errorf("Connect's PATCH %s: %d %s, want 400 saying %q", body, code, resp, c.says)
		}
		for _, how := range []func(...string) []string{s.withTopic, s.withREST} {
			a := how("set", name, "--partition", c.partition, "--offset", c.offset, "--yes")
			out, errs, code := koff(t, a...)
			if code == 0 || !strings.Contains(errs, c.says) {
				t.Errorf("koff %s: exit %d, want a refusal saying %q\nstdout: %s\nstderr: %s", strings.Join(a, " "), code, c.says, out, errs)
			}
		}
	}
	// Numbers as strings, which Connect parses (Integer.parseInt and
	// Long.parseLong of their text).
	mustKoff(t, s.withREST("set", name, "--partition", `{"kafka_topic":"`+in+`","kafka_partition":"0"}`, "--offset", `{"kafka_offset":"2"}`, "--yes")...)
	if got := canonical(t, s.connectOffsets(t, name)); len(got) != 1 || !strings.HasSuffix(got[0], `{"kafka_offset":2}`) {
		t.Errorf("after koff set with numbers as strings, Connect's GET: %v", got)
	}
}

// tombstonesSince are the keys of the tombstones appended to topic after
// the records before (read_committed), as "partition:key".
func (s *Stack) tombstonesSince(t *testing.T, topic string, before []offsetRecord) []string {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range before {
		seen[fmt.Sprintf("%d/%d", r.Partition, r.Offset)] = true
	}
	var out []string
	for _, r := range s.offsetsTopic(t, topic) {
		if !seen[fmt.Sprintf("%d/%d", r.Partition, r.Offset)] && r.Value == nil {
			out = append(out, fmt.Sprintf("%d:%s", r.Partition, r.Key))
		}
	}
	sort.Strings(out)
	return out
}

// TestOffsetsAPIExactlyOnceTombstones: resetting the offsets of a connector
// with its own offsets topic on an exactly-once worker puts a tombstone
// under the task's key in its own topic and in the workers' topic (KIP-618:
// ConnectorOffsetBackingStore#set writes tombstones to both, so that no
// read of either finds the offset). Connect 4.1.1's own REST DELETE of such
// a connector fails: setPrimaryThenSecondary sends the second tombstone
// from the first write's callback, outside the task's transaction
// ("Cannot add partition … to transaction while in state READY"), and the
// request times out after 90 s with one topic written (seen on this worker
// with Debezium). So koff's reset, even with REST, writes both tombstones
// itself, says why, and the task starts over.
func TestOffsetsAPIExactlyOnceTombstones(t *testing.T) {
	s := realStack(t)
	const name, own = "api-eos", "api-eos-offsets"
	path := s.writeFile(t, name+".txt", lines(name, 1, 4))
	cfg := fileSource(path, name+"-out")
	cfg["offsets.storage.topic"] = own
	cfg["exactly.once.support"] = "required"
	s.createConnector(t, name, cfg)
	s.waitOffset(t, name, fmt.Sprintf(`{"filename":%q} => {"position":%d}`, path, fileSize(t, path)))
	s.stop(t, name)
	key := fmt.Sprintf(`["%s",{"filename":%q}]`, name, path) // as the task writes it
	w, c := s.offsetsTopic(t, "connect-offsets"), s.offsetsTopic(t, own)
	out := mustKoff(t, s.withREST("reset", name, "--yes")...)
	t.Logf("koff reset:\n%s", out)
	if !strings.Contains(out, "its own offsets topic fails on an exactly-once worker") {
		t.Errorf("the plan does not say why it writes the tombstones itself:\n%s", out)
	}
	for _, topic := range []struct {
		name   string
		before []offsetRecord
	}{{"connect-offsets", w}, {own, c}} {
		got := s.tombstonesSince(t, topic.name, topic.before)
		if len(got) != 1 || !strings.HasSuffix(got[0], ":"+key) {
			t.Errorf("tombstones koff wrote to %s: %v, want one under the task's key %s", topic.name, got, key)
		}
	}
	if got := canonical(t, s.connectOffsets(t, name)); len(got) != 0 {
		t.Errorf("after koff reset, Connect's GET: %v", got)
	}
	from := s.endOffset(t, name+"-out", 0)
	s.resume(t, name)
	got := s.readUntil(t, name+"-out", 0, from, 90*time.Second, func(rs []record) bool {
		n := 0
		for _, r := range rs {
			if len(r.Value) > 0 && r.Value[0] != 0 {
				n++
			}
		}
		return n >= 4
	})
	for _, r := range got {
		if len(r.Value) > 0 && r.Value[0] != 0 {
			if line := lineText(t, r.Value); line != name+"-1" {
				t.Errorf("after koff reset the task resumed at %q, want the file's first line again", line)
			}
			break
		}
	}
}

// TestOffsetsAPISinkGroupOverride: a sink with consumer.override.group.id
// (testGetSinkConnectorOffsetsOverriddenConsumerGroupId and the alter and
// reset cases): koff get equals Connect's GET, and koff set and reset, with
// REST and without it (the config topic names the group), change that
// group's offsets, never connect-NAME's.
func TestOffsetsAPISinkGroupOverride(t *testing.T) {
	s := realStack(t)
	const name, group = "api-sink-group", "api-custom-group"
	in := name + "-in"
	s.createTopic(t, in, 1)
	s.produce(t, in, 0, `"r0"`, `"r1"`, `"r2"`, `"r3"`)
	cfg := fileSink(s.FilesDir+"/"+name+".txt", in)
	cfg["consumer.override.group.id"] = group
	s.createConnector(t, name, cfg)
	waitFor(t, 90*time.Second, name+" committed", func() (bool, string) {
		got := canonical(t, s.connectOffsets(t, name))
		return len(got) == 1 && strings.HasSuffix(got[0], `{"kafka_offset":4}`), strings.Join(got, "\n")
	})
	s.sameAsConnect(t, name)
	s.stop(t, name)
	partition := `{"kafka_topic":"` + in + `","kafka_partition":0}`
	for i, how := range []func(...string) []string{s.withTopic, s.withREST} {
		want := fmt.Sprintf(`{"kafka_offset":%d}`, i+1)
		out := mustKoff(t, how("set", name, "--partition", partition, "--offset", want, "--yes")...)
		if !strings.Contains(out, group) && i == 0 {
			t.Errorf("the plan of a direct sink edit does not name the group %s:\n%s", group, out)
		}
		if got := canonical(t, s.connectOffsets(t, name)); len(got) != 1 || !strings.HasSuffix(got[0], want) {
			t.Errorf("after koff set: Connect's GET %v, want %s", got, want)
		}
	}
	// connect-NAME never got a commit.
	c := &kafka.Client{Addr: kafka.TCP(s.Bootstrap), Timeout: 10 * time.Second}
	res, err := c.OffsetFetch(context.Background(), &kafka.OffsetFetchRequest{GroupID: "connect-" + name, Topics: map[string][]int{in: {0}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Topics[in] {
		if p.CommittedOffset >= 0 {
			t.Errorf("koff committed %d to connect-%s, not to the sink's group %s", p.CommittedOffset, name, group)
		}
	}
	for _, how := range []func(...string) []string{s.withTopic, s.withREST} {
		mustKoff(t, how("reset", name, "--yes")...)
		if got := canonical(t, s.connectOffsets(t, name)); len(got) != 0 {
			t.Errorf("after koff reset: Connect's GET %v, want none", got)
		}
		s.resume(t, name)
		waitFor(t, 90*time.Second, name+" committed again", func() (bool, string) {
			got := canonical(t, s.connectOffsets(t, name))
			return len(got) == 1 && strings.HasSuffix(got[0], `{"kafka_offset":4}`), strings.Join(got, "\n")
		})
		s.stop(t, name)
	}
}
