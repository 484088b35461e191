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

// While koff is blind (Kafka disconnected) a flush's age and the records
// since would only measure how long koff has not looked: they are left
// out (stale in Prometheus), the newest flush seen stays, and the flush
// status is koff status's judgement, which does not say stalled.
func TestBlindKoffDropsWhatItCannotSee(t *testing.T) {
	last := time.Now().Add(-10 * time.Minute)
	s := fillStore(t, 20, 2, 0, last)
	now := time.Now()
	s.SetStatus(model.TailStatus{State: model.TailDisconnected, Reason: "connection refused", Since: now.Add(-9 * time.Minute)})
	body := scrape(t, New(Options{Store: s, Now: func() time.Time { return now }}))
	for _, gone := range []string{"koff_connector_flush_age_seconds{", "koff_connector_unflushed_records{"} {
		if strings.Contains(body, "\n"+gone) {
			t.Errorf("%s while blind:\n%s", gone, grep(body, gone))
		}
	}
	for _, want := range []string{
		"\nkoff_tailer_blind 1\n",
		`koff_tailer_state{state="disconnected"} 1`,
		`koff_connector_last_flush_timestamp_seconds{connector="debezium-00",offsets_topic="connect-offsets"}`,
		`koff_connector_flush_status{connector="debezium-00",offsets_topic="connect-offsets",status="stalled"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %q in:\n%s", want, grep(body, "koff_"))
		}
	}
	// Seeing again, the age is back.
	s.SetStatus(model.TailStatus{State: model.TailLive, Since: now})
	if body := scrape(t, New(Options{Store: s, Now: func() time.Time { return now }})); !strings.Contains(body, "\nkoff_connector_flush_age_seconds{") {
		t.Errorf("no flush age once live:\n%s", grep(body, "koff_connector_flush"))
	}
}

// A deleted offsets topic is a series of its own, beside one that is
// merely missing, and koff is not live.
func TestDeletedOffsetsTopicSeries(t *testing.T) {
	s := fillStore(t, 20, 2, 0, time.Now())
	s.SetStatus(model.TailStatus{State: model.TailWaitingForTopic, Missing: "crm-offsets,nope-offsets", Deleted: "crm-offsets", Reloads: 1})
	body := scrape(t, New(Options{Store: s}))
	for _, want := range []string{
		`koff_offsets_topic_deleted{topic="crm-offsets"} 1`,
		`koff_offsets_topic_missing{topic="crm-offsets"} 1`,
		`koff_offsets_topic_deleted{topic="nope-offsets"} 0`,
		`koff_offsets_topic_missing{topic="nope-offsets"} 1`,
		`koff_offsets_topic_deleted{topic="connect-offsets"} 0`,
		`koff_offsets_topic_missing{topic="connect-offsets"} 0`,
		`koff_tailer_state{state="live"} 0`,
		`koff_tailer_state{state="waiting_for_topic"} 1`,
		"\nkoff_offsets_reloads_total 1\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %s in:\n%s", want, grep(body, "koff_offsets_topic"))
		}
	}
}

// Counters never go down while koff runs: a reload (the Store read again
// from zero) adds to what they had counted.
func TestCountersDoNotFallAfterAReload(t *testing.T) {
	s := fillStore(t, 20, 2, 0, time.Now())
	c := New(Options{Store: s})
	before := scrape(t, c)
	wantLine(t, before, "koff_offsets_records_read_total 40")
	wantLine(t, before, `koff_connector_offset_records_total{connector="debezium-00",offsets_topic="connect-offsets"} 20`)
	s.Reset()
	k := []byte(`["debezium-00",{"server":"inventory-00","database":"db_000000"}]`)
	s.Ingest([]store.Record{{Topic: "connect-offsets", Partition: java.PartitionFor(k, 25), Offset: 1, Key: k, Value: []byte(`{"lsn":1}`), Time: time.Now()}})
	after := scrape(t, c)
	wantLine(t, after, "koff_offsets_records_read_total 41")
	wantLine(t, after, `koff_connector_offset_records_total{connector="debezium-00",offsets_topic="connect-offsets"} 21`)
}

func wantLine(t *testing.T, body, line string) {
	t.Helper()
	if !strings.Contains(body, "\n"+line+"\n") {
		name, _, _ := strings.Cut(line, " ")
		name, _, _ = strings.Cut(name, "{")
		t.Errorf("want %s, got:\n%s", line, grep(body, name))
	}
}

// Past --metrics-connectors the connectors that need attention keep
// their series, the scrape says how many were left out, and the flush
// statuses are counted over all of them.
func TestConnectorSeriesStopAtTheLimit(t *testing.T) {
	now := time.Now()
	s := fillStore(t, 200, 100, 0, now)
	// debezium-99, last by name, stopped flushing 10 minutes ago.
	var batch []store.Record
	for i := 0; i < 2; i++ {
		k := fmt.Appendf(nil, `["zz-stalled",{"p":%d}]`, i)
		batch = append(batch, store.Record{Topic: "connect-offsets", Partition: java.PartitionFor(k, 25), Offset: int64(5000 + i), Key: k, Value: []byte(`{"o":1}`), Time: now.Add(-10 * time.Minute)})
	}
	s.Ingest(batch)
	s.SetREST(model.RESTStatus{At: now, Connectors: map[string]model.ConnectorState{
		"zz-stalled": {Name: "zz-stalled", Type: "source", State: "RUNNING", Tasks: []model.TaskState{{ID: 0, State: "RUNNING"}}},
	}})
	body := scrape(t, New(Options{Store: s, ConnectorLimit: 10, REST: true, Now: func() time.Time { return now }}))
	if n := strings.Count(body, "\nkoff_connector_info{"); n != 10 {
		t.Errorf("%d connectors' info, want 10", n)
	}
	wantLine(t, body, `koff_connector_flush_status{connector="zz-stalled",offsets_topic="connect-offsets",status="stalled"} 1`)
	wantLine(t, body, "koff_connector_series_limited 1")
	wantLine(t, body, "koff_connectors_without_series 91")
	wantLine(t, body, `koff_source_connectors_by_flush_status{status="idle"} 100`)
	wantLine(t, body, `koff_source_connectors_by_flush_status{status="stalled"} 1`)
	if all := scrape(t, New(Options{Store: s, ConnectorLimit: 101, REST: true, Now: func() time.Time { return now }})); !strings.Contains(all, "\nkoff_connector_series_limited 0\n") ||
		strings.Count(all, "\nkoff_connector_info{") != 101 {
		t.Errorf("at the limit: %s", grep(all, "koff_connector_series_limited"))
	}
}

// koff_build_info names the version.
func TestBuildInfo(t *testing.T) {
	body := scrape(t, New(Options{Store: fillStore(t, 2, 1, 0, time.Now()), Version: "1.2.3"}))
	if !strings.Contains(body, `koff_build_info{goversion="go`) || !strings.Contains(body, `version="1.2.3"} 1`) {
		t.Errorf("build info:\n%s", grep(body, "koff_build_info"))
	}
}

// Concurrent scrapes while the Store is reloaded and read again: each
// scrape's koff_offsets_records_read_total is at least the one before it
// in the same goroutine, and the end count is every record read.
func TestCountersHoldUnderConcurrentScrapesAndReloads(t *testing.T) {
	s := fillStore(t, 20, 2, 0, time.Now())
	c := New(Options{Store: s})
	h := Handler(c)
	done := make(chan struct{})
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		go func() {
			last := -1.0
			for {
				select {
				case <-done:
					errs <- ""
					return
				default:
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
				var v float64
				for _, l := range strings.Split(rec.Body.String(), "\n") {
					if n, ok := strings.CutPrefix(l, "koff_offsets_records_read_total "); ok {
						fmt.Sscan(n, &v)
					}
				}
				if rec.Code != 200 || v < last {
					errs <- fmt.Sprintf("scrape %d: records read %v after %v", rec.Code, v, last)
					return
				}
				last = v
			}
		}()
	}
	k := []byte(`["debezium-00",{"server":"inventory-00","database":"db_000000"}]`)
	for i := 0; i < 50; i++ {
		s.Reset()
		s.Ingest([]store.Record{{Topic: "connect-offsets", Partition: java.PartitionFor(k, 25), Offset: 1, Key: k, Value: []byte(`{"lsn":1}`), Time: time.Now()}})
		time.Sleep(time.Millisecond)
	}
	close(done)
	for g := 0; g < 8; g++ {
		if e := <-errs; e != "" {
			t.Fatal(e)
		}
	}
}

// A sink group poll that fails (Kafka out of reach) leaves out the lag
// the poll before measured, rather than keep it flat.
func TestFailedGroupPollDropsTheSinksLag(t *testing.T) {
	s := fillStore(t, 2, 1, 4, time.Now())
	if body := scrape(t, New(Options{Store: s, SinkPartitionLimit: 10})); !strings.Contains(body, "\nkoff_sink_lag_records{") {
		t.Fatalf("no sink lag before the failure:\n%s", grep(body, "koff_sink"))
	}
	s.SetGroups(time.Now(), []model.GroupPoll{{Group: "connect-es-search", Err: "connection refused"}})
	body := scrape(t, New(Options{Store: s, SinkPartitionLimit: 10}))
	for _, gone := range []string{"koff_sink_lag_records{", "koff_sink_partition_lag_records{", "koff_sink_group_members{"} {
		if strings.Contains(body, "\n"+gone) {
			t.Errorf("%s while the poll fails:\n%s", gone, grep(body, gone))
		}
	}
	if !strings.Contains(body, `koff_connector_info{connector="es-search"`) {
		t.Errorf("the sink itself is gone:\n%s", grep(body, "koff_connector_info"))
	}
}
