package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"koff/model"
)

// koff status checks every connector's resume as koff check does and
// shows it: the RESUME column (a sink whose committed offset fell below
// the log start: "gap: 4 records lost", and per partition where it
// resumes; one that resumes; a source whose class koff cannot check:
// unknown), and in -o json each connector's resume (state, counts, lost,
// replayed, reason, checked) and each sink partition's state. Its exit
// stays its own: a gap is koff check's exit 6, not status's.
func TestStatusShowsEachConnectorsResume(t *testing.T) {
	sink := func(name string) string {
		return `{"connector.class":"org.apache.kafka.connect.file.FileStreamSinkConnector","topics":"orders","name":"` + name + `"}`
	}
	addr := checkBroker(t, map[string]string{
		"gap-sink": sink("gap-sink"),
		"ok-sink":  sink("ok-sink"),
		"jdbc":     `{"connector.class":"io.confluent.connect.jdbc.JdbcSourceConnector","name":"jdbc"}`,
	}, map[string]int{"orders": 2})
	records(t, addr, "orders", 0, 10)
	records(t, addr, "orders", 1, 5)
	o0, o1 := model.TopicPartition{Topic: "orders", Partition: 0}, model.TopicPartition{Topic: "orders", Partition: 1}
	commitGroup(t, addr, "connect-gap-sink", map[model.TopicPartition]int64{o0: 2, o1: 5})
	commitGroup(t, addr, "connect-ok-sink", map[model.TopicPartition]int64{o0: 8, o1: 0})
	produceConnect(t, addr, [2]string{`["jdbc",{"table":"shop.orders"}]`, `{"incrementing":41}`})
	deleteRecordsBefore(t, addr, "orders", 0, 6)

	out, errs, code := koff(t, "status", "-b", addr)
	if code == ExitResumeGap || code == ExitResumeUnknown {
		t.Errorf("koff status exits %d: the resume check's exit codes are koff check's", code)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			lines[f[0]] = l
		}
	}
	if !strings.Contains(out, "RESUME") {
		t.Fatalf("no RESUME column: exit %d %s\n%s", code, errs, out)
	}
	if !regexp.MustCompile(`orders/0 +committed 2 +end 10 +8 +gap, resumes at offset 6\n`).MatchString(out) {
		t.Errorf("gap-sink's orders/0 does not say where it resumes:\n%s", out)
	}
	for name, want := range map[string]string{"gap-sink": "gap: 4 records lost", "ok-sink": "resumes", "jdbc": "unknown"} {
		if !strings.Contains(lines[name], want) {
			t.Errorf("%s: want %q in its line %q\n%s", name, want, lines[name], out)
		}
	}

	out, _, _ = koff(t, "status", "-o", "json", "-b", addr)
	var st struct {
		Connectors []statusJSON `json:"connectors"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	by := map[string]statusJSON{}
	for _, c := range st.Connectors {
		by[c.Name] = c
	}
	gap := by["gap-sink"].Resume
	if gap == nil || gap.State != "gap" || gap.Counts["gap"] != 1 || gap.Counts["resumes"] != 1 || gap.Lost == nil || *gap.Lost.Records != 4 || gap.Checked == "" {
		t.Errorf("gap-sink's resume: %+v\n%s", gap, out)
	}
	if s := by["gap-sink"].Sink; s == nil || len(s.Partitions) != 2 || s.Partitions[0].Resume != "gap" || s.Partitions[1].Resume != "resumes" {
		t.Errorf("gap-sink's partitions: %+v", s)
	}
	if r := by["jdbc"].Resume; r == nil || r.State != "unknown" || !strings.Contains(r.Reason, "JdbcSourceConnector") {
		t.Errorf("jdbc's resume: %+v", r)
	}
	if !strings.Contains(out, `"resume":{"state":"gap","counts":{`) {
		t.Errorf("the JSON field names:\n%s", out)
	}
}

// koff metrics checks every connector beside the Tailer and exports its
// resume: a sink whose committed offset fell below the log start is gap,
// with the 4 records a restart skips, and the alert's series
// (koff_connector_resume_state) says so within a refresh or two.
func TestMetricsExportEachConnectorsResume(t *testing.T) {
	addr := checkBroker(t, map[string]string{
		"gap-sink": `{"connector.class":"org.apache.kafka.connect.file.FileStreamSinkConnector","topics":"orders","name":"gap-sink"}`,
	}, map[string]int{"orders": 1})
	records(t, addr, "orders", 0, 10)
	commitGroup(t, addr, "connect-gap-sink", map[model.TopicPartition]int64{{Topic: "orders", Partition: 0}: 2})
	deleteRecordsBefore(t, addr, "orders", 0, 6)
	listen := freeLoopback(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var out, errb syncBuffer
	go func() {
		done <- Main([]string{"metrics", "--listen", listen, "-b", addr, "--refresh", "200ms", "--audit-log", filepath.Join(t.TempDir(), "audit")},
			Env{Context: ctx, Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("koff metrics exited %d: %s", code, errb.String())
		}
	}()
	scrapeFor(t, "http://"+listen+"/metrics", done,
		`koff_connector_resume_state{connector="gap-sink",offsets_topic="",state="gap"} 1`,
		`koff_connector_resume_partitions{connector="gap-sink",offsets_topic="",state="gap"} 1`,
		`koff_connector_resume_lost_records{connector="gap-sink",offsets_topic=""} 4`,
		`koff_connectors_by_resume_state{state="gap"} 1`,
		"koff_resume_checked_timestamp_seconds ")
}
