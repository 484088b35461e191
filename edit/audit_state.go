package edit

import (
	"fmt"
	"os"
)

// ResultDone is the outcome of a stop or resume that Connect carried out.
// Such a line has no changes: undo passes over it.
const ResultDone = "done"

// auditState records a stop or resume as one line: who, when, the
// connector's state before, and whether Connect did it, refused it or it
// failed.
func (e *Editor) auditState(kind Kind, name, before string, err error) {
	if e.Audit == nil {
		return
	}
	now := e.now()
	entry := AuditEntry{ID: newEditID(now), Time: now.UTC(), User: e.User, Connector: name, Kind: kind, Path: PathREST,
		State: before, Result: ResultDone}
	switch {
	case err == nil && kind == KindStop:
		entry.Message = "STOPPED: its tasks are gone"
	case err == nil:
		entry.Message = "resumed"
	case isRefusal(err):
		entry.Result, entry.Error = ResultRefused, err.Error()
	default:
		entry.Result, entry.Error = ResultFailed, err.Error()
	}
	if werr := e.Audit.Append(entry); werr != nil && err == nil {
		// It happened; losing its audit line must not hide that.
		fmt.Fprintf(os.Stderr, "koff: audit log: %v\n", werr)
	}
}
