package interop

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"koff/model"
)

// produceOffset writes one record to a partition of connect-offsets by
// hand, as an operator with kcat would.
func (s *Stack) produceOffset(t *testing.T, partition int, key, value string) {
	t.Helper()
	s.produceRecords(t, "connect-offsets", partition, kafka.Record{Key: kafka.NewBytes([]byte(key)), Value: kafka.NewBytes([]byte(value))})
}

// getValue is the offset koff get NAME -o json shows for the partition
// whose canonical form is partition ("" when none).
func getValue(t *testing.T, out, partition string) string {
	t.Helper()
	var b offsetsBody
	decode(t, []byte(out), &b)
	for _, e := range canonical(t, b) {
		p, o, _ := strings.Cut(e, " => ")
		if p == partition {
			return o
		}
	}
	return ""
}

// TestHandWrittenKeys: keys the worker never reads, written by hand to
// connect-offsets — another field order, spaces, another escaping — and
// the task's own key bytes in the wrong partition. The truth is where the
// real task continues after resume. OffsetStorageReaderImpl looks up the
// bytes JsonConverter writes for the task's own partition map, in a
// KafkaOffsetBackingStore keyed by raw bytes. With
// exactly.once.source.support=enabled every task start builds its own
// store (Worker.offsetStoreForExactlyOnceSourceTask), which reads the topic
// from the start (KafkaBasedLog.start): of the same bytes in two
// partitions it keeps the copy its consumer hands over last, in
// java.util.HashMap order of TopicPartition (model.ReadAfter), not the
// newer one.
func TestHandWrittenKeys(t *testing.T) {
	s := realStack(t)

	t.Run("FileStreamSource", func(t *testing.T) {
		f := s.newFileConnector(t, "keys-file", 10)
		s.stop(t, f.name)
		canon := fmt.Sprintf(`["%s",{"filename":"%s"}]`, f.name, f.path)
		home := model.PartitionFor([]byte(canon), 25)
		after := -1 // a wrong partition a starting task reads after home
		for p := range 25 {
			if p != home && model.ReadAfter("connect-offsets", p, home, 25) {
				after = p
				break
			}
		}
		spaced := fmt.Sprintf(`["%s", {"filename": "%s"}]`, f.name, f.path)
		escaped := fmt.Sprintf(`["%s",{"filename":"%s"}]`, f.name, strings.ReplaceAll(f.path, "/", `\/`))
		s.produceOffset(t, model.PartitionFor([]byte(spaced), 25), spaced, f.position(2))
		s.produceOffset(t, model.PartitionFor([]byte(escaped), 25), escaped, f.position(3))
		s.produceOffset(t, after, canon, f.position(6))

		partition := canonicalEntry(t, f.partition()+` => {}`)
		partition, _, _ = strings.Cut(partition, " => ")
		shown := getValue(t, mustKoff(t, s.withTopic("get", f.name, "-o", "json")...), partition)
		table := mustKoff(t, s.withTopic("get", f.name)...)
		t.Logf("koff get %s:\n%s", f.name, table)

		// Spaces and \/ are other keys the task never reads; of its own
		// bytes it reads the copy in the wrong partition, read after home.
		got := f.resumeAndNext(t)
		if got != f.name+"-6" {
			t.Fatalf("the real task continued with %q; the copy of its key in connect-offsets/%d was expected to leave it at line 6", got, after)
		}
		if shown != f.position(6) {
			t.Errorf("koff get shows %s for %s; the real task resumed from %s", shown, f.partition(), f.position(6))
		}
		for _, flagged := range []string{`{"filename": "`, `\/`, "non-canonical,stray", "duplicate,misplaced", "more than one partition"} {
			if !strings.Contains(table, flagged) {
				t.Errorf("koff get does not show %s:\n%s", flagged, table)
			}
		}

		// The task goes on to the end of its file and commits that to its
		// home partition: now the newer copy. A restart still reads the
		// copy in the wrong partition last and goes back to line 6, and
		// koff says so.
		f.waitHome(t, home, len(f.content))
		s.stop(t, f.name)
		shown = getValue(t, mustKoff(t, s.withTopic("get", f.name, "-o", "json")...), partition)
		// Connect's GET reads the topic afresh too, and agrees.
		if c := canonical(t, s.connectOffsets(t, f.name)); !slices.Contains(c, canonicalEntry(t, f.partition()+" => "+f.position(6))) {
			t.Errorf("Connect's GET offsets shows %s; koff and the task read %s", strings.Join(c, "; "), f.position(6))
		}
		if got := f.resumeAndNext(t); got != f.name+"-6" {
			t.Fatalf("after a commit of the end of the file to connect-offsets/%d, the real task continued with %q; the older copy in connect-offsets/%d was expected to win again", home, got, after)
		}
		if shown != f.position(6) {
			t.Errorf("with a newer commit in connect-offsets/%d, koff get shows %s; the restarted task read %s from connect-offsets/%d", home, shown, f.position(6), after)
		}

		// An edit moves the real task: koff writes every copy of the bytes.
		f.waitHome(t, home, len(f.content))
		s.stop(t, f.name)
		mustKoff(t, s.withTopic("set", f.name, "--partition", f.partition(), "--offset", f.position(8), "--yes")...)
		if got := f.resumeAndNext(t); got != f.name+"-8" {
			t.Errorf("after koff set to line 8 the real task continued with %q", got)
		}
	})

	t.Run("FieldOrder", func(t *testing.T) {
		name, out := "keys-shapes", "keys-shapes-out"
		s.createConnector(t, name, shapesConfig(out, 2))
		s.waitOffset(t, name, `{"shard":3,"primary":true,"weight":0.5} => {"seq":2,"lsn":9007199254740995,"ratio":0.5,"done":true}`)
		s.stop(t, name)
		// The order REST writes (Java HashMap: zone, account), not the
		// task's (account, zone).
		hashOrder := fmt.Sprintf(`["%s",{"zone":"eu-west","account":7}]`, name)
		s.produceOffset(t, model.PartitionFor([]byte(hashOrder), 25), hashOrder, `{"seq":50,"lsn":9007199254741043,"ratio":12.5,"done":true}`)

		partition := canonicalEntry(t, `{"zone":"eu-west","account":7} => {}`)
		partition, _, _ = strings.Cut(partition, " => ")
		shown := getValue(t, mustKoff(t, s.withTopic("get", name, "-o", "json")...), partition)
		table := mustKoff(t, s.withTopic("get", name)...)
		t.Logf("koff get %s:\n%s", name, table)

		from := s.endOffset(t, out, 0)
		s.resume(t, name)
		resumed := s.shapesResumed(t, out, "ordered", from)
		want := `{"seq":2,"lsn":9007199254740995,"ratio":0.5,"done":true}`
		if normJSON(t, resumed) != normJSON(t, want) {
			t.Fatalf("the real task resumed the ordered partition from %s; its own key holds %s", resumed, want)
		}
		if normJSON(t, shown) != normJSON(t, want) {
			t.Errorf("koff get shows %s for the ordered partition; the real task resumed from %s", shown, want)
		}
		if !strings.Contains(table, `{"zone":"eu-west","account":7}`) {
			t.Errorf("koff get does not list the hand-written key in the other field order:\n%s", table)
		}

		// An edit written by koff moves the real task: koff writes the
		// task's own key bytes, not the HashMap order.
		s.stop(t, name)
		from = s.endOffset(t, out, 0)
		edit := `{"seq":70,"lsn":9007199254741063,"ratio":17.5,"done":false}`
		mustKoff(t, s.withTopic("set", name, "--partition", `{"zone":"eu-west","account":7}`, "--offset", edit, "--yes")...)
		s.resume(t, name)
		if got := s.shapesResumed(t, out, "ordered", from); normJSON(t, got) != normJSON(t, edit) {
			t.Errorf("after koff set the real task resumed the ordered partition from %s, want %s", got, edit)
		}
	})
}

// waitHome waits until the task has committed position to its key in
// connect-offsets/home, read from the topic (with another copy of the key
// elsewhere, Connect's GET may show that one).
func (f *fileConnector) waitHome(t *testing.T, home, position int) {
	t.Helper()
	key := fmt.Sprintf(`["%s",{"filename":"%s"}]`, f.name, f.path)
	want := fmt.Sprintf(`{"position":%d}`, position)
	f.s.readUntil(t, "connect-offsets", home, 0, 60*time.Second, func(rs []record) bool {
		return len(rs) > 0 && string(rs[len(rs)-1].Key) == key && string(rs[len(rs)-1].Value) == want
	})
}
