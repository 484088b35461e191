package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/kafka"
	"koff/model"
	"koff/model/resume"
	"koff/model/store"
	"koff/probe"
)

// The live check of sinks from the lag poller's poll says what koff
// check's own poll of the groups says (probe.Checker), partition by
// partition, round after round of random commits (with and without a
// leader epoch) and deleted records; and a sink none of whose offsets or
// logs moved is not judged again: its check is the last one's, checked
// now.
func TestResumeSinksFromTheLagPollEqualTheirOwnPoll(t *testing.T) {
	sink := func(name, extra string) string {
		return `{"connector.class":"org.apache.kafka.connect.file.FileStreamSinkConnector","topics":"orders","name":"` + name + `"` + extra + `}`
	}
	configs := map[string]string{
		"a-sink":    sink("a-sink", ""),
		"b-sink":    sink("b-sink", `,"consumer.override.auto.offset.reset":"latest"`),
		"c-sink":    sink("c-sink", `,"consumer.override.auto.offset.reset":"none","consumer.override.group.id":"c-group"`),
		"idle-sink": sink("idle-sink", ""),
	}
	addr := checkBroker(t, configs, map[string]int{"orders": 3})
	for p := range 3 {
		records(t, addr, "orders", p, 30)
	}
	cfg := kafka.Config{Brokers: []string{addr}}
	kc := &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 10 * time.Second}
	groups := map[string]string{"a-sink": "connect-a-sink", "b-sink": "connect-b-sink", "c-sink": "c-group", "idle-sink": "connect-idle-sink"}
	var sources []probe.Source
	for _, name := range []string{"a-sink", "b-sink", "c-sink", "idle-sink"} {
		var c map[string]string
		if err := json.Unmarshal([]byte(configs[name]), &c); err != nil {
			t.Fatal(err)
		}
		sources = append(sources, probe.Source{Name: name, Type: "sink", Class: c["connector.class"], Config: c})
	}
	commitGroup(t, addr, "connect-idle-sink", map[model.TopicPartition]int64{{Topic: "orders", Partition: 0}: 29})
	r := rand.New(rand.NewPCG(3, 4))
	st := store.NewStore(store.StoreOptions{})
	o := &observer{store: st}
	at := time.Now()
	ck := &probe.Checker{Kafka: cfg, Timeout: 5 * time.Second, Now: func() time.Time { return at }}
	p := newResumePoller(ck, time.Second)
	var idleBefore []resume.Partition
	logStart := [3]int64{}
	for round := range 12 {
		// Random commits: some with the leader epoch a consumer sends,
		// some beyond the log end, some below the log start.
		for _, name := range []string{"a-sink", "b-sink", "c-sink"} {
			tp := model.TopicPartition{Topic: "orders", Partition: r.IntN(3)}
			off := int64(r.IntN(40))
			if r.IntN(2) == 0 {
				commitGroup(t, addr, groups[name], map[model.TopicPartition]int64{tp: off})
			} else if res, err := kc.OffsetCommit(context.Background(), &kafkago.OffsetCommitRequest{GroupID: groups[name], GenerationID: -1,
				Topics: map[string][]kafkago.OffsetCommit{"orders": {{Partition: tp.Partition, Offset: off}}}}); err != nil || res.Topics["orders"][0].Error != nil {
				t.Fatalf("commit with an epoch: %v %+v", err, res)
			}
		}
		if round%2 == 0 {
			// Records written: a log end moves, and with it where the
			// current leader epoch ends.
			records(t, addr, "orders", 1+r.IntN(2), 5)
		}
		if round%2 == 1 {
			p := r.IntN(3)
			logStart[p] += int64(1 + r.IntN(5))
			deleteRecordsBefore(t, addr, "orders", int32(p), logStart[p])
		}
		polls, err := cfg.GroupPolls(context.Background(), []string{"c-group"})
		if err != nil {
			t.Fatal(err)
		}
		st.SetGroups(at, polls)
		at = at.Add(time.Second)

		want := ck.Check(context.Background(), sources)
		got := make([]resume.Connector, len(sources))
		plain := p.checkSharedSinks(context.Background(), o, sources, []int{0, 1, 2, 3}, got, at)
		if len(plain) != 0 {
			t.Fatalf("round %d: sinks %v left to their own poll", round, plain)
		}
		for i := range sources {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("round %d, %s:\nfrom the lag poll %+v\nits own poll      %+v", round, sources[i].Name, got[i], want[i])
			}
		}
		idle := got[3].Partitions
		if round > 0 && logStart[0] == 0 && (len(idle) == 0 || &idle[0] != &idleBefore[0]) {
			t.Errorf("round %d: idle-sink was judged again though nothing of it moved", round)
		}
		if len(idle) != 1 || idle[0].State != resume.Resumes {
			t.Fatalf("idle-sink: %+v", idle)
		}
		idleBefore = idle
		if got[3].Checked != at {
			t.Errorf("idle-sink checked %v, want now %v", got[3].Checked, at)
		}
	}
	// A group the lag poller did not poll is left to the plain check.
	delete(p.sinks, "a-sink")
	st.SetGroups(at, nil)
	if plain := p.checkSharedSinks(context.Background(), o, sources, []int{0}, make([]resume.Connector, len(sources)), at); fmt.Sprint(plain) != "[0]" {
		t.Errorf("a group not polled: left %v to the plain check, want [0]", plain)
	}
}
