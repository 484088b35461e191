package metrics

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"koff/model/resume"
)

// The resume check's series are koff check's judgement of each row: one
// state series per state (the judged one 1), the partitions in each state
// some are in, what a restart would lose or read again where koff counted
// it, when the check was made, and the connectors in each state over all
// of them. A connector with a gap keeps its series
// past --metrics-connectors.
func TestResumeSeriesAreKoffChecksJudgement(t *testing.T) {
	now := time.Now()
	checked := now.Add(-2 * time.Second).Truncate(time.Millisecond)
	store := fillStore(t, 30, 3, 2, now)
	gapPart := resume.Partition{Partition: "logs.app/0", State: resume.Gap, Lost: resume.Amount{Records: 4, Bytes: -1}, Replayed: resume.None}
	okPart := resume.Partition{Partition: "logs.app/1", State: resume.Resumes, Lost: resume.None, Replayed: resume.None}
	walGap := resume.Partition{Partition: `{"server":"inventory-01","database":"db_000000"}`, State: resume.Gap, Lost: resume.Amount{Records: -1, Bytes: 81920}, Replayed: resume.None}
	store.SetResume([]resume.Connector{
		{Name: "es-search", Type: "sink", Partitions: []resume.Partition{gapPart, okPart}, Checked: checked},
		{Name: "debezium-00", Type: "source", Checked: checked, Reason: "database checks are off: name credentials with --db-pass-file FILE"},
		{Name: "debezium-01", Type: "source", Partitions: []resume.Partition{walGap}, Checked: checked},
		{Name: "debezium-02", Type: "source", Partitions: []resume.Partition{{Partition: `{"server":"inventory-02"}`, State: resume.Resumes, Lost: resume.None, Replayed: resume.None}}, Checked: checked},
	}, checked)
	body := scrape(t, New(Options{Store: store, Now: func() time.Time { return now }}))
	for _, line := range []string{
		`koff_connector_resume_state{connector="es-search",offsets_topic="",state="gap"} 1`,
		`koff_connector_resume_state{connector="es-search",offsets_topic="",state="resumes"} 0`,
		`koff_connector_resume_partitions{connector="es-search",offsets_topic="",state="gap"} 1`,
		`koff_connector_resume_partitions{connector="es-search",offsets_topic="",state="resumes"} 1`,
		`koff_connector_resume_lost_records{connector="es-search",offsets_topic=""} 4`,
		`koff_connector_resume_state{connector="debezium-00",offsets_topic="connect-offsets",state="unknown"} 1`,
		`koff_connector_resume_state{connector="debezium-01",offsets_topic="connect-offsets",state="gap"} 1`,
		`koff_connector_resume_lost_bytes{connector="debezium-01",offsets_topic="connect-offsets"} 81920`,
		`koff_connector_resume_state{connector="debezium-02",offsets_topic="connect-offsets",state="resumes"} 1`,
		`koff_connector_resume_partitions{connector="debezium-02",offsets_topic="connect-offsets",state="resumes"} 1`,
		`koff_connectors_by_resume_state{state="gap"} 2`,
		`koff_connectors_by_resume_state{state="unknown"} 1`,
		`koff_connectors_by_resume_state{state="resumes"} 1`,
		`koff_connectors_by_resume_state{state="replay"} 0`,
	} {
		if !strings.Contains(body, line+"\n") {
			t.Errorf("missing %s in:\n%s", line, grep(body, "koff_connector"))
		}
	}
	at := grep(body, `koff_resume_checked_timestamp_seconds `)
	if v, err := strconv.ParseFloat(at[strings.LastIndexByte(at, ' ')+1:], 64); err != nil || int64(v*1e3+0.5) != checked.UnixMilli() {
		t.Errorf("checked at %v: %q", checked, at)
	}
	// Nothing is said of what koff did not count (a gap's uncounted
	// records, a connector it could not check), nor of a state no
	// partition is in.
	for _, absent := range []string{
		`koff_connector_resume_lost_records{connector="debezium-01",`,
		`koff_connector_resume_lost_bytes{connector="es-search",`,
		`koff_connector_resume_lost_records{connector="debezium-00",`,
		`koff_connector_resume_replayed_records{connector="es-search",`,
		`koff_connector_resume_partitions{connector="debezium-02",offsets_topic="connect-offsets",state="gap"}`,
	} {
		if strings.Contains(body, absent) {
			t.Errorf("%s… is exported: koff did not count it", absent)
		}
	}
	problems, err := testutil.CollectAndLint(New(Options{Store: store, Now: func() time.Time { return now }}))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
	// Past --metrics-connectors, the connectors with a gap keep their series.
	body = scrape(t, New(Options{Store: store, ConnectorLimit: 2, Now: func() time.Time { return now }}))
	for _, name := range []string{"es-search", "debezium-01"} {
		if !strings.Contains(body, `koff_connector_resume_state{connector="`+name+`"`) {
			t.Errorf("%s has a gap, yet its series are left out at --metrics-connectors 2:\n%s", name, grep(body, "koff_connector_resume_state"))
		}
	}
	if !strings.Contains(body, `koff_connectors_by_resume_state{state="gap"} 2`) {
		t.Errorf("the count by state is over every connector:\n%s", grep(body, "koff_connectors_by"))
	}
}
