package interop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// resetDryRun runs Kafka's kafka-consumer-groups --reset-offsets --dry-run
// and returns the NEW-OFFSET of each "topic/partition" it prints.
func (s *Stack) resetDryRun(t *testing.T, group string, form ...string) (map[string]string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--bootstrap-server", s.Bootstrap, "--reset-offsets", "--group", group, "--dry-run"}, form...)
	out, err := s.Tool(ctx, s.JVM("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", args...)...)
	if err != nil {
		t.Fatalf("kafka-consumer-groups --reset-offsets %s: %v\n%s", strings.Join(form, " "), err, out)
	}
	rows := map[string]string{}
	row := regexp.MustCompile(`^(\S+)\s+(\S+)\s+(\d+)\s+(\d+)\s*$`)
	for _, line := range strings.Split(out, "\n") {
		if m := row.FindStringSubmatch(line); m != nil && m[1] == group {
			rows[m[2]+"/"+m[3]] = m[4]
		}
	}
	return rows, out
}

// koffNewOffsets reads the new offset of each "topic/partition" from koff's
// printed plan.
func koffNewOffsets(plan string) map[string]string {
	rows := map[string]string{}
	re := regexp.MustCompile(`(?m)^  \{"kafka_topic":"([^"]+)","kafka_partition":(\d+)\}\n\s+\S+ → \{"kafka_offset":(\d+)\}`)
	for _, m := range re.FindAllStringSubmatch(plan, -1) {
		rows[m[1]+"/"+m[2]] = m[3]
	}
	return rows
}

// TestSinkResetFormsEqualKafkaConsumerGroups: for a stopped FileStreamSink,
// koff set's plan picks, partition by partition, the offsets Kafka's own
// kafka-consumer-groups --reset-offsets --dry-run prints for the same form:
// clamped to the log when outside it (--to-offset, --shift-by past either
// end, --from-file), --by-duration, --to-datetime, and --topic t:0,2.
func TestSinkResetFormsEqualKafkaConsumerGroups(t *testing.T) {
	s := realStack(t)
	name, topic := "forms-sink", "forms-sink-in"
	group := "connect-" + name
	s.createTopic(t, topic, 3)
	for p, n := range []int{5, 8, 3} {
		s.produce(t, topic, p, sinkValues(0, n-1)...)
	}
	s.createConnector(t, name, fileSink(filepath.Join(s.FilesDir, name+".txt"), topic))
	for p, n := range []int{5, 8, 3} {
		s.waitOffset(t, name, fmt.Sprintf(`{"kafka_partition":%d,"kafka_topic":%q} => {"kafka_offset":%d}`, p, topic, n))
	}
	s.stop(t, name)
	// Move the group off the log end so that shifts go both ways.
	mustKoff(t, s.withTopic("set", name, "--to-offset", "2", "--topic", topic, "--yes")...)
	csv := filepath.Join(t.TempDir(), "plan.csv")
	if err := os.WriteFile(csv, []byte(topic+",0,1\n"+topic+",1,100\n"+topic+",2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, form := range [][]string{
		{"--to-offset", "6", "--topic", topic},
		{"--shift-by", "4", "--topic", topic},
		{"--shift-by", "-5", "--topic", topic},
		{"--shift-by", "1", "--topic", topic + ":0,2"},
		{"--to-earliest", "--topic", topic + ":1"},
		{"--to-latest", "--topic", topic},
		{"--by-duration", "P1D", "--topic", topic},
		{"--by-duration", "PT0S", "--topic", topic},
		{"--to-datetime", "2000-01-01T00:00:00.000", "--topic", topic},
		{"--from-file", csv},
	} {
		kafkaRows, raw := s.resetDryRun(t, group, form...)
		if len(kafkaRows) == 0 {
			t.Fatalf("kafka-consumer-groups %s printed no rows:\n%s", strings.Join(form, " "), raw)
		}
		plan := mustKoff(t, s.withTopic(append([]string{"set", name, "--dry-run"}, form...)...)...)
		koffRows := koffNewOffsets(plan)
		if len(koffRows) != len(kafkaRows) {
			t.Errorf("%s: koff plans %v, kafka-consumer-groups %v\n%s\n%s", strings.Join(form, " "), koffRows, kafkaRows, plan, raw)
			continue
		}
		for tp, want := range kafkaRows {
			if koffRows[tp] != want {
				t.Errorf("%s: %s koff %s, kafka-consumer-groups %s\n%s", strings.Join(form, " "), tp, koffRows[tp], want, plan)
			}
		}
		if strings.Contains(plan, "lag after -") {
			t.Errorf("%s: a negative lag after:\n%s", strings.Join(form, " "), plan)
		}
	}
}
