package metrics

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"koff/model"
)

// A scrape's size does not grow with source partitions: their counts are
// per-connector series.
func TestSeriesDoNotGrowWithSourcePartitions(t *testing.T) {
	now := time.Now()
	small := koffSeries(scrape(t, New(Options{Store: fillStore(t, 700, 70, 0, now), Now: func() time.Time { return now }})))
	big := koffSeries(scrape(t, New(Options{Store: fillStore(t, 35000, 70, 0, now), Now: func() time.Time { return now }})))
	if small != big || small == 0 {
		t.Fatalf("koff series: %d at 700 source partitions, %d at 35000: want the same", small, big)
	}
}

// Per-partition sink series are exported up to --metrics-sink-partitions
// and left out past it, saying so; the sink's total lag is there either way.
func TestSinkPartitionSeriesStopAtTheLimit(t *testing.T) {
	now := time.Now()
	store := fillStore(t, 10, 2, 40, now)
	for _, tc := range []struct {
		limit       int
		parts, flag string
	}{
		{40, "40", "0"},
		{39, "0", "1"},
		{0, "0", "1"},
	} {
		body := scrape(t, New(Options{Store: store, SinkPartitionLimit: tc.limit}))
		if n := strings.Count(body, "\nkoff_sink_partition_lag_records{"); strconv.Itoa(n) != tc.parts {
			t.Errorf("limit %d: %d partition lag series, want %s", tc.limit, n, tc.parts)
		}
		if !strings.Contains(body, "\nkoff_sink_partition_series_limited "+tc.flag+"\n") {
			t.Errorf("limit %d: want koff_sink_partition_series_limited %s", tc.limit, tc.flag)
		}
		if !strings.Contains(body, `koff_sink_lag_records{connector="es-search",group="connect-es-search"} 200`) {
			t.Errorf("limit %d: no total lag of 200 for es-search:\n%s", tc.limit, grep(body, "koff_sink_lag"))
		}
	}
}

// The flush status exported is koff status's judgement of the same row:
// one series per status, the judged one 1. A connector whose last flush
// is 10 minutes old while REST says RUNNING is stalled.
func TestFlushStatusIsKoffStatusJudgement(t *testing.T) {
	last := time.Now().Add(-10 * time.Minute)
	store := fillStore(t, 20, 2, 0, last)
	store.SetREST(model.RESTStatus{At: time.Now(), Connectors: map[string]model.ConnectorState{
		"debezium-00": {Name: "debezium-00", Type: "source", State: "RUNNING", Tasks: []model.TaskState{{ID: 0, State: "RUNNING"}}},
		"debezium-01": {Name: "debezium-01", Type: "source", State: "RUNNING", Tasks: []model.TaskState{{ID: 0, State: "FAILED"}}},
	}})
	now := time.Now()
	body := scrape(t, New(Options{Store: store, REST: true, Now: func() time.Time { return now }}))
	for _, r := range store.Connectors() {
		want := r.Flush(now, 0).Status
		if want != model.FlushStalled {
			t.Fatalf("%s: koff status says %s, the test wants a stalled connector", r.ID.Name, want)
		}
		for _, st := range flushStatuses {
			v := "0"
			if st == want {
				v = "1"
			}
			line := `koff_connector_flush_status{connector="` + r.ID.Name + `",offsets_topic="connect-offsets",status="` + string(st) + `"} ` + v
			if !strings.Contains(body, line) {
				t.Errorf("missing %s in:\n%s", line, grep(body, "koff_connector_flush_status"))
			}
		}
	}
	for _, line := range []string{
		`koff_connector_failed_tasks{connector="debezium-01",offsets_topic="connect-offsets"} 1`,
		`koff_connector_failed_tasks{connector="debezium-00",offsets_topic="connect-offsets"} 0`,
		`koff_connector_rest_state{connector="debezium-00",offsets_topic="connect-offsets",state="RUNNING"} 1`,
		`koff_connector_source_partitions{connector="debezium-00",offsets_topic="connect-offsets"} 10`,
		"koff_connect_rest_up 1",
		`koff_tailer_state{state="live"} 1`,
	} {
		if !strings.Contains(body, line) {
			t.Errorf("missing %s", line)
		}
	}
}

// The exposition passes Prometheus' own linter (names, units, help).
func TestMetricsLint(t *testing.T) {
	c := New(Options{Store: fillStore(t, 20, 2, 4, time.Now()), SinkPartitionLimit: 10, REST: true,
		Edits: func() map[EditCount]int { return map[EditCount]int{{"set", "verified"}: 2, {"stop", "done"}: 1} }})
	problems, err := testutil.CollectAndLint(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}

func grep(body, prefix string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
