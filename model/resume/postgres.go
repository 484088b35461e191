package resume

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// What Debezium's PostgreSQL connector 3.6.1 does on start with a stored
// offset, read from its source and seen on the real worker
// (interop/resume_postgres_test.go):
//
//   - PostgresConnectorTask.start calls BaseSourceTask.validateSchemaHistory
//     with PostgresConnection.validateLogPosition: the position is available
//     when the slot (in database.dbname, of the plugin) exists and its
//     restart_lsn is at or before the offset's lsn_proc (an offset without
//     lsn_proc always passes). offset.mismatch.strategy trust_slot and
//     trust_greater_lsn skip the check, as does log.position.check.enable=false.
//   - Not available: snapshot.mode when_needed (or configuration_based with
//     snapshot.on.data.error) forgets the offset and snapshots again;
//     every other streaming mode fails the task: "The connector is trying to
//     read change stream starting at …, but this is no longer available on
//     the server".
//   - Available (or unchecked): a missing slot is created at the server's
//     current WAL position (tryToCreateSlot), and
//     PostgresReplicationConnection.startStreaming asks for the stored lsn;
//     PostgreSQL's logical decoding starts no earlier than the slot's
//     confirmed_flush_lsn, so what lies between is never streamed.

// PGSlot is a replication slot's row in pg_replication_slots.
type PGSlot struct {
	Name     string
	Plugin   string
	Database string
	Active   bool
	// WALStatus is reserved, extended, unreserved or lost ("" before
	// PostgreSQL 13).
	WALStatus string
	// RestartLSN and ConfirmedFlushLSN are 0 when NULL (an invalidated
	// slot has no restart_lsn).
	RestartLSN, ConfirmedFlushLSN uint64
}

// PGFacts is what koff read of the database a Debezium PostgreSQL
// connector captures.
type PGFacts struct {
	// Slot is the connector's slot, nil when pg_replication_slots has no
	// row of that name.
	Slot *PGSlot
	// CurrentLSN is pg_current_wal_lsn() (pg_last_wal_replay_lsn() on a
	// standby).
	CurrentLSN uint64
}

// PGSettings are the connector settings Debezium's start depends on.
type PGSettings struct {
	Slot, Database, Plugin, SnapshotMode, MismatchStrategy string
	// PositionCheck is log.position.check.enable (default true);
	// DataErrorSnapshot is snapshot.mode.configuration.based.snapshot.on.data.error.
	PositionCheck, DataErrorSnapshot bool
}

// PostgresSettings reads PGSettings from a connector's config, with
// Debezium's defaults.
func PostgresSettings(config map[string]string) PGSettings {
	s := PGSettings{
		Slot:              or(config["slot.name"], "debezium"),
		Database:          config["database.dbname"],
		Plugin:            strings.ToLower(or(config["plugin.name"], "decoderbufs")),
		SnapshotMode:      strings.ToLower(or(config["snapshot.mode"], "initial")),
		MismatchStrategy:  strings.ToLower(config["offset.mismatch.strategy"]),
		PositionCheck:     !strings.EqualFold(config["log.position.check.enable"], "false"),
		DataErrorSnapshot: strings.EqualFold(config["snapshot.mode.configuration.based.snapshot.on.data.error"], "true"),
	}
	if s.MismatchStrategy == "" {
		// The deprecated internal flag maps to trust_offset / no_validation.
		if strings.EqualFold(config["internal.slot.seek.to.known.offset.on.start"], "true") {
			s.MismatchStrategy = "trust_offset"
		} else {
			s.MismatchStrategy = "no_validation"
		}
	}
	return s
}

func or(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return strings.TrimSpace(s)
}

// seeksToSlot: trust_slot and trust_greater_lsn skip the position check and
// start from the slot when it is ahead.
func (s PGSettings) seeksToSlot() bool {
	return s.MismatchStrategy == "trust_slot" || s.MismatchStrategy == "trust_greater_lsn"
}

// snapshotsOnDataError: the snapshot modes that snapshot again when the
// stored position is gone (Snapshotter.shouldSnapshotOnDataError).
func snapshotsOnDataError(mode string, configured bool) bool {
	return mode == "when_needed" || (mode == "configuration_based" && configured)
}

// LSN formats a WAL position as PostgreSQL does ("16/B374D848").
func LSN(v uint64) string { return fmt.Sprintf("%X/%X", v>>32, v&0xFFFFFFFF) }

// ParseLSN reads a pg_lsn's text ("16/B374D848").
func ParseLSN(s string) (uint64, error) {
	hi, lo, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return 0, fmt.Errorf("lsn %q: want HI/LO in hexadecimal", s)
	}
	h, err := strconv.ParseUint(hi, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("lsn %q: %v", s, err)
	}
	l, err := strconv.ParseUint(lo, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("lsn %q: %v", s, err)
	}
	return h<<32 | l, nil
}

// JudgePostgres judges one Debezium PostgreSQL partition ({"server":…})
// against its slot and the server's WAL position.
func JudgePostgres(partition, offset string, s PGSettings, f PGFacts) Partition {
	return lostSince(judgePostgres(partition, offset, s, f), offset, "ts_usec", time.Microsecond)
}

func judgePostgres(partition, offset string, s PGSettings, f PGFacts) Partition {
	p := Partition{Partition: partition, Lost: None, Replayed: None}
	o, err := parsePGOffset(offset)
	if err != nil {
		p.State, p.Reason = Unknown, "offset: "+err.Error()
		return p
	}
	start := o.start()
	p.Position = "lsn " + LSN(start)
	slot := fmt.Sprintf("slot %q", s.Slot)
	fail := fmt.Sprintf("the task fails on start: \"…is no longer available on the server\" (snapshot.mode=%s; when_needed would snapshot again)", s.SnapshotMode)
	resnapshot := fmt.Sprintf("Debezium forgets the offset and snapshots the captured tables again (snapshot.mode=%s): rows are read again, the changes in between (deletes too) are never streamed", s.SnapshotMode)
	bytes := func(from, to uint64) Amount {
		a := None
		a.Bytes = int64(max(to, from) - from)
		return a
	}
	// gone is what Debezium does when its check finds the position gone.
	gone := func(why string, lost Amount, from uint64) Partition {
		p.State, p.Lost = Gap, lost
		switch {
		case snapshotsOnDataError(s.SnapshotMode, s.DataErrorSnapshot):
			p.Action = why + "; " + resnapshot
			p.ResumesAt = "a new snapshot, then lsn " + LSN(from)
		default:
			p.Action = why + "; " + fail
		}
		return p
	}
	if snapshotRunning(o.fields) {
		return snapshotAgain(p, s.SnapshotMode)
	}
	if s.SnapshotMode == "initial_only" {
		// Snapshotter.shouldStream is false: with an offset the task
		// neither snapshots again nor streams.
		p.State = Resumes
		p.Action = "snapshot.mode=initial_only: the snapshot is done and the task does not stream"
		return p
	}
	checked := s.PositionCheck && !s.seeksToSlot() && o.hasProc

	// missing is what Debezium does without its slot: fails or snapshots
	// again when it checks, else creates the slot at the current position.
	missing := func(why string) Partition {
		lost := bytes(o.last(), f.CurrentLSN)
		if checked {
			return gone(why, lost, f.CurrentLSN)
		}
		p.State, p.Lost = Gap, lost
		p.ResumesAt = "lsn " + LSN(f.CurrentLSN) + " (the new slot)"
		p.Action = fmt.Sprintf("%s: Debezium creates %s at the current WAL position %s and streams from there; the changes after lsn %s are never streamed",
			why, slot, LSN(f.CurrentLSN), LSN(o.last()))
		return p
	}
	if f.Slot == nil {
		return missing(slot + " does not exist")
	}
	sl := *f.Slot
	if (s.Database != "" && sl.Database != s.Database) || sl.Plugin != s.Plugin {
		// PostgresConnection.queryForSlot looks for the name in the
		// connector's database and plugin: this slot is not its own, and
		// creating one of the same name fails.
		p.State = Gap
		p.Action = fmt.Sprintf("%s is of database %q and plugin %q, not the connector's %q and %q: Debezium does not find its slot, and creating one of that name fails: the task fails on start",
			slot, sl.Database, sl.Plugin, s.Database, s.Plugin)
		return p
	}
	if sl.WALStatus == "lost" || sl.RestartLSN == 0 || sl.ConfirmedFlushLSN == 0 {
		// The WAL the slot needed is removed: PostgreSQL sets restart_lsn
		// NULL and refuses to decode from it; Debezium's
		// readReplicationSlotInfo waits for a valid slot, then gives up.
		after := missing("once it is dropped, " + slot + " does not exist")
		p.State, p.ResumesAt = Gap, ""
		p.Action = fmt.Sprintf("%s is invalidated (wal_status lost): PostgreSQL removed the WAL it held; the task's start waits for a valid slot (\"Cannot obtain valid replication slot\", 900 tries 2 s apart), then fails (\"Unable to obtain valid replication slot\"); %s", slot, after.Action)
		return p
	}
	if sl.Active && (sl.RestartLSN > start || sl.ConfirmedFlushLSN > o.last()) {
		// Nothing but the walsender streaming from an active slot moves it
		// (pg_replication_slot_advance refuses an active slot): the
		// connector is streaming, and the offset koff read is older than
		// what it has since confirmed.
		p.State = Resumes
		p.Action = fmt.Sprintf("%s is in use and has confirmed lsn %s, past the offset koff read: the connector is streaming and stores it at its next offset flush (if this connector is stopped, another client holds the slot and the task fails on start: \"replication slot … is active\")", slot, LSN(sl.ConfirmedFlushLSN))
		return p
	}
	if checked && sl.RestartLSN > start {
		return gone(fmt.Sprintf("%s restarts at lsn %s, after the offset's lsn_proc %s", slot, LSN(sl.RestartLSN), LSN(start)),
			bytes(o.last(), sl.ConfirmedFlushLSN), sl.ConfirmedFlushLSN)
	}
	if sl.ConfirmedFlushLSN > o.last() {
		p.State, p.Lost = Gap, bytes(o.last(), sl.ConfirmedFlushLSN)
		p.ResumesAt = "lsn " + LSN(sl.ConfirmedFlushLSN)
		p.Action = fmt.Sprintf("%s has confirmed_flush_lsn %s, after the offset's lsn %s: PostgreSQL streams from confirmed_flush_lsn, the changes in between are never streamed", slot, LSN(sl.ConfirmedFlushLSN), LSN(o.last()))
		return p
	}
	p.State = Resumes
	behind := int64(0)
	if f.CurrentLSN > start {
		behind = int64(f.CurrentLSN - start)
	}
	p.Action = fmt.Sprintf("streams from lsn %s through %s (%d bytes of WAL behind the server)", LSN(start), slot, behind)
	if sl.WALStatus == "unreserved" {
		p.Action += "; wal_status unreserved: the slot is past max_slot_wal_keep_size and PostgreSQL removes its WAL at the next checkpoint (then lost)"
	}
	return p
}
