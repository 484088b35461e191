// Package edit is the one pipeline through which koff changes offsets, for
// the dashboard and the command line alike. The Editor wires its parts,
// each a package that imports only the ones above it in this list:
//
//	plan     a plan as data: the request, every write with its exact key bytes and value before
//	audit    the audit log: its lines, appended under a lock, and the edits they group into
//	planner  request → Plan: names, partitions, shapes, the path, the home topic (writes nothing)
//	history  an offsets topic's history, the history the dashboards share, and rewinds
//	apply    one write's life: check → others → write-ahead → write → settle → verify → watch → record
//	undo     the edit to undo, what holds its partitions now, and edits whose process died
//
// Every rule about writing offsets lives here, not in the callers: read-only
// is refused here, the connector must be STOPPED when REST can tell, an
// offset that moved since the plan was made is a conflict, existing keys are
// rewritten with their exact bytes in the partition they live in, and an
// edit is done only when it has been read back.
package edit
