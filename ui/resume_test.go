package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"koff/model"
	"koff/model/resume"
	"koff/ui/screens"
)

// lagResume gives lagStore a resume check made at t0 - 3s: s3-archive's
// inventory.events/0 was committed below its log start (a gap of 150
// records), inventory-connector's dbserver2 partition lies beyond what its
// binary logs hold (a replay), jdbc-orders could not be checked, and the
// rest resume.
func lagResume(f *fixture) {
	at := t0.Add(-3 * time.Second)
	ok := func(p, pos string) resume.Partition {
		return resume.Partition{Partition: p, Position: pos, State: resume.Resumes, Lost: resume.None, Replayed: resume.None}
	}
	var inventory []resume.Partition
	for _, r := range f.store.Partitions(model.ConnectorID{Topic: topic, Name: "inventory-connector"}) {
		p := ok(r.Partition, "mysql-bin.000003 pos 23154")
		if strings.Contains(r.Partition, "dbserver2") {
			p = resume.Partition{Partition: r.Partition, Position: "mysql-bin.000001 pos 7", State: resume.Replay, Lost: resume.None,
				Replayed: resume.Amount{Records: -1, Bytes: 48213}, ResumesAt: "mysql-bin.000001 pos 4",
				Action: "mysql-bin.000001 is 4 bytes long on the server (a reset, or another server): the server refuses pos 7 and the task fails"}
		}
		inventory = append(inventory, p)
	}
	f.store.SetResume([]resume.Connector{
		{Name: "s3-archive", Class: "io.confluent.connect.s3.S3SinkConnector", Type: "sink", Checked: at, Partitions: []resume.Partition{
			{Partition: "inventory.events/0", Position: "offset 250", State: resume.Gap, Lost: resume.Amount{Records: 150, Bytes: -1}, Replayed: resume.None,
				ResumesAt: "offset 400", Action: "offset 250 is below the log start 400 (150 records deleted by retention or DeleteRecords): auto.offset.reset=earliest (Connect's default for sink tasks) moves it to the log start, offset 400, skipping the 150 records"},
			ok("inventory.events/1", "offset 8200"),
		}},
		{Name: "es-search", Type: "sink", Checked: at, Partitions: []resume.Partition{ok("orders/0", "offset 1600"), ok("orders/1", "offset 1500"), ok("orders/2", "offset 1200")}},
		{Name: "inventory-connector", Class: "io.debezium.connector.mysql.MySqlConnector", Type: "source", Checked: at, Partitions: inventory},
		{Name: "jdbc-orders", Class: "io.confluent.connect.jdbc.JdbcSourceConnector", Type: "source", Checked: at,
			Reason: "koff cannot check io.confluent.connect.jdbc.JdbcSourceConnector's positions (it checks sinks, MirrorMaker 2, FileStreamSource, Debezium PostgreSQL and MySQL/MariaDB)"},
	}, at)
}

// The RESUME column says each connector's resume state, with a gap's or
// a replay's amount where it fits; at 80x24 and 60x20 the word stays
// whole, never "ga…" or "rep…". A gap and a replay count among the rows
// that need a look, the detail line says them first, and /gap filters.
func TestConnectorsShowTheResumeCheck(t *testing.T) {
	for _, sz := range [][2]int{{160, 48}, {120, 35}, {80, 24}, {60, 20}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			f, _, m := lagModel(t, sz[0], sz[1])
			lagResume(f)
			send(t, m, tickMsg{})
			requireFits(t, screenText(m), sz[0], sz[1])
			requireContains(t, m, "RESUME", "✗ 1 gap")
			if sz[0] >= 80 {
				requireContains(t, m, "⚠ 1 replay") // the header, on every screen
			}
			requireRow(t, m, "s3-archive", "gap")
			requireRow(t, m, "inventory-connector", "replay")
			if sz[0] >= 80 {
				requireRow(t, m, "s3-archive", "gap 150")
				requireRow(t, m, "es-search", "resumes")
				requireRow(t, m, "jdbc-orders", "unknown")
			}
			for _, cut := range []string{"ga…", "rep…", "repla…", "unkn…", "resu…"} {
				requireLacks(t, m, cut)
			}
			// Worst first: the gap and the replay come before the
			// connectors that are only ok.
			order := rowOrder(m)
			if order["s3-archive"] > order["inventory-connector"] || order["inventory-connector"] > order["mm2-source"] {
				t.Errorf("status sort: %v", order)
			}
			selectConnector(t, m, "s3-archive")
			if line := detailUnderTable(m); !strings.HasPrefix(line, "↳ s3-archive · resume gap: 150 records lost") {
				t.Errorf("detail line: %q", line)
			}
		})
	}
	_, _, m := lagModel(t, 120, 35)
	send(t, m, press("/", "g", "a", "p", "enter")...)
	if order := rowOrder(m); len(order) != 0 {
		t.Errorf("before any check /gap finds %v", order)
	}
}

// Before the first check every row says – in RESUME; /gap then finds the
// connectors with a gap, and the resume sort puts them first.
func TestResumeColumnBeforeAndAfterTheFirstCheck(t *testing.T) {
	f, _, m := lagModel(t, 160, 48)
	requireRow(t, m, "s3-archive", "–")
	requireLacks(t, m, "gap")
	lagResume(f)
	send(t, m, tickMsg{})
	requireRow(t, m, "s3-archive", "gap 150")
	for range 6 { // status, name, lag, last flush, partitions, suspect, then resume
		send(t, m, press("s")...)
	}
	requireContains(t, m, "sort: resume, worst first")
	if got := firstRowName(m); got != "s3-archive" {
		t.Errorf("resume sort: first %s, want s3-archive", got)
	}
	send(t, m, press("/", "g", "a", "p", "enter")...)
	if order := rowOrder(m); len(order) != 1 || order["s3-archive"] != 0 {
		t.Errorf("/gap: %v", order)
	}
}

// The sink screen shows each partition's state, the gap in its panel and
// under the table what the selected partition's restart does.
func TestSinkScreenShowsTheResumeCheck(t *testing.T) {
	for _, sz := range [][2]int{{160, 48}, {80, 24}, {60, 20}} {
		f, _, m := lagModel(t, sz[0], sz[1])
		lagResume(f)
		send(t, m, tickMsg{})
		openSinkNamed(t, m, "s3-archive")
		requireFits(t, screenText(m), sz[0], sz[1])
		requireContains(t, m, "RESUME", "resume gap: 150 records lost", "↳ inventory.events/0 · gap 150 records: offset 250")
		var rows []string // the topic's name may be cut in the middle: "inv…events"
		for _, l := range strings.Split(screenText(m), "\n") {
			if f := strings.Fields(strings.TrimPrefix(l, "▶")); len(f) > 1 && strings.HasSuffix(f[0], "events") {
				rows = append(rows, l)
			}
		}
		if len(rows) != 2 || !strings.Contains(rows[0], "gap") || !strings.Contains(rows[1], "resumes") {
			t.Errorf("%dx%d: rows %q", sz[0], sz[1], rows)
		}
	}
}

// The partitions screen shows each partition's state and counts the
// replays in its title; the detail says where the task resumes, what is
// read again, what the connector does and when koff checked.
func TestPartitionDetailExplainsTheResumeCheck(t *testing.T) {
	f, _, m := lagModel(t, 80, 24)
	lagResume(f)
	send(t, m, tickMsg{})
	openConnectorNamed(t, m, "inventory-connector")
	requireContains(t, m, "RESUME", "1 replay")
	s := m.top().(*screens.PartitionsScreen)
	for range len(s.List.Rows()) {
		if selectedLine(m, "dbserver2") {
			break
		}
		send(t, m, press("down")...)
	}
	if line := detailUnderTable(m); !strings.HasPrefix(line, "↳ replay 48213 bytes: mysql-bin.000001 is 4 bytes long") {
		t.Errorf("detail line: %q", line)
	}
	send(t, m, press("enter")...)
	send(t, m, size(160, 60))
	requireContains(t, m, "Will it resume?  checked 3s ago", "state      replay 48213 bytes", "position   mysql-bin.000001 pos 7",
		"resumes at mysql-bin.000001 pos 4", "on restart mysql-bin.000001 is 4 bytes long on the server")

	// A connector koff could not check says why on each partition.
	send(t, m, press("esc", "esc")...)
	openConnectorNamed(t, m, "jdbc-orders")
	send(t, m, press("enter")...)
	requireContains(t, m, "state      unknown", "why        koff cannot check io.confluent.connect.jdbc.JdbcSourceConnector's positions")
}

// rowOrder is each connector row's place on the connectors screen.
func rowOrder(m *Model) map[string]int {
	out := map[string]int{}
	lines := strings.Split(screenText(m), "\n")
	for i, l := range lines {
		if !strings.Contains(l, "CONNECTOR") {
			continue
		}
		for _, r := range lines[i+1:] {
			f := strings.Fields(strings.TrimPrefix(strings.TrimPrefix(r, "▶"), " ⚠"))
			if len(f) == 0 || strings.HasPrefix(f[0], "↳") || f[0] == "No" {
				break
			}
			out[strings.TrimPrefix(f[0], "⚠")] = len(out)
		}
		break
	}
	return out
}

// detailUnderTable is the screen's "↳" line.
func detailUnderTable(m *Model) string {
	for _, l := range strings.Split(screenText(m), "\n") {
		if strings.HasPrefix(l, "↳") {
			return strings.TrimRight(l, " ")
		}
	}
	return ""
}

// The resume check's screens, recorded: the connectors, a sink with a
// gap, the partitions with a replay and its detail.
func TestGoldenResume(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {160, 48}} {
		for _, sc := range []struct {
			name  string
			drive func(t *testing.T, m *Model)
		}{
			{"connectors", func(t *testing.T, m *Model) {}},
			{"sink", func(t *testing.T, m *Model) { openSinkNamed(t, m, "s3-archive") }},
			{"partitions", func(t *testing.T, m *Model) { openConnectorNamed(t, m, "inventory-connector") }},
			{"detail", func(t *testing.T, m *Model) {
				openConnectorNamed(t, m, "inventory-connector")
				send(t, m, press("down", "enter")...)
			}},
		} {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1]), func(t *testing.T) {
				f, _, m := lagModel(t, sz[0], sz[1])
				lagResume(f)
				send(t, m, tickMsg{})
				sc.drive(t, m)
				out := screenText(m)
				requireFits(t, out, sz[0], sz[1])
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}

// Under 80 columns the partitions screen keeps RESUME for a connector with
// a gap or a replay; one whose partitions are all unknown gives its room
// to the partition and offset, and the detail line says it.
func TestNarrowPartitionsKeepResumeForAGapOrAReplay(t *testing.T) {
	for _, c := range []struct {
		name string
		w, h int
		want bool
	}{{"inventory-connector", 60, 20, true}, {"jdbc-orders", 60, 20, false}, {"jdbc-orders", 80, 24, true}} {
		f, _, m := lagModel(t, c.w, c.h)
		lagResume(f)
		send(t, m, tickMsg{})
		openConnectorNamed(t, m, c.name)
		if got := strings.Contains(screenText(m), "RESUME"); got != c.want {
			t.Errorf("%s at %dx%d: RESUME shown %v, want %v:\n%s", c.name, c.w, c.h, got, c.want, screenText(m))
		}
		if !c.want && !strings.Contains(detailUnderTable(m), "unknown: koff cannot check") {
			t.Errorf("%s at %dx%d: detail line %q", c.name, c.w, c.h, detailUnderTable(m))
		}
	}
}

// The detail of a copy the task does not read (a duplicate in another
// partition) sends the reader to the copy the check is of; the live
// copy's detail has the check.
func TestStrayCopyDetailPointsToTheCheckedCopy(t *testing.T) {
	f := demoStore()
	partition := `{"filename":"/var/log/app/application-server-01.log"}`
	f.store.SetResume([]resume.Connector{{Name: "file-source", Class: resume.ClassFileStreamSource, Type: "source", Checked: t0,
		Partitions: []resume.Partition{{Partition: partition, Position: "byte 143936", State: resume.Resumes, Lost: resume.None, Replayed: resume.None}}}}, t0)
	var stray, live model.PartitionID
	for _, r := range f.store.Partitions(model.ConnectorID{Topic: topic, Name: "file-source"}) {
		if r.Partition == partition && r.Live {
			live = r.ID
		} else if r.Partition == partition {
			stray = r.ID
		}
	}
	for _, c := range []struct {
		id   model.PartitionID
		want string
	}{{stray, "not this copy: the check is of the copy a restarted task reads, " + live.TopicPartition.String()},
		{live, "state      resumes"}} {
		m := newTestModel(f.store)
		send(t, m, size(160, 80))
		openConnectorNamed(t, m, "file-source")
		for range 10 {
			if selectedLine(m, c.id.TopicPartition.String()+" ") && selectedLine(m, "application-server-01") {
				break
			}
			send(t, m, press("down")...)
		}
		send(t, m, press("enter")...)
		if out := screenText(m); !strings.Contains(out, c.want) {
			t.Errorf("%s: lacks %q:\n%s", c.id.TopicPartition, c.want, out)
		}
	}
}
