package apply

import (
	"fmt"

	"koff/edit/audit"
)

// begin writes the write-ahead line: the full plan with every record and
// the value each key held, synced to disk. Nothing is written to Kafka
// unless it is.
func (r *editRun) begin(positions map[string]int64) error {
	en := r.entry(audit.ResultInProgress)
	en.Changes, en.Rewind, en.Command = r.changes(), r.p.Request.Rewind, r.auditCommand()
	en.Positions = positions
	if err := r.append(en); err != nil {
		return fmt.Errorf("audit log %s: %v: nothing written (koff logs every edit before its first write)", r.e.Audit.Path, err)
	}
	r.begun = true
	return nil
}

// positionsByName are the log-end offsets read before the first write, as
// the write-ahead line records them.
func (w *logView) positionsByName() map[string]int64 {
	if len(w.positions) == 0 {
		return nil
	}
	out := map[string]int64{}
	for tp, off := range w.positions {
		out[tp.String()] = off
	}
	return out
}
