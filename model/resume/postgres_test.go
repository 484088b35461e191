package resume

import (
	"strings"
	"testing"
	"time"
)

// A streaming offset as Debezium PostgreSQL 3.6.1 stores it (lsn_proc and
// lsn_commit at the last change, lsn where its transaction began).
const pgStreaming = `{"lsn_proc":23677040,"messageType":"INSERT","lsn_commit":23677040,"lsn":23676960,"txId":745,"ts_usec":1733390000000000}`

func pgSlot(restart, confirmed uint64, walStatus string) *PGSlot {
	return &PGSlot{Name: "dbz", Plugin: "pgoutput", Database: "inventory", WALStatus: walStatus, RestartLSN: restart, ConfirmedFlushLSN: confirmed}
}

// TestJudgePostgres: each case of a Debezium PostgreSQL offset against its
// slot, the state, what is lost and what Debezium 3.6.1 does.
func TestJudgePostgres(t *testing.T) {
	const proc, current = 23677040, 23677040 + 5000
	defaults := PostgresSettings(map[string]string{"slot.name": "dbz", "database.dbname": "inventory", "plugin.name": "pgoutput"})
	with := func(kv ...string) PGSettings {
		c := map[string]string{"slot.name": "dbz", "database.dbname": "inventory", "plugin.name": "pgoutput"}
		for i := 0; i < len(kv); i += 2 {
			c[kv[i]] = kv[i+1]
		}
		return PostgresSettings(c)
	}
	cases := []struct {
		name      string
		offset    string
		settings  PGSettings
		facts     PGFacts
		state     State
		lostBytes int64
		action    []string
		resumesAt string
	}{
		{"slot holds the position", pgStreaming, defaults, PGFacts{Slot: pgSlot(proc-100, proc, "reserved"), CurrentLSN: current},
			Resumes, -1, []string{"streams from lsn 0/1694870", "5000 bytes of WAL behind"}, ""},
		{"slot unreserved: resumes, at risk", pgStreaming, defaults, PGFacts{Slot: pgSlot(proc-100, proc, "unreserved"), CurrentLSN: current},
			Resumes, -1, []string{"wal_status unreserved", "max_slot_wal_keep_size"}, ""},
		{"slot dropped, snapshot.mode initial: the task fails", pgStreaming, defaults, PGFacts{CurrentLSN: current},
			Gap, 5000, []string{`slot "dbz" does not exist`, "the task fails on start", "no longer available on the server", "snapshot.mode=initial"}, ""},
		{"slot dropped, when_needed: snapshots again", pgStreaming, with("snapshot.mode", "when_needed"), PGFacts{CurrentLSN: current},
			Gap, 5000, []string{"snapshots the captured tables again", "deletes too"}, "a new snapshot, then lsn 0/1695BF8"},
		{"slot dropped, configuration_based with snapshot on data error", pgStreaming, with("snapshot.mode", "configuration_based", "snapshot.mode.configuration.based.snapshot.on.data.error", "true"), PGFacts{CurrentLSN: current},
			Gap, 5000, []string{"snapshots the captured tables again"}, "a new snapshot, then lsn 0/1695BF8"},
		{"slot dropped, trust_slot: a new slot at the current position", pgStreaming, with("offset.mismatch.strategy", "trust_slot"), PGFacts{CurrentLSN: current},
			Gap, 5000, []string{`creates slot "dbz" at the current WAL position 0/1695BF8`, "never streamed"}, "lsn 0/1695BF8 (the new slot)"},
		{"slot dropped, position check off", pgStreaming, with("log.position.check.enable", "false"), PGFacts{CurrentLSN: current},
			Gap, 5000, []string{`creates slot "dbz"`}, "lsn 0/1695BF8 (the new slot)"},
		{"slot dropped, snapshot offset (no lsn_proc): the check passes, a new slot", `{"last_snapshot_record":true,"lsn":23677040,"txId":745,"ts_usec":1,"snapshot":"INITIAL","snapshot_completed":true}`, defaults, PGFacts{CurrentLSN: current},
			Gap, 5000, []string{`creates slot "dbz"`}, "lsn 0/1695BF8 (the new slot)"},
		{"slot advanced past the offset, restart_lsn still before it", pgStreaming, defaults, PGFacts{Slot: pgSlot(proc-100, proc+3000, "reserved"), CurrentLSN: current},
			Gap, 3000, []string{"confirmed_flush_lsn 0/1695428", "never streamed"}, "lsn 0/1695428"},
		{"slot advanced past the offset with its restart_lsn: the task fails", pgStreaming, defaults, PGFacts{Slot: pgSlot(proc+2000, proc+3000, "reserved"), CurrentLSN: current},
			Gap, 3000, []string{"restarts at lsn 0/1695040, after the offset's lsn_proc 0/1694870", "the task fails on start"}, ""},
		{"slot advanced, trust_greater_lsn: streams from the slot", pgStreaming, with("offset.mismatch.strategy", "trust_greater_lsn"), PGFacts{Slot: pgSlot(proc+2000, proc+3000, "reserved"), CurrentLSN: current},
			Gap, 3000, []string{"PostgreSQL streams from confirmed_flush_lsn"}, "lsn 0/1695428"},
		{"slot invalidated (wal_status lost)", pgStreaming, defaults, PGFacts{Slot: pgSlot(0, proc, "lost"), CurrentLSN: current},
			Gap, 5000, []string{"invalidated (wal_status lost)", `waits for a valid slot ("Cannot obtain valid replication slot", 900 tries 2 s apart), then fails ("Unable to obtain valid replication slot")`, "once it is dropped", "no longer available on the server"}, ""},
		{"slot invalidated, when_needed: once dropped, a new snapshot", pgStreaming, with("snapshot.mode", "when_needed"), PGFacts{Slot: pgSlot(0, proc, "lost"), CurrentLSN: current},
			Gap, 5000, []string{"invalidated (wal_status lost)", "once it is dropped", "snapshots the captured tables again"}, ""},
		{"a slot of that name for another plugin", pgStreaming, PostgresSettings(map[string]string{"slot.name": "dbz", "database.dbname": "inventory"}), PGFacts{Slot: pgSlot(proc-100, proc, "reserved"), CurrentLSN: current},
			Gap, -1, []string{`plugin "pgoutput", not the connector's "inventory" and "decoderbufs"`, "the task fails on start"}, ""},
		{"a physical slot of that name", pgStreaming, defaults, PGFacts{Slot: &PGSlot{Name: "dbz", RestartLSN: proc}, CurrentLSN: current},
			Gap, -1, []string{`is of database "" and plugin ""`, "the task fails on start"}, ""},
		{"a slot of that name in another database", pgStreaming, with("database.dbname", "sales"), PGFacts{Slot: pgSlot(proc-100, proc, "reserved"), CurrentLSN: current},
			Gap, -1, []string{`is of database "inventory"`, "the task fails on start"}, ""},
		{"active slot ahead of the offset koff read: the connector is streaming", pgStreaming, defaults, PGFacts{Slot: &PGSlot{Name: "dbz", Plugin: "pgoutput", Database: "inventory", Active: true, WALStatus: "reserved", RestartLSN: proc + 10, ConfirmedFlushLSN: proc + 3000}, CurrentLSN: current},
			Resumes, -1, []string{"is in use and has confirmed lsn 0/1695428", "next offset flush"}, ""},
		{"a snapshot cut short is taken again", `{"last_snapshot_record":false,"lsn":23677040,"txId":745,"ts_usec":1,"snapshot":"INITIAL","snapshot_completed":false}`, defaults, PGFacts{CurrentLSN: current},
			Replay, -1, []string{"snapshot that did not complete", "reads every captured row again"}, "a new snapshot"},
		{"a completed snapshot's offset is judged by its lsn", `{"last_snapshot_record":true,"lsn":23677040,"txId":745,"ts_usec":1,"snapshot":"INITIAL","snapshot_completed":true}`, defaults, PGFacts{Slot: pgSlot(proc-100, proc, "reserved"), CurrentLSN: current},
			Resumes, -1, []string{"streams from lsn 0/1694870"}, ""},
		{"initial_only never streams", pgStreaming, with("snapshot.mode", "initial_only"), PGFacts{CurrentLSN: current},
			Resumes, -1, []string{"does not stream"}, ""},
		{"an lsn above 2^53 survives", `{"lsn_proc":18446744073709551000,"lsn":18446744073709551000}`, defaults, PGFacts{Slot: pgSlot(18446744073709550000, 18446744073709551000, "reserved"), CurrentLSN: 18446744073709551615},
			Resumes, -1, []string{"FFFFFFFF/FFFFFD98", "615 bytes"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := JudgePostgres(`{"server":"inv"}`, c.offset, c.settings, c.facts)
			if p.State != c.state || p.Lost.Bytes != c.lostBytes || p.ResumesAt != c.resumesAt {
				t.Errorf("state %s, lost %d bytes, resumes at %q; want %s, %d, %q\n%+v", p.State, p.Lost.Bytes, p.ResumesAt, c.state, c.lostBytes, c.resumesAt, p)
			}
			for _, w := range c.action {
				if !strings.Contains(p.Action, w) {
					t.Errorf("action %q does not say %q", p.Action, w)
				}
			}
			if since := time.UnixMicro(1733390000000000).UTC(); p.State == Gap && c.offset == pgStreaming && !p.Lost.Since.Equal(since) {
				t.Errorf("lost since %s, want the offset's ts_usec %s", p.Lost.Since, since)
			}
			if p.State != Gap && !p.Lost.Since.IsZero() {
				t.Errorf("no gap, lost since %s", p.Lost.Since)
			}
			if p.Partition != `{"server":"inv"}` || !strings.HasPrefix(p.Position, "lsn ") {
				t.Errorf("partition %q position %q", p.Partition, p.Position)
			}
		})
	}
}

// TestJudgePostgresBadOffset: an offset koff cannot read is Unknown, saying
// why, never a panic.
func TestJudgePostgresBadOffset(t *testing.T) {
	for _, offset := range []string{`{}`, `not json`, `{"lsn":-5}`, `{"lsn":1.5}`, `{"lsn":"x"}`, `null`, `[1]`} {
		p := JudgePostgres(`{"server":"inv"}`, offset, PostgresSettings(nil), PGFacts{CurrentLSN: 10})
		if p.State != Unknown || !strings.HasPrefix(p.Reason, "offset: ") {
			t.Errorf("%s: %+v, want unknown with the offset's fault", offset, p)
		}
	}
}

func TestLSN(t *testing.T) {
	for _, s := range []string{"0/0", "16/B374D848", "FFFFFFFF/FFFFFFFF", "0/1694870"} {
		v, err := ParseLSN(s)
		if err != nil || LSN(v) != s {
			t.Errorf("%s: %d %v → %s", s, v, err, LSN(v))
		}
	}
	for _, bad := range []string{"", "16", "x/1", "1/100000000"} {
		if _, err := ParseLSN(bad); err == nil {
			t.Errorf("ParseLSN(%q) took it", bad)
		}
	}
	if s := PostgresSettings(map[string]string{}); s.Slot != "debezium" || s.SnapshotMode != "initial" || s.MismatchStrategy != "no_validation" || !s.PositionCheck {
		t.Errorf("Debezium's defaults: %+v", s)
	}
	if s := PostgresSettings(map[string]string{"internal.slot.seek.to.known.offset.on.start": "true"}); s.MismatchStrategy != "trust_offset" {
		t.Errorf("the deprecated seek flag maps to trust_offset: %+v", s)
	}
}
