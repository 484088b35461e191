package main

// The two-writer race with the built binary: two `koff set` processes edit
// the same partition at once, many times, against the embedded broker.
// Every round must end with exactly one "verified".

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"koff/model"
	"koff/model/java"
)

func TestTwoProcessesRace(t *testing.T) {
	// KOFF_RACE_ROUNDS=N runs a long race.
	rounds := 16
	if testing.Short() {
		rounds = 6
	}
	if n, err := strconv.Atoi(os.Getenv("KOFF_RACE_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	c := newCrashCluster(t)
	key := `["bulk",{"table":"t00042"}]`
	tp := model.TopicPartition{Topic: crashTopic, Partition: java.PartitionFor([]byte(key), crashPartitions)}

	// In held rounds the first produce request waits (up to 5 s) for the
	// second process's, so both have passed every check before either
	// writes; in the others each produce request is delayed by 0-300 ms,
	// so the second process's checks fall anywhere around the first's write.
	var held atomic.Bool
	var inRound atomic.Int32
	c.fake.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if !held.Load() {
			d := time.Duration(rand.Int64N(int64(300 * time.Millisecond)))
			c.fake.SleepControl(func() { time.Sleep(d) })
			return nil, nil, false
		}
		if n := inRound.Add(1); n == 1 {
			c.fake.SleepControl(func() {
				deadline := time.Now().Add(5 * time.Second)
				for inRound.Load() < 2 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
			})
		}
		return nil, nil, false
	})

	outcomes := map[string]int{}
	for round := 0; round < rounds; round++ {
		held.Store(round%2 == 0)
		inRound.Store(0)
		values := []string{fmt.Sprintf(`{"id":%d}`, 2000+2*round), fmt.Sprintf(`{"id":%d}`, 2001+2*round)}
		outs := make([]string, 2)
		codes := make([]int, 2)
		var wg sync.WaitGroup
		for i := range values {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := c.koff("set", "bulk", "--partition", `{"table":"t00042"}`, "--offset", values[i], "--yes")
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				err := cmd.Run()
				outs[i] = out.String()
				if ee, ok := err.(*exec.ExitError); ok {
					codes[i] = ee.ExitCode()
				} else if err != nil {
					codes[i] = -1
				}
			}()
		}
		wg.Wait()
		if b0, b1 := plannedFrom(outs[0]), plannedFrom(outs[1]); b0 != b1 {
			// One planned after the other had finished: not a race, and
			// both edits stand.
			if !strings.Contains(outs[0], "verified:") || !strings.Contains(outs[1], "verified:") {
				t.Fatalf("round %d: sequential edits (from %s and %s) not both verified:\n%s\n---\n%s", round, b0, b1, outs[0], outs[1])
			}
			outcomes["one after the other (not a race)"]++
			continue
		}
		winner := -1
		for i, o := range outs {
			if strings.Contains(o, "verified: set 1 partition of bulk") {
				if winner >= 0 {
					t.Fatalf("round %d: both verified:\n%s\n---\n%s", round, outs[0], outs[1])
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: none verified:\n%s\n---\n%s", round, outs[0], outs[1])
		}
		loser := 1 - winner
		lost := outs[loser]
		switch {
		case strings.Contains(lost, "NOT applied: lost a race"):
			outcomes["both wrote; the second put the first's value back"]++
		case strings.Contains(lost, "changed since the edit was planned"):
			outcomes["the second refused before writing"]++
		default:
			t.Fatalf("round %d: the loser said:\n%s", round, lost)
		}
		if codes[winner] != 0 || codes[loser] != 1 {
			t.Errorf("round %d: exit codes winner %d, loser %d", round, codes[winner], codes[loser])
		}
		if !strings.Contains(lost, values[winner]) || !strings.Contains(lost, "koff set at") {
			t.Errorf("round %d: the loser does not say which value won and from whom:\n%s", round, lastLines(lost, 2))
		}
		if strings.Contains(lost, "NOT verified") {
			t.Errorf("round %d: the loser says NOT verified:\n%s", round, lost)
		}
		// The winner's value is the one in force.
		recs, _, err := c.kafka.ReadRecords(context.Background(), tp, 0)
		if err != nil {
			t.Fatal(err)
		}
		var last []byte
		for _, r := range recs {
			if string(r.Key) == key {
				last = r.Value
			}
		}
		if string(last) != values[winner] {
			t.Fatalf("round %d: %s in force, the winner wrote %s", round, last, values[winner])
		}
	}
	t.Logf("%d rounds: %v", rounds, outcomes)
	if outcomes["one after the other (not a race)"] > rounds/2 {
		t.Errorf("too few rounds raced: %v", outcomes)
	}
}

// plannedFrom is the before-value a `koff set` plan printed.
func plannedFrom(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if before, _, ok := strings.Cut(strings.TrimSpace(l), " → "); ok {
			return before
		}
	}
	return ""
}
