package metrics

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"koff/model"
	"koff/model/java"
	"koff/model/store"
)

// fillStore is an offsets topic of n source partitions over conns
// connectors, each partition committed twice (two flushes, 5s apart, the
// second at last), and one sink group of sinkParts partitions.
func fillStore(tb testing.TB, n, conns, sinkParts int, last time.Time) *store.Store {
	tb.Helper()
	s := store.NewStore(store.StoreOptions{})
	s.SetTopicPartitions("connect-offsets", 25)
	batch := make([]store.Record, 0, 4096)
	var off int64
	for flush := 0; flush < 2; flush++ {
		at := last.Add(time.Duration(flush-1) * 5 * time.Second)
		for i := 0; i < n; i++ {
			k := fmt.Appendf(nil, `["debezium-%02d",{"server":"inventory-%02d","database":"db_%06d"}]`, i%conns, i%conns, i/conns)
			off++
			batch = append(batch, store.Record{Topic: "connect-offsets", Partition: java.PartitionFor(k, 25), Offset: off,
				Key: k, Value: fmt.Appendf(nil, `{"lsn":%d,"txId":%d}`, 1152921504606846976+off, off), Time: at})
			if len(batch) == cap(batch) {
				s.Ingest(batch)
				batch = batch[:0]
			}
		}
	}
	s.Ingest(batch)
	s.SetStatus(model.TailStatus{State: model.TailLive, Since: last})
	if sinkParts > 0 {
		parts := make([]model.GroupPartition, sinkParts)
		for i := range parts {
			parts[i] = model.GroupPartition{TopicPartition: model.TopicPartition{Topic: "logs.app", Partition: i}, Committed: 10, End: 15}
		}
		s.SetGroups(last, []model.GroupPoll{{Group: "connect-es-search", State: "Stable", Members: 1, Partitions: parts}})
	}
	return s
}

// scrape is one scrape of the endpoint's handler: its body.
func scrape(tb testing.TB, c *Collector) string {
	tb.Helper()
	rec := httptest.NewRecorder()
	Handler(c).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		tb.Fatalf("scrape: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// koffSeries counts the koff_ series of a scrape.
func koffSeries(body string) int {
	n := 0
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "koff_") {
			n++
		}
	}
	return n
}
