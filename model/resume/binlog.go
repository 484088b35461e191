package resume

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// What Debezium's MySQL and MariaDB connectors 3.6.1 do on start with a
// stored offset, from their source: MySqlConnectorTask.start and
// MariaDbConnectorTask.start call BaseSourceTask.validateSchemaHistory with
// BinlogConnectorConnection.validateLogPosition, which is
// isBinlogPositionAvailable:
//
//   - with GTIDs in the offset (and gtid.ignore.on.recovery off): MySQL's
//     position is available when the stored set lies within gtid_executed
//     and none of the GTIDs it still needs is in gtid_purged; MariaDB's when
//     it lies within gtid_binlog_pos (MariaDbConnection.purgedGtidSet is
//     always empty, so a purged MariaDB position passes the check and the
//     server refuses it when the binlog client connects);
//   - without: when SHOW BINARY LOGS still lists the stored file.
//
// Not available: snapshot.mode when_needed snapshots again; every other
// streaming mode fails the task ("The connector is trying to read change
// stream starting at …, but this is no longer available on the server").

// BinlogFile is one row of SHOW BINARY LOGS.
type BinlogFile struct {
	Name string
	Size int64
}

// BinlogFacts is what koff read of a MySQL or MariaDB server's binary logs.
type BinlogFacts struct {
	MariaDB bool
	// Logs is SHOW BINARY LOGS, oldest first.
	Logs []BinlogFile
	// GTIDMode is MySQL's gtid_mode ON (MariaDB always has GTIDs).
	GTIDMode bool
	// Executed is MySQL's gtid_executed, MariaDB's gtid_binlog_pos.
	Executed string
	// Purged is MySQL's gtid_purged; on MariaDB the GTID state at the start
	// of the oldest binary log (what was purged before it).
	Purged string
}

// BinlogSettings are the connector settings Debezium's start depends on.
type BinlogSettings struct {
	SnapshotMode                                 string
	IgnoreGTID, PositionCheck, DataErrorSnapshot bool
}

// BinlogConnectorSettings reads BinlogSettings from a connector's config,
// with Debezium's defaults.
func BinlogConnectorSettings(config map[string]string) BinlogSettings {
	return BinlogSettings{
		SnapshotMode:      strings.ToLower(or(config["snapshot.mode"], "initial")),
		IgnoreGTID:        strings.EqualFold(config["gtid.ignore.on.recovery"], "true"),
		PositionCheck:     !strings.EqualFold(config["log.position.check.enable"], "false"),
		DataErrorSnapshot: strings.EqualFold(config["snapshot.mode.configuration.based.snapshot.on.data.error"], "true"),
	}
}

// binlogSeq splits "mysql-bin.000003" into its base and number.
func binlogSeq(name string) (string, int64, bool) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.ParseInt(name[i+1:], 10, 64)
	return name[:i], n, err == nil
}

// JudgeBinlog judges one Debezium MySQL or MariaDB partition
// ({"server":…}) against the server's binary logs and GTID state.
func JudgeBinlog(partition, offset string, s BinlogSettings, f BinlogFacts) Partition {
	return lostSince(judgeBinlog(partition, offset, s, f), offset, "ts_sec", time.Second)
}

func judgeBinlog(partition, offset string, s BinlogSettings, f BinlogFacts) Partition {
	p := Partition{Partition: partition, Lost: None, Replayed: None}
	fields, err := objectFields(offset)
	if err != nil {
		p.State, p.Reason = Unknown, "offset: "+err.Error()
		return p
	}
	file := stringField(fields, "file")
	pos, _, err := uintField(fields, "pos")
	if err != nil {
		p.State, p.Reason = Unknown, "offset: "+err.Error()
		return p
	}
	gtids, hasGTIDs := fields["gtids"].(string)
	if file == "" && !hasGTIDs {
		p.State, p.Reason = Unknown, "offset: no file and no gtids in "+offset
		return p
	}
	p.Position = fmt.Sprintf("%s pos %d", file, pos)
	if hasGTIDs && gtids != "" {
		p.Position += " gtids " + gtids
	}
	if len(f.Logs) == 0 {
		p.State, p.Reason = Unknown, "SHOW BINARY LOGS lists no file: binary logging is off on the server (log_bin)"
		return p
	}
	if snapshotRunning(fields) {
		return snapshotAgain(p, s.SnapshotMode)
	}
	if s.SnapshotMode == "initial_only" {
		p.State, p.Action = Resumes, "snapshot.mode=initial_only: the snapshot is done and the task does not read the binary log"
		return p
	}
	last := f.Logs[len(f.Logs)-1]
	byGTID := hasGTIDs && strings.TrimSpace(gtids) != "" && !s.IgnoreGTID && (f.MariaDB || f.GTIDMode)

	// What the server still has, in the position the binlog client asks
	// for: GTIDs when the offset has them, else the file and pos.
	var state State
	var why string
	lost := None
	if byGTID {
		state, why, lost.Records = gtidState(gtids, f)
	} else {
		state, why = fileState(file, pos, f.Logs)
	}
	// What Debezium's own check (isBinlogPositionAvailable) decides.
	available := true
	switch {
	case !s.PositionCheck:
	case hasGTIDs && !s.IgnoreGTID:
		if strings.TrimSpace(gtids) != "" {
			available = debeziumGTIDAvailable(gtids, f)
		}
	case file != "":
		available = false
		for _, l := range f.Logs {
			available = available || l.Name == file
		}
	}
	p.State, p.Lost = state, lost
	if state == Resumes {
		p.Action = "reads on " + why
		return p
	}
	switch {
	case !available && snapshotsOnDataError(s.SnapshotMode, s.DataErrorSnapshot):
		p.Action = why + fmt.Sprintf("; Debezium forgets the offset and snapshots the captured tables again (snapshot.mode=%s): rows are read again, the changes in between (deletes too) are never read", s.SnapshotMode)
		p.ResumesAt = fmt.Sprintf("a new snapshot, then %s pos %d", last.Name, last.Size)
	case !available:
		p.Action = why + fmt.Sprintf("; the task fails on start: \"…is no longer available on the server\" (snapshot.mode=%s; when_needed would snapshot again)", s.SnapshotMode)
	case f.MariaDB && byGTID && state == Gap:
		p.Action = why + "; Debezium's check passes (it knows no purged MariaDB GTIDs) and the server then refuses the binlog client (\"Could not find GTID state requested by slave in any binlog files\"): the task fails"
	default:
		p.Action = why + "; the server refuses the binlog client's position: the task fails"
	}
	return p
}

// fileState is the stored file and pos against SHOW BINARY LOGS.
func fileState(file string, pos uint64, logs []BinlogFile) (State, string) {
	first, last := logs[0], logs[len(logs)-1]
	for i, l := range logs {
		if l.Name != file {
			continue
		}
		if int64(pos) > l.Size {
			return Replay, fmt.Sprintf("pos %d lies past the end of %s (%d bytes)", pos, file, l.Size)
		}
		left := l.Size - int64(pos)
		for _, later := range logs[i+1:] {
			left += later.Size
		}
		return Resumes, fmt.Sprintf("%s from pos %d: %d bytes of binary log to read", file, pos, left)
	}
	base, n, ok := binlogSeq(file)
	fbase, fn, fok := binlogSeq(first.Name)
	_, ln, _ := binlogSeq(last.Name)
	switch {
	case ok && fok && base == fbase && n < fn:
		purged := fn - n
		span := file
		if purged > 1 {
			span = fmt.Sprintf("%s to %s.%0*d", file, base, len(file)-len(base)-1, fn-1)
		}
		return Gap, fmt.Sprintf("%s is purged: %d binary log file(s) gone (%s; their sizes went with them), the oldest left is %s", file, purged, span, first.Name)
	case ok && fok && base == fbase && n > ln:
		return Replay, fmt.Sprintf("%s lies past the server's newest binary log %s (the server was reset or is another one)", file, last.Name)
	}
	return Gap, fmt.Sprintf("%s is not among the server's binary logs (%s to %s)", file, first.Name, last.Name)
}

// gtidState is the stored GTID set against what the server holds: the
// transactions purged that the connector had not read (their count), or
// GTIDs the server never wrote.
func gtidState(stored string, f BinlogFacts) (State, string, int64) {
	if f.MariaDB {
		st, purged, exec := mariaGTIDs(stored), mariaGTIDs(f.Purged), mariaGTIDs(f.Executed)
		var lost int64
		var beyond []string
		for d, seq := range purged {
			if s, ok := st[d]; ok && s < seq {
				lost += seq - s
			}
		}
		for d, s := range st {
			if e, ok := exec[d]; !ok || s > e {
				beyond = append(beyond, fmt.Sprintf("domain %d", d))
			}
		}
		switch {
		case lost > 0:
			return Gap, fmt.Sprintf("gtids %s are partly purged: %d transaction(s) before the oldest binary log's %s are gone", stored, lost, f.Purged), lost
		case len(beyond) > 0:
			return Replay, fmt.Sprintf("gtids %s lie past the server's gtid_binlog_pos %s (%s)", stored, f.Executed, strings.Join(beyond, ", ")), -1
		}
		return Resumes, fmt.Sprintf("from gtids %s (the server's gtid_binlog_pos is %s)", stored, f.Executed), -1
	}
	st, purged, exec := mysqlGTIDs(stored), mysqlGTIDs(f.Purged), mysqlGTIDs(f.Executed)
	if n := purged.minus(st).count(); n > 0 {
		return Gap, fmt.Sprintf("%d transaction(s) the connector had not read are in gtid_purged %s", n, f.Purged), n
	}
	if n := st.minus(exec).count(); n > 0 {
		return Replay, fmt.Sprintf("%d of the stored gtids are not in the server's gtid_executed %s (the server was reset or is another one)", n, f.Executed), -1
	}
	return Resumes, fmt.Sprintf("from gtids %s: %d transaction(s) to read", stored, exec.minus(st).count()), -1
}

// debeziumGTIDAvailable is BinlogConnectorConnection.isBinlogPositionAvailable's
// GTID branch.
func debeziumGTIDAvailable(stored string, f BinlogFacts) bool {
	if f.MariaDB {
		st, exec := mariaGTIDs(stored), mariaGTIDs(f.Executed)
		if len(exec) == 0 {
			return false
		}
		for d, s := range st {
			if e, ok := exec[d]; !ok || s > e {
				return false
			}
		}
		return true
	}
	st, exec, purged := mysqlGTIDs(stored), mysqlGTIDs(f.Executed), mysqlGTIDs(f.Purged)
	if len(exec) == 0 || st.minus(exec).count() > 0 {
		return false
	}
	return purged.minus(st).count() == 0
}
