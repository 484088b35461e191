package resume

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// pgOffset is what a Debezium PostgreSQL offset says of where it resumes.
type pgOffset struct {
	lsn, proc, commit uint64
	hasProc           bool
	fields            map[string]any
}

// start is where streaming asks to start: lsn_proc, else lsn
// (PostgresStreamingChangeEventSource.execute).
func (o pgOffset) start() uint64 {
	if o.hasProc {
		return o.proc
	}
	return o.lsn
}

// last is the furthest position the offset says was processed: changes up
// to it were read, and the slot may confirm up to it.
func (o pgOffset) last() uint64 { return max(o.lsn, o.proc, o.commit) }

func parsePGOffset(offset string) (pgOffset, error) {
	fields, err := objectFields(offset)
	if err != nil {
		return pgOffset{}, err
	}
	o := pgOffset{fields: fields}
	var ok bool
	if o.lsn, ok, err = uintField(fields, "lsn"); err != nil {
		return o, err
	} else if !ok {
		return o, fmt.Errorf("no lsn in %s", offset)
	}
	if o.proc, o.hasProc, err = uintField(fields, "lsn_proc"); err != nil {
		return o, err
	}
	if o.commit, _, err = uintField(fields, "lsn_commit"); err != nil {
		return o, err
	}
	return o, nil
}

// objectFields decodes an offset's JSON object with its numbers as their
// text: LSNs and binlog positions pass 2^53.
func objectFields(offset string) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader([]byte(offset)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil || m == nil {
		return nil, fmt.Errorf("not a JSON object: %s", offset)
	}
	return m, nil
}

// uintField reads a non-negative integer field (a JSON number, or its
// text); ok is false when the field is absent or null.
func uintField(m map[string]any, name string) (v uint64, ok bool, err error) {
	var text string
	switch x := m[name].(type) {
	case nil:
		return 0, false, nil
	case json.Number:
		text = x.String()
	case string:
		text = x
	default:
		return 0, false, fmt.Errorf("%s is %v, not a number", name, x)
	}
	v, err = strconv.ParseUint(text, 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("%s is %s, not a position", name, text)
	}
	return v, true, nil
}

// stringField reads a text field ("" when absent).
func stringField(m map[string]any, name string) string {
	switch x := m[name].(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	return ""
}

// snapshotRunning: the offset is from an initial snapshot that did not
// complete (CommonOffsetContext.isInitialSnapshotRunning: snapshot INITIAL,
// or true as older versions wrote it, and snapshot_completed not true).
func snapshotRunning(fields map[string]any) bool {
	switch v := fields["snapshot"].(type) {
	case bool:
		if !v {
			return false
		}
	case string:
		if v != "INITIAL" && v != "true" {
			return false
		}
	default:
		return false
	}
	done := fields["snapshot_completed"]
	return done != true && done != "true"
}

// snapshotAgain is what Debezium does with an offset from a snapshot that
// did not complete: BaseSourceTask.validateSchemaHistory skips the log
// position check and the snapshot starts over.
func snapshotAgain(p Partition, mode string) Partition {
	p.State = Replay
	p.Action = fmt.Sprintf("the offset is from a snapshot that did not complete: Debezium takes it again from the start and reads every captured row again (snapshot.mode=%s; a mode that allows no snapshot fails the task on start)", mode)
	p.ResumesAt = "a new snapshot"
	return p
}

// lostSince dates a gap: what is lost came after the last change the
// connector read, whose time its offset holds (Debezium's ts_usec or
// ts_sec, in unit).
func lostSince(p Partition, offset, field string, unit time.Duration) Partition {
	if p.State != Gap {
		return p
	}
	fields, err := objectFields(offset)
	if err != nil {
		return p
	}
	if ts, ok, err := uintField(fields, field); err == nil && ok && ts > 0 && ts < 1<<62/uint64(unit) {
		p.Lost.Since = time.Unix(0, int64(ts)*int64(unit)).UTC()
	}
	return p
}
