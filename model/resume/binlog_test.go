package resume

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestJudgeBinlog: a Debezium MySQL/MariaDB offset (file, pos, gtids, row,
// event, server_id, ts_sec) against SHOW BINARY LOGS and the GTID state.
func TestJudgeBinlog(t *testing.T) {
	logs := []BinlogFile{{"mysql-bin.000004", 1000}, {"mysql-bin.000005", 500}}
	const uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
	mysql := BinlogFacts{Logs: logs, GTIDMode: true, Executed: uuid + ":1-100", Purged: uuid + ":1-40"}
	maria := BinlogFacts{MariaDB: true, Logs: logs, Executed: "0-1-100", Purged: "0-1-40"}
	initial := BinlogConnectorSettings(map[string]string{})
	whenNeeded := BinlogConnectorSettings(map[string]string{"snapshot.mode": "when_needed"})
	offset := func(file string, pos int, gtids string) string {
		o := `{"ts_sec":1733390000,"file":"` + file + `","pos":` + strconv.Itoa(pos) + `,"row":1,"server_id":1,"event":2`
		if gtids != "" {
			o += `,"gtids":"` + gtids + `"`
		}
		return o + "}"
	}
	cases := []struct {
		name     string
		offset   string
		settings BinlogSettings
		facts    BinlogFacts
		state    State
		records  int64
		action   []string
	}{
		{"file present", offset("mysql-bin.000004", 400, ""), initial, mysql, Resumes, -1, []string{"mysql-bin.000004 from pos 400: 1100 bytes"}},
		{"file purged: fails", offset("mysql-bin.000002", 400, ""), initial, mysql, Gap, -1,
			[]string{"mysql-bin.000002 is purged: 2 binary log file(s) gone (mysql-bin.000002 to mysql-bin.000003", "oldest left is mysql-bin.000004", "the task fails on start", "no longer available on the server"}},
		{"file purged, when_needed: snapshots again", offset("mysql-bin.000003", 4, ""), whenNeeded, mysql, Gap, -1,
			[]string{"1 binary log file(s) gone (mysql-bin.000003;", "snapshots the captured tables again"}},
		{"pos past the file's end", offset("mysql-bin.000005", 900, ""), initial, mysql, Replay, -1, []string{"pos 900 lies past the end of mysql-bin.000005 (500 bytes)", "the task fails"}},
		{"file after the newest", offset("mysql-bin.000009", 4, ""), initial, mysql, Replay, -1, []string{"past the server's newest binary log mysql-bin.000005", "fails on start"}},
		{"another base name", offset("binlog.000001", 4, ""), initial, mysql, Gap, -1, []string{"not among the server's binary logs (mysql-bin.000004 to mysql-bin.000005)"}},
		{"MySQL gtids read past the purged ones", offset("mysql-bin.000004", 4, uuid+":1-60"), initial, mysql, Resumes, -1, []string{"40 transaction(s) to read"}},
		{"MySQL gtids: 15 unread transactions purged", offset("mysql-bin.000001", 4, uuid+":1-25"), initial, mysql, Gap, 15,
			[]string{"15 transaction(s) the connector had not read are in gtid_purged", "fails on start"}},
		{"MySQL gtids: a hole in the stored set purged", offset("mysql-bin.000004", 4, uuid+":1-10:21-60"), initial, mysql, Gap, 10, []string{"10 transaction(s)"}},
		{"MySQL gtids the server never had", offset("mysql-bin.000004", 4, uuid+":1-150"), initial, mysql, Replay, -1, []string{"50 of the stored gtids are not in the server's gtid_executed"}},
		{"gtid.ignore.on.recovery: the file decides", offset("mysql-bin.000004", 4, uuid+":1-25"), BinlogConnectorSettings(map[string]string{"gtid.ignore.on.recovery": "true"}), mysql, Resumes, -1, []string{"mysql-bin.000004 from pos 4"}},
		{"MariaDB gtids purged: Debezium's check passes, the server refuses", offset("mysql-bin.000002", 4, "0-1-25"), initial, maria, Gap, 15,
			[]string{"15 transaction(s) before the oldest binary log's 0-1-40 are gone", "Could not find GTID state", "the task fails"}},
		{"MariaDB gtids purged, when_needed: the file check is not made, the server refuses", offset("mysql-bin.000002", 4, "0-1-25"), whenNeeded, maria, Gap, 15, []string{"Could not find GTID state"}},
		{"MariaDB gtids held", offset("mysql-bin.000004", 4, "0-1-60"), initial, maria, Resumes, -1, []string{"from gtids 0-1-60"}},
		{"MariaDB purged file without gtids", offset("mysql-bin.000001", 4, ""), initial, maria, Gap, -1, []string{"mysql-bin.000001 is purged: 3 binary log file(s)"}},
		{"a snapshot cut short is taken again", `{"ts_sec":1,"file":"mysql-bin.000001","pos":4,"snapshot":"INITIAL"}`, initial, mysql, Replay, -1, []string{"snapshot that did not complete"}},
		{"an older version's snapshot flag", `{"ts_sec":1,"file":"mysql-bin.000004","pos":4,"snapshot":true}`, initial, mysql, Replay, -1, []string{"snapshot that did not complete"}},
		{"binary logging off", offset("mysql-bin.000001", 4, ""), initial, BinlogFacts{}, Unknown, -1, nil},
		{"initial_only never reads the binlog", offset("mysql-bin.000001", 4, ""), BinlogConnectorSettings(map[string]string{"snapshot.mode": "initial_only"}), mysql, Resumes, -1, []string{"does not read"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := JudgeBinlog(`{"server":"inv"}`, c.offset, c.settings, c.facts)
			if p.State != c.state || p.Lost.Records != c.records || p.Lost.Bytes != -1 {
				t.Errorf("state %s, lost %d records %d bytes; want %s, %d, -1\n%+v", p.State, p.Lost.Records, p.Lost.Bytes, c.state, c.records, p)
			}
			for _, w := range c.action {
				if !strings.Contains(p.Action, w) {
					t.Errorf("action %q does not say %q", p.Action, w)
				}
			}
			if p.State == Gap && !p.Lost.Since.Equal(time.Unix(1733390000, 0).UTC()) {
				t.Errorf("lost since %s, want the offset's ts_sec", p.Lost.Since)
			}
			if c.state != Unknown && !strings.Contains(p.Position, " pos ") {
				t.Errorf("position %q", p.Position)
			}
		})
	}
}

// TestGTIDSets: MySQL GTID set arithmetic (tags, holes, overlapping
// ranges) and MariaDB positions.
func TestGTIDSets(t *testing.T) {
	a := mysqlGTIDs("3E11FA47-71CA-11E1-9E33-C80AA9429562:1-10:12-20,\n aaaa:1-5, aaaa:tag1:1-3")
	if n := a.count(); n != 19+5+3 {
		t.Errorf("count %d: %v", n, a)
	}
	b := mysqlGTIDs("3e11fa47-71ca-11e1-9e33-c80aa9429562:5-15,aaaa:1-5")
	if n := a.minus(b).count(); n != 4+5+3 {
		t.Errorf("a−b %d: %v", n, a.minus(b))
	}
	if n := b.minus(a).count(); n != 1 {
		t.Errorf("b−a %d: %v", n, b.minus(a))
	}
	if n := mysqlGTIDs("").count(); n != 0 {
		t.Errorf("empty: %d", n)
	}
	m := mariaGTIDs("0-1-100,1-2-7,0-2-90")
	if m[0] != 100 || m[1] != 7 || len(m) != 2 {
		t.Errorf("MariaDB: %v", m)
	}
}
