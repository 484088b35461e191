package interop

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"koff/model"
)

// The order a freshly started KafkaBasedLog (as KafkaOffsetBackingStore
// and every exactly-once source task's offset store use it) hands records
// of different partitions to its callback decides which copy of the same
// key bytes in two partitions a task reads. koff's model.ReadOrder must be
// that order, for any number of partitions holding records: the poll's
// Fetch.records map is sized by them, so 2 partitions with records of 25
// come in another order than 13 or 25. Checked against the real class
// (interop/java/koff/interop/ReadOrder.java) on topics of 25 partitions.
func TestReadOrderIsKafkaBasedLogs(t *testing.T) {
	s := realStack(t)
	rng := rand.New(rand.NewPCG(7, 11))
	with := map[string][]int{}
	var topics []string
	for i, k := range []int{2, 2, 3, 5, 8, 12, 13, 17, 24, 25} {
		topic := fmt.Sprintf("read-order-%d-%d", i, k)
		if i == 0 {
			topic = "connect-offsets-copy" // a name like an offsets topic's
		}
		parts := rng.Perm(25)[:k]
		sort.Ints(parts)
		s.createTopic(t, topic, 25)
		for _, p := range parts {
			// Two records in some partitions: a partition's records stay in a run.
			recs := []rawRecord{{[]byte(fmt.Sprintf(`["c",{"p":%d}]`, p)), []byte(`{"n":1}`)}}
			if p%3 == 0 {
				recs = append(recs, rawRecord{recs[0].key, []byte(`{"n":2}`)})
			}
			s.produceRecords(t, topic, p, recs...)
		}
		with[topic] = parts
		topics = append(topics, topic)
	}
	// Topics of more than max.poll.records (500) come in several polls:
	// koff works them out from the records each partition holds.
	counts := map[string]map[int]int64{}
	for i, size := range [][2]int{{7, 1300}, {25, 2000}, {13, 700}, {3, 520}} {
		topic := fmt.Sprintf("read-order-polls-%d-%d", i, size[1])
		parts := rng.Perm(25)[:size[0]]
		sort.Ints(parts)
		s.createTopic(t, topic, 25)
		counts[topic] = map[int]int64{}
		left := size[1]
		for j, p := range parts {
			n := left / (len(parts) - j)
			if j < len(parts)-1 {
				n = n/2 + rng.IntN(n+1) // uneven partitions
			}
			left -= n
			recs := make([]rawRecord, n)
			for r := range recs {
				recs[r] = rawRecord{[]byte(fmt.Sprintf(`["c",{"p":%d,"r":%d}]`, p, r%40)), []byte(fmt.Sprintf(`{"n":%d}`, r))}
			}
			s.produceRecords(t, topic, p, recs...)
			counts[topic][p] = int64(n)
		}
		topics = append(topics, topic)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cp := s.Classpath + string(filepath.ListSeparator) + filepath.Join(Dir(), "plugins", "koff-interop", "koff-interop-connector.jar")
	args := append([]string{"-Xmx256m", "-XX:TieredStopAtLevel=1", "-Dlog4j2.configurationFile=" + filepath.Join(s.Dir, "log4j2.properties"),
		"-cp", cp, "koff.interop.ReadOrder", s.Bootstrap}, topics...)
	cmd := exec.CommandContext(ctx, s.Java, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("KafkaBasedLog read: %v\n%s", err, out)
	}
	got := map[string][]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !slices.Contains(topics, f[0]) {
			continue
		}
		for _, p := range f[1:] {
			n, _ := strconv.Atoi(p)
			got[f[0]] = append(got[f[0]], n)
		}
	}
	for _, topic := range topics {
		if c := counts[topic]; c != nil {
			fr := model.NewFreshRead(topic, 25, c, nil)
			if !fr.Exact || fr.OnePoll() {
				t.Fatalf("%s: exact %v, one poll %v: the layout does not test several polls", topic, fr.Exact, fr.OnePoll())
			}
			if want := pollRuns(fr, c); !slices.Equal(got[topic], want) {
				t.Errorf("%s, %d records in %d partitions: KafkaBasedLog hands over the runs %v, koff's FreshRead says %v", topic, fr.Records(), len(c), got[topic], want)
			}
			continue
		}
		want := model.ReadOrder(topic, 25, with[topic])
		if !slices.Equal(got[topic], want) {
			t.Errorf("%s, records in %d partitions %v: KafkaBasedLog hands over %v, koff's ReadOrder says %v", topic, len(with[topic]), with[topic], got[topic], want)
		}
	}
}

// pollRuns is the partition of each run of records, in the order fr says a
// fresh read hands them over.
func pollRuns(fr *model.FreshRead, counts map[int]int64) []int {
	type rec struct {
		p int
		o int64
	}
	var all []rec
	for p, n := range counts {
		for o := range n {
			all = append(all, rec{p, o})
		}
	}
	sort.Slice(all, func(i, j int) bool { return fr.ReadAfter(all[j].p, all[j].o, all[i].p, all[i].o) })
	var runs []int
	for _, r := range all {
		if len(runs) == 0 || runs[len(runs)-1] != r.p {
			runs = append(runs, r.p)
		}
	}
	return runs
}
