package interop

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"koff/model"
	"koff/model/java"
)

// produceOffset writes one record to a partition of connect-offsets by
// hand, as an operator with kcat would.
func (s *Stack) produceOffset(t *testing.T, partition int, key, value string) {
	t.Helper()
	s.produceRecords(t, "connect-offsets", partition, rawRecord{[]byte(key), []byte(value)})
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

	t.Run("SpacesAndEscaping", func(t *testing.T) {
		f := s.newFileConnector(t, "keys-spaces", 10)
		s.stop(t, f.name)
		spaced := fmt.Sprintf(`["%s", {"filename": "%s"}]`, f.name, f.path)
		escaped := fmt.Sprintf(`["%s",{"filename":"%s"}]`, f.name, strings.ReplaceAll(f.path, "/", `\/`))
		s.produceOffset(t, java.PartitionFor([]byte(spaced), 25), spaced, f.position(2))
		s.produceOffset(t, java.PartitionFor([]byte(escaped), 25), escaped, f.position(3))
		f.append(t, 11)
		table := mustKoff(t, s.withTopic("get", f.name)...)
		t.Logf("koff get %s:\n%s", f.name, table)
		shown := getValue(t, mustKoff(t, s.withTopic("get", f.name, "-o", "json")...), f.canonicalPartition(t))
		// Spaces and \/ make other keys, which the task never reads: it
		// continues after line 10, with the line appended while stopped.
		if got := f.resumeAndNext(t); got != f.name+"-11" {
			t.Fatalf("the real task continued with %q; the hand-written keys were expected to leave it after line 10", got)
		}
		if shown != f.position(11) {
			t.Errorf("koff get shows %s for %s; the real task resumed from %s", shown, f.partition(), f.position(11))
		}
		for _, flagged := range []string{`{"filename": "`, `\/`, "non-canonical,stray", "the key has whitespace", "escaping"} {
			if !strings.Contains(table, flagged) {
				t.Errorf("koff get does not show %s:\n%s", flagged, table)
			}
		}
	})

	// The task's own key bytes in the wrong partition of a connector's own
	// offsets topic, small enough to come in one poll: koff's read order
	// (model.ReadAfter) is exactly the consumer's, and a copy read after
	// the task's own partition wins, however old.
	t.Run("WrongPartition", func(t *testing.T) {
		own := "keys-wrong-offsets"
		name := s.fileConnectorNameFor(t, "keys-wrong", func(home int) bool { return readAfterHome(own, home) >= 0 })
		f := s.newFileConnectorWith(t, name, 10, map[string]string{"offsets.storage.topic": own})
		s.stop(t, f.name)
		topics := []string{"--offsets-topic", "connect-offsets", "--offsets-topic", own}
		c := &kafka.Client{Addr: kafka.TCP(s.Bootstrap), Timeout: 10 * time.Second}
		if n := len(s.waitLeaders(t, c, own, 0)); n != 25 {
			t.Fatalf("the worker created %s with %d partitions, not offset.storage.partitions=25", own, n)
		}
		canon := f.key()
		home := java.PartitionFor([]byte(canon), 25)
		after := readAfterHome(own, home)
		s.produceRecords(t, own, after, rawRecord{[]byte(canon), []byte(f.position(6))})
		// A line appended while stopped tells the two copies apart: the
		// task's own one continues with line 11, the hand-written with 6.
		f.append(t, 11)
		// With REST koff knows the connector's own topic, and that its
		// copies in connect-offsets are secondary.
		withBoth := func(args ...string) []string { return s.withREST(s.withTopic(append(args, topics...)...)...) }
		get := func() (string, string) {
			table := mustKoff(t, withBoth("get", f.name)...)
			return getValue(t, mustKoff(t, withBoth("get", f.name, "-o", "json")...), f.canonicalPartition(t)), table
		}
		shown, table := get()
		t.Logf("koff get %s:\n%s", f.name, table)
		if got := f.resumeAndNext(t); got != f.name+"-6" {
			t.Fatalf("the real task continued with %q; the copy of its key in %s/%d was expected to leave it at line 6", got, own, after)
		}
		if shown != f.position(6) {
			t.Errorf("koff get shows %s for %s; the real task resumed from %s", shown, f.partition(), f.position(6))
		}
		for _, flagged := range []string{"duplicate,misplaced", "more than one partition"} {
			if !strings.Contains(table, flagged) {
				t.Errorf("koff get does not show %s:\n%s", flagged, table)
			}
		}

		// The task goes on to the end of its file and commits that to its
		// home partition: now the newer copy. A restart still reads the
		// copy in the wrong partition last and goes back to line 6, and
		// koff says so; Connect's GET, which reads the topic afresh, too.
		s.waitKey(t, own, home, canon, f.position(12))
		s.stop(t, f.name)
		f.append(t, 12)
		shown, _ = get()
		if c := canonical(t, s.connectOffsets(t, f.name)); !slices.Contains(c, canonicalEntry(t, f.partition()+" => "+f.position(6))) {
			t.Errorf("Connect's GET offsets shows %s; koff and the task read %s", strings.Join(c, "; "), f.position(6))
		}
		if got := f.resumeAndNext(t); got != f.name+"-6" {
			t.Fatalf("after a commit of the end of the file to %s/%d, the real task continued with %q; the older copy in %s/%d was expected to win again", own, home, got, own, after)
		}
		if shown != f.position(6) {
			t.Errorf("with a newer commit in %s/%d, koff get shows %s; the restarted task read %s from %s/%d", own, home, shown, f.position(6), own, after)
		}

		// An edit moves the real task: koff writes every copy of the bytes.
		s.waitKey(t, own, home, canon, f.position(13))
		s.stop(t, f.name)
		mustKoff(t, withBoth("set", f.name, "--partition", f.partition(), "--offset", f.position(8), "--yes")...)
		if got := f.resumeAndNext(t); got != f.name+"-8" {
			t.Errorf("after koff set to line 8 the real task continued with %q", got)
		}
	})

	// A connector's own offsets topic of more than max.poll.records: the
	// fresh read takes two polls, and the copy in the later poll wins even
	// where one poll's HashMap order (of the three partitions with records:
	// 16 buckets) would put it first. Two layouts make the rules disagree,
	// in the fetch response's order: home, 300 filler records, then 300
	// more and the hand-written copy, which lands in the second poll and
	// wins; or the copy after 300 filler records, 300 more, then home, whose
	// records land in the second poll and win.
	t.Run("WrongPartitionInAnotherPoll", func(t *testing.T) {
		own := "keys-polls-offsets"
		name := s.fileConnectorNameFor(t, "keys-polls", func(home int) bool { f, _, _ := pollLayout(own, home); return f >= 0 })
		f := s.newFileConnectorWith(t, name, 10, map[string]string{"offsets.storage.topic": own})
		s.stop(t, f.name)
		c := &kafka.Client{Addr: kafka.TCP(s.Bootstrap), Timeout: 10 * time.Second}
		if n := len(s.waitLeaders(t, c, own, 0)); n != 25 {
			t.Fatalf("the worker created %s with %d partitions, not 25", own, n)
		}
		canon := f.key()
		home := java.PartitionFor([]byte(canon), 25)
		filler, copyAt, elevenWins := pollLayout(own, home)
		wins := f.name + "-6"
		if elevenWins {
			wins = f.name + "-11"
		}
		pad := func(p int) {
			recs := make([]rawRecord, 300)
			for i := range recs {
				recs[i] = rawRecord{[]byte(fmt.Sprintf(`["koff-filler",{"n":"%d-%d"}]`, p, i)), []byte(`{"position":0}`)}
			}
			s.produceRecords(t, own, p, recs...)
		}
		pad(filler)
		pad(copyAt)
		s.produceRecords(t, own, copyAt, rawRecord{[]byte(canon), []byte(f.position(6))})
		f.append(t, 11)
		withBoth := func(args ...string) []string {
			return s.withREST(s.withTopic(append(args, "--offsets-topic", "connect-offsets", "--offsets-topic", own)...)...)
		}
		table := mustKoff(t, withBoth("get", f.name)...)
		t.Logf("koff get %s (home %d, filler %d, copy %d):\n%s", f.name, home, filler, copyAt, table)
		shown := getValue(t, mustKoff(t, withBoth("get", f.name, "-o", "json")...), f.canonicalPartition(t))
		got := f.resumeAndNext(t)
		if got != wins {
			t.Fatalf("the real task continued with %q; with the copy of its key in %s/%d and its own in %d in another poll, %q was expected", got, own, copyAt, home, wins)
		}
		if want := map[string]string{f.name + "-6": f.position(6), f.name + "-11": f.position(11)}[got]; shown != want {
			t.Errorf("koff get shows %s for %s; the real task resumed from %s", shown, f.partition(), want)
		}
		if !strings.Contains(table, "several polls") {
			t.Errorf("koff get does not say the topic comes in several polls:\n%s", table)
		}
	})

	// In the worker's busy topic the read takes several polls: koff works
	// them out from the records it read and shows the copy the task
	// resumes from; it flags the copies, and an edit, which writes every
	// copy, still moves the task.
	t.Run("WrongPartitionOfABusyTopic", func(t *testing.T) {
		f := s.newFileConnector(t, "keys-busy", 10)
		s.stop(t, f.name)
		canon := f.key()
		home := java.PartitionFor([]byte(canon), 25)
		s.produceOffset(t, (home+1)%25, canon, f.position(6))
		f.append(t, 11)
		table := mustKoff(t, s.withTopic("get", f.name)...)
		t.Logf("koff get %s:\n%s", f.name, table)
		for _, flagged := range []string{"duplicate,misplaced", "more than one partition", "an edit of the partition writes every copy"} {
			if !strings.Contains(table, flagged) {
				t.Errorf("koff get does not show %s:\n%s", flagged, table)
			}
		}
		shown := getValue(t, mustKoff(t, s.withTopic("get", f.name, "-o", "json")...), f.canonicalPartition(t))
		got := f.resumeAndNext(t)
		if got != f.name+"-6" && got != f.name+"-11" {
			t.Fatalf("the real task continued with %q, from neither copy", got)
		}
		t.Logf("the restarted task read the copy that leaves it at %s", got)
		// koff works out the polls of the busy topic from the records it
		// read (model.FreshRead): the copy it shows is the one the task
		// resumed from, unless a partition is too big for one fetch.
		from := map[string]string{f.name + "-6": f.position(6), f.name + "-11": f.position(11)}[got]
		if shown != from && !strings.Contains(table, "max.partition.fetch.bytes") {
			t.Errorf("koff get shows %s; the restarted task resumed from %s", shown, from)
		}
		// It reads to the end of its file and commits that to its own
		// partition, which koff may not show (it shows the copy it takes
		// a fresh read to keep).
		s.waitKey(t, "connect-offsets", home, canon, f.position(12))
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
		s.produceOffset(t, java.PartitionFor([]byte(hashOrder), 25), hashOrder, `{"seq":50,"lsn":9007199254741043,"ratio":12.5,"done":true}`)

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

// waitKey waits until the last record of key in topic/partition has value.
func (s *Stack) waitKey(t *testing.T, topic string, partition int, key, value string) {
	t.Helper()
	s.readUntil(t, topic, partition, 0, 60*time.Second, func(rs []record) bool {
		for i := len(rs) - 1; i >= 0; i-- {
			if string(rs[i].Key) == key {
				return string(rs[i].Value) == value
			}
		}
		return false
	})
}

// readAfterHome is a partition that a poll of records in home and it
// only (KafkaConsumer's map of 16 buckets for two partitions) reads after
// home, preferably one that a poll of all 25 (64 buckets) reads before
// it, so that the two orders tell apart; -1 when none is read after home.
func readAfterHome(topic string, home int) int {
	after := -1
	for p := range 25 {
		if p == home || !model.ReadAfter(topic, p, home, 25, 2) {
			continue
		}
		if after < 0 || !model.ReadAfter(topic, p, home, 25, 25) {
			after = p
		}
	}
	return after
}

// pollLayout is a layout of 300 filler records in a partition and a
// hand-written copy of home's key in another, in the fetch response's
// order (a HashSet of all 25 partitions, as a map of 25), that puts the
// copy and home in different polls of max.poll.records 500 where one
// poll's map of the three partitions (16 buckets) would order them the
// other way. elevenWins: home's records land in the later poll, so the
// task's own offset wins; otherwise the copy does. filler is -1 when home
// has no such layout.
func pollLayout(topic string, home int) (filler, copyAt int, elevenWins bool) {
	all := make([]int, 25)
	for i := range all {
		all[i] = i
	}
	response := model.ReadOrder(topic, 25, all)
	at := slices.Index(response, home)
	for i := at + 1; i < 25; i++ {
		for _, p := range response[i+1:] {
			if model.ReadAfter(topic, home, p, 25, 3) {
				return response[i], p, false
			}
		}
	}
	for i := 0; i < at; i++ {
		for _, x := range response[i+1 : at] {
			if model.ReadAfter(topic, response[i], home, 25, 3) {
				return x, response[i], true
			}
		}
	}
	return -1, -1, false
}

// fileConnectorNameFor is base, or base-N for the least N, whose file
// connector's key has a home partition for which ok holds: the key holds
// the file's path in the stack's files directory, which differs from run
// to run, and not every home partition has the layout a test needs.
func (s *Stack) fileConnectorNameFor(t *testing.T, base string, ok func(home int) bool) string {
	t.Helper()
	for n := range 100 {
		name := base
		if n > 0 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		f := fileConnector{name: name, path: filepath.Join(s.FilesDir, name+".txt")}
		if ok(java.PartitionFor([]byte(f.key()), 25)) {
			return name
		}
	}
	t.Fatalf("no name %s-N up to 99 gives a key with the layout needed", base)
	return ""
}

// key is the bytes the task's partition map serialises to.
func (f *fileConnector) key() string {
	return fmt.Sprintf(`["%s",{"filename":"%s"}]`, f.name, f.path)
}

// canonicalPartition is the task's partition as canonical() renders it.
func (f *fileConnector) canonicalPartition(t *testing.T) string {
	p, _, _ := strings.Cut(canonicalEntry(t, f.partition()+` => {}`), " => ")
	return p
}

// append adds line n to the stopped connector's file.
func (f *fileConnector) append(t *testing.T, n int) {
	line := lines(f.name, n, n)
	appendFile(t, f.path, line)
	f.content += line
}
