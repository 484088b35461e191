package cli

import (
	"context"
	"fmt"
	"io"
	"log"
	"testing"
	"time"

	"koff/model"
	"koff/model/java"
	"koff/model/resume"
	"koff/model/store"
	"koff/probe"
)

// mirrorStore is a Store of n MirrorMaker 2 partitions over conns
// MirrorSourceConnectors whose source cluster is at source, as bench/load
// -workload mm2 -mm2-source writes them.
func mirrorStore(tb testing.TB, n, conns int, source string) *store.Store {
	tb.Helper()
	st := store.NewStore(store.StoreOptions{})
	at := time.Now()
	recs := make([]store.Record, 0, n)
	for i := range n {
		c, j := i%conns, i/conns
		key := fmt.Sprintf(`["mm2-%02d",{"cluster":"primary","partition":%d,"topic":"orders.region-%d.topic-%d"}]`, c, j%100, c, j/100)
		recs = append(recs, store.Record{Topic: "connect-offsets", Partition: java.PartitionFor([]byte(key), 25), Offset: int64(i),
			Key: []byte(key), Value: []byte(fmt.Sprintf(`{"offset":%d}`, i)), Time: at})
	}
	st.SetTopicPartitions("connect-offsets", 25)
	st.Ingest(recs)
	rest := map[string]model.ConnectorState{}
	for c := range conns {
		name := fmt.Sprintf("mm2-%02d", c)
		rest[name] = model.ConnectorState{Name: name, Type: "source", Config: map[string]string{"connector.class": resume.ClassMirrorSource,
			"source.cluster.alias": "primary", "source.cluster.bootstrap.servers": source}}
	}
	st.SetREST(model.RESTStatus{Connectors: rest, At: at})
	return st
}

// BenchmarkResumeCheckMirrorAgain is a check of MirrorMaker 2 connectors
// of 1,000,000 partitions in all, whose source cluster does not answer,
// by the live views' poller after its first: nothing changed, so the
// check costs what finding that out costs, not a million offsets read,
// parsed and judged again.
func BenchmarkResumeCheckMirrorAgain(b *testing.B) {
	st := mirrorStore(b, 1_000_000, 70, "127.0.0.1:1")
	g := &Globals{logger: log.New(io.Discard, "", 0), Refresh: time.Second}
	o := &observer{g: g, store: st}
	p := newResumePoller(&probe.Checker{Timeout: time.Second}, g.Refresh)
	ctx := context.Background()
	// The first check's results are new to every row (the Store marks
	// them changed): the second reads the rows again, and finds the
	// offsets the same.
	o.checkResume(ctx, p)
	p.mirrorDue = nil
	o.checkResume(ctx, p)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		p.mirrorDue = nil // due at once: the check itself, not its back-off
		o.checkResume(ctx, p)
	}
	b.StopTimer()
	rows := st.Partitions(model.ConnectorID{Name: "mm2-00", Topic: "connect-offsets"})
	if len(rows) == 0 || rows[0].Resume == nil || rows[0].Resume.State != resume.Unknown {
		b.Fatalf("mm2-00's first row: %+v", rows[0].Resume)
	}
}
