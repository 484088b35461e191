// Package edit is the one pipeline through which koff changes offsets, for
// the dashboard and the command line alike:
//
//	Plan → Check → Apply (Connect REST, or a direct offsets-topic write) → Verify → Audit
//
// Every rule about writing offsets lives here, not in the callers: read-only
// is refused here, the connector must be STOPPED when REST can tell, an
// offset that moved since the plan was made is a conflict, existing keys are
// rewritten with their exact bytes in the partition they live in, and an
// edit is done only when it has been read back.
package edit
