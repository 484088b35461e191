// Package undo chooses the edit to undo on the connected cluster (never
// one of another), compares every partition it wrote with what holds it
// now, naming a newer value and its writer, and reconciles an edit whose
// process died before its outcome line with what reached the log.
package undo
