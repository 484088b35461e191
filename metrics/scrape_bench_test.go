package metrics

import (
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkScrape is one scrape of the endpoint at 100,000 source
// partitions of 70 connectors and a sink of 5,000 partitions (past the
// default --metrics-sink-partitions): the body's bytes and the time to
// read the Store and encode it.
func BenchmarkScrape(b *testing.B) {
	now := time.Now()
	store := fillStore(b, 100_000, 70, 5000, now)
	if got := store.Stats().Partitions; got != 100_000 {
		b.Fatalf("%d source partitions stored, want 100000", got)
	}
	h := Handler(New(Options{Store: store, SinkPartitionLimit: 1000, REST: true}))
	var bytes int
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		bytes = rec.Body.Len()
	}
	b.ReportMetric(float64(bytes), "bytes/scrape")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/scrape")
}
