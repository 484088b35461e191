// Package apply is one write's life, read top to bottom. Each stage is a
// file, and calls only the stages after it or the files below them:
//
//	steps.go       an operation: its steps in order under one audit entry, each offsets step a whole Apply
//	lifecycle.go   an operation's REST steps: create, stop, pause, resume, delete, each waited for
//	apply.go       the path: Apply, a source's and a sink's
//	check.go       1 check        read-only, STOPPED, unchanged since the plan
//	others.go      2 others       no other writer's record since the one the plan read
//	writeahead.go  3 write-ahead  the whole plan in the audit log before the first write
//	write.go       4 write        a produce request per topic-partition, a REST call, or a group commit
//	settle.go      5 settle       a request whose answer was lost: written, not written or unknown
//	verify.go      6 verify       read back, the race between two writers judged, a lost key put back
//	watch.go       7 watch        a task's commit over the edit, for 1.5× its flush interval
//	record.go      8 record       the audit lines of the run and its outcome
//
// Below the stages: the Applier's ports and settings (applier.go), the
// plan's writes by topic-partition (batches.go), the edit's view of the
// partitions' log and who wrote a record (log.go), and what became of it
// (result.go). The Plan (edit/plan) is all it needs of planning.
package apply
