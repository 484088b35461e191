package metrics

import (
	"net/http/httptest"
	"testing"
	"time"

	"koff/model/resume"
	"koff/model/store"
)

// BenchmarkScrape is one scrape of the endpoint at 100,000 source
// partitions of 70 connectors and a sink of 5,000 partitions (past the
// default --metrics-sink-partitions): the body's bytes and the time to
// read the Store and encode it.
func BenchmarkScrape(b *testing.B) {
	benchScrape(b, 100_000, 70, 5000, Options{SinkPartitionLimit: 1000, ConnectorLimit: 1000, REST: true})
}

// BenchmarkScrape10kConnectors is one scrape at 10,000 source connectors
// (20,000 partitions) with the default --metrics-connectors: at most
// 2 MB and 0.5 s (TestScrapeAt10kConnectorsIsBounded checks the size).
func BenchmarkScrape10kConnectors(b *testing.B) {
	n := 10_000
	if testing.Short() {
		n = 1000
	}
	benchScrape(b, 2*n, n, 0, Options{ConnectorLimit: 1000, REST: true})
}

// BenchmarkScrapeSinkPartitionsAtTheCap is one scrape with a sink of as
// many partitions as --metrics-sink-partitions allows, all exported.
func BenchmarkScrapeSinkPartitionsAtTheCap(b *testing.B) {
	n := MaxSinkPartitionSeries
	if testing.Short() {
		n = 1000
	}
	benchScrape(b, 1000, 10, n, Options{SinkPartitionLimit: n, ConnectorLimit: 1000, REST: true})
}

func benchScrape(b *testing.B, parts, conns, sinkParts int, o Options) {
	now := time.Now()
	o.Store = fillStore(b, parts, conns, sinkParts, now)
	if got := o.Store.Stats().Partitions; got != parts {
		b.Fatalf("%d source partitions stored, want %d", got, parts)
	}
	h := Handler(New(o))
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

// At 10,000 source connectors, every one resume-checked, a scrape with
// the default --metrics-connectors stays under 2 MB, says that connectors
// were left out, and counts every one by flush status and resume state.
func TestScrapeAt10kConnectorsIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 10,000 connectors")
	}
	now := time.Now()
	store := fillStore(t, 20_000, 10_000, 0, now)
	checkEvery(store, now)
	c := New(Options{Store: store, ConnectorLimit: 1000, REST: true, Now: func() time.Time { return now }})
	start := time.Now()
	body := scrape(t, c)
	took := time.Since(start)
	if len(body) > 2<<20 {
		t.Errorf("a scrape at 10,000 connectors is %d bytes, want at most 2 MB", len(body))
	}
	wantLine(t, body, "koff_connectors_without_series 9000")
	wantLine(t, body, `koff_source_connectors_by_flush_status{status="ok"} 10000`)
	wantLine(t, body, `koff_connectors_by_resume_state{state="resumes"} 9999`)
	wantLine(t, body, `koff_connectors_by_resume_state{state="gap"} 1`)
	t.Logf("%d bytes, %d koff_ series, %v", len(body), koffSeries(body), took)
}

// checkEvery records a resume check of every connector of store: each
// partition resumes, but one connector's first has a gap.
func checkEvery(store *store.Store, at time.Time) {
	var results []resume.Connector
	for _, r := range store.Connectors() {
		c := resume.Connector{Name: r.ID.Name, Type: r.Type, Checked: at}
		for _, p := range store.Partitions(r.ID) {
			c.Partitions = append(c.Partitions, resume.Partition{Partition: p.Partition, State: resume.Resumes, Lost: resume.None, Replayed: resume.None})
		}
		if len(results) == 0 && len(c.Partitions) > 0 {
			c.Partitions[0].State, c.Partitions[0].Lost = resume.Gap, resume.Amount{Records: -1, Bytes: 4096}
		}
		results = append(results, c)
	}
	store.SetResume(results, at)
}
