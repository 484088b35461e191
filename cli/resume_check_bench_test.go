package cli

import (
	"fmt"
	"io"
	"log"
	"testing"
	"time"

	"koff/model"
	"koff/model/java"
	"koff/model/resume"
	"koff/model/store"
)

// BenchmarkResumePollerStoreSide is what the resume poller costs koff at
// each check besides the probes: the Sources read from the Store (a
// MirrorMaker 2 connector of 100,000 partitions, whose offsets the check
// reads, and a JDBC connector of 100,000, whose it does not) and the
// results put back (SetResume) with 1,000 sinks of 10 partitions each.
func BenchmarkResumePollerStoreSide(b *testing.B) {
	st := store.NewStore(store.StoreOptions{})
	const n = 100_000
	at := time.Now()
	var recs []store.Record
	for i := range n {
		for _, c := range []string{"mm2", "jdbc"} {
			key := fmt.Sprintf(`[%q,{"cluster":"primary","partition":%d,"topic":"orders"}]`, c, i)
			recs = append(recs, store.Record{Topic: "connect-offsets", Partition: java.PartitionFor([]byte(key), 25), Offset: int64(len(recs)),
				Key: []byte(key), Value: []byte(fmt.Sprintf(`{"offset":%d}`, i)), Time: at})
		}
	}
	st.SetTopicPartitions("connect-offsets", 25)
	st.Ingest(recs)
	conns := map[string]model.ConnectorState{
		"mm2":  {Name: "mm2", Type: "source", Config: map[string]string{"connector.class": resume.ClassMirrorSource}},
		"jdbc": {Name: "jdbc", Type: "source", Config: map[string]string{"connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector"}},
	}
	var polls []model.GroupPoll
	var results []resume.Connector
	for i := range 1000 {
		name := fmt.Sprintf("sink-%04d", i)
		conns[name] = model.ConnectorState{Name: name, Type: "sink", Config: map[string]string{"topics": "t"}}
		p := model.GroupPoll{Group: "connect-" + name}
		c := resume.Connector{Name: name, Type: "sink", Checked: at}
		for j := range 10 {
			p.Partitions = append(p.Partitions, model.GroupPartition{TopicPartition: model.TopicPartition{Topic: "t", Partition: j}, Committed: 5, End: 10})
			c.Partitions = append(c.Partitions, resume.Partition{Partition: fmt.Sprintf("t/%d", j), Position: "offset 5", State: resume.Resumes, Lost: resume.None, Replayed: resume.None})
		}
		polls = append(polls, p)
		results = append(results, c)
	}
	st.SetREST(model.RESTStatus{Connectors: conns, At: at})
	st.SetGroups(at, polls)
	g := &Globals{logger: log.New(io.Discard, "", 0)}
	sr := &sourceReader{} // the poller's, kept from check to check
	b.ResetTimer()
	for range b.N {
		sel, err := selectConnectors(st, nil, g, true)
		if err != nil {
			b.Fatal(err)
		}
		sources := sr.read(st, sel)
		b.StopTimer() // the probes' part: not koff's Store
		mm2 := resume.Connector{Name: "mm2", Type: "source", Checked: at}
		for _, s := range sources {
			if s.Name == "mm2" {
				for _, o := range s.Offsets {
					mm2.Partitions = append(mm2.Partitions, resume.Partition{Partition: o.Partition, Position: "offset 1", State: resume.Resumes, Lost: resume.None, Replayed: resume.None})
				}
			}
		}
		if len(mm2.Partitions) != n {
			b.Fatalf("mm2's offsets: %d", len(mm2.Partitions))
		}
		rs := append(results[:len(results):len(results)], mm2)
		b.StartTimer()
		st.SetResume(rs, at)
	}
}
