package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// statusOut is the part of `koff status -o json` these tests read.
type statusOut struct {
	Connectors []struct {
		Name          string `json:"name"`
		Type          string `json:"type"`
		State         string `json:"state"`
		OffsetsTopic  string `json:"offsets_topic"`
		Authoritative bool   `json:"authoritative"`
		Flush         *struct {
			IntervalSeconds *float64 `json:"interval_seconds"`
			IntervalSource  string   `json:"interval_source"`
			Status          string   `json:"status"`
			Reason          string   `json:"reason"`
			Unflushed       *int64   `json:"unflushed_records"`
			Shared          *int64   `json:"shared_unflushed_records"`
		} `json:"flush"`
		Sink *struct {
			Group      string `json:"group"`
			TotalLag   int64  `json:"total_lag"`
			Partitions []struct {
				Topic     string `json:"topic"`
				Partition int    `json:"partition"`
				Committed int64  `json:"committed"`
				End       int64  `json:"end"`
				Lag       int64  `json:"lag"`
			} `json:"partitions"`
		} `json:"sink"`
	} `json:"connectors"`
}

func koffStatus(t *testing.T, args ...string) statusOut {
	t.Helper()
	var st statusOut
	out := mustKoff(t, append([]string{"status", "-o", "json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("koff status -o json: %v\n%s", err, out)
	}
	return st
}

// groupRow is one row of kafka-consumer-groups --describe.
type groupRow struct{ committed, end, lag int64 }

// describeGroup runs Kafka's own kafka-consumer-groups --describe
// (org.apache.kafka.tools.consumer.group.ConsumerGroupCommand) and returns
// its rows by "topic/partition".
func (s *Stack) describeGroup(t *testing.T, group string, extra ...string) (map[string]groupRow, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--bootstrap-server", s.Bootstrap, "--describe", "--group", group}, extra...)
	out, err := s.Tool(ctx, s.JVM("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", args...)...)
	if err != nil {
		t.Fatalf("kafka-consumer-groups --describe: %v\n%s", err, out)
	}
	rows := map[string]groupRow{}
	row := regexp.MustCompile(`^(\S+)\s+(\S+)\s+(\d+)\s+(\d+|-)\s+(\d+|-)\s+(\d+|-)\s`)
	for _, line := range strings.Split(out, "\n") {
		m := row.FindStringSubmatch(line + " ")
		if m == nil || m[1] != group {
			continue
		}
		num := func(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
		rows[m[2]+"/"+m[3]] = groupRow{num(m[4]), num(m[5]), num(m[6])}
	}
	return rows, out
}

// TestSinkLagEqualsKafkaConsumerGroups: koff's committed offset, end and
// lag per partition of a FileStreamSink's group are what Kafka's own
// kafka-consumer-groups --describe prints; koff set --to-earliest through
// REST makes the real sink write its file again from the first record.
func TestSinkLagEqualsKafkaConsumerGroups(t *testing.T) {
	s := realStack(t)
	name, topic := "lag-sink", "lag-sink-in"
	s.createTopic(t, topic, 3)
	var first []string
	for p := range 3 {
		var vs []string
		for i := 1; i <= 4+p; i++ {
			vs = append(vs, fmt.Sprintf(`"p%d-r%d"`, p, i))
		}
		s.produce(t, topic, p, vs...)
		first = append(first, vs...)
	}
	out := s.FilesDir + "/" + name + ".txt"
	s.createConnector(t, name, fileSink(out, topic))
	waitFor(t, 90*time.Second, name+" consumed all", func() (bool, string) {
		n := countLines(out)
		return n == len(first), fmt.Sprintf("%d lines", n)
	})
	for _, v := range first {
		var line string
		json.Unmarshal([]byte(v), &line)
		if n := countLine(out, line); n != 1 {
			t.Fatalf("the sink wrote %q %d times, want once", line, n)
		}
	}
	s.waitOffset(t, name, fmt.Sprintf(`{"kafka_partition":2,"kafka_topic":%q} => {"kafka_offset":6}`, topic))
	// Real lag: stopped, the group has no members and more records arrive.
	s.stop(t, name)
	s.produce(t, topic, 0, `"p0-late1"`, `"p0-late2"`)
	s.produce(t, topic, 2, `"p2-late1"`)

	kafkaRows, raw := s.describeGroup(t, "connect-"+name)
	if len(kafkaRows) != 3 {
		t.Fatalf("kafka-consumer-groups: %d rows, want 3:\n%s", len(kafkaRows), raw)
	}
	for _, how := range [][]string{s.withTopic(name), s.withREST(name)} {
		st := koffStatus(t, how...)
		if len(st.Connectors) != 1 || st.Connectors[0].Sink == nil {
			t.Fatalf("koff status %v: %+v", how, st)
		}
		sink := st.Connectors[0].Sink
		var total int64
		for _, p := range sink.Partitions {
			k := fmt.Sprintf("%s/%d", p.Topic, p.Partition)
			want, ok := kafkaRows[k]
			if !ok {
				t.Errorf("koff shows %s, kafka-consumer-groups does not", k)
				continue
			}
			if (groupRow{p.Committed, p.End, p.Lag}) != want {
				t.Errorf("%s: koff committed %d end %d lag %d; kafka-consumer-groups %d %d %d",
					k, p.Committed, p.End, p.Lag, want.committed, want.end, want.lag)
			}
			total += want.lag
		}
		if len(sink.Partitions) != len(kafkaRows) || sink.TotalLag != total || total != 3 {
			t.Errorf("koff status %v: %d partitions, total lag %d; kafka-consumer-groups: %d rows, lag %d (want 3)\n%s",
				how, len(sink.Partitions), sink.TotalLag, len(kafkaRows), total, raw)
		}
	}

	// Back to the earliest offsets through REST: the real sink consumes
	// every record again and appends them to its file.
	mustKoff(t, s.withREST("set", name, "--to-earliest", "--yes")...)
	s.resume(t, name)
	want := 2*len(first) + 3
	waitFor(t, 90*time.Second, name+" rewrote its file", func() (bool, string) {
		n := countLines(out)
		return n >= want, fmt.Sprintf("%d lines, want %d", n, want)
	})
	data, _ := os.ReadFile(out)
	got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	replayed := map[string]int{}
	for _, l := range got[len(first):] {
		replayed[l]++
	}
	for _, v := range first {
		var line string
		json.Unmarshal([]byte(v), &line)
		if replayed[line] != 1 {
			t.Errorf("after --to-earliest the sink wrote %q %d times again, want once", line, replayed[line])
		}
	}
}

// countLine counts the lines of path that are line.
func countLine(path, line string) int {
	data, _ := os.ReadFile(path)
	n := 0
	for _, l := range strings.Split(string(data), "\n") {
		if l == line {
			n++
		}
	}
	return n
}

func countLines(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(data), "\n")
}
