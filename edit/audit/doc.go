// Package audit is koff's audit log as a file: JSON lines (Entry) appended
// under a file lock, a write-ahead line before an edit's first write, a
// line per topic-partition written and an outcome; the edits they group
// into (Edit), the lines a read cannot use, and the undo request an edit's
// before-values make. It knows nothing of Kafka or Connect.
package audit
