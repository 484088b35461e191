package cli

import (
	"context"
	"testing"
	"time"

	"koff/model"
	"koff/model/resume"
	"koff/model/store"
	"koff/probe"
)

// BenchmarkResumeSinksFromTheLagPoll is the live check of a sink of
// 100,000 partitions from the lag poller's poll (no leader epochs: no
// request), into the Store: "same" when none of its offsets or logs moved
// since the last check (the last check stands, checked now), "moved" when
// 1,000 of its commits moved (the sink judged again).
func BenchmarkResumeSinksFromTheLagPoll(b *testing.B) {
	const n = 100_000
	poll := func(round int) []model.GroupPoll {
		p := model.GroupPoll{Group: "connect-big", Partitions: make([]model.GroupPartition, n)}
		for i := range p.Partitions {
			c := int64(500)
			if i < 1000 {
				c += int64(round)
			}
			p.Partitions[i] = model.GroupPartition{TopicPartition: model.TopicPartition{Topic: "t", Partition: i}, Committed: c, LeaderEpoch: -1, Start: 0, End: 1000}
		}
		return []model.GroupPoll{p}
	}
	sources := []probe.Source{{Name: "big", Type: "sink", Class: "FileStreamSinkConnector", Config: map[string]string{"topics": "t"}}}
	for _, moved := range []bool{false, true} {
		name := "same"
		if moved {
			name = "moved"
		}
		b.Run(name, func(b *testing.B) {
			st := store.NewStore(store.StoreOptions{})
			st.SetREST(model.RESTStatus{Connectors: map[string]model.ConnectorState{"big": {Name: "big", Type: "sink", Config: sources[0].Config}}, At: time.Now()})
			st.SetGroups(time.Now(), poll(0))
			o := &observer{store: st}
			p := newResumePoller(&probe.Checker{Timeout: time.Second}, time.Second)
			out := make([]resume.Connector, 1)
			p.checkSharedSinks(context.Background(), o, sources, []int{0}, out, time.Now())
			st.SetResume(out, time.Now())
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if moved {
					b.StopTimer()
					st.SetGroups(time.Now(), poll(i+1))
					b.StartTimer()
				}
				if left := p.checkSharedSinks(context.Background(), o, sources, []int{0}, out, time.Now()); len(left) != 0 {
					b.Fatalf("left to the plain check: %v", left)
				}
				st.SetResume(out, time.Now())
			}
			b.StopTimer()
			if len(out[0].Partitions) != n || out[0].Partitions[0].State != resume.Resumes {
				b.Fatalf("the check: %d partitions, %+v", len(out[0].Partitions), out[0].Partitions[0])
			}
		})
	}
}
