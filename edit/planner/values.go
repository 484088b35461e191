package planner

import (
	"koff/edit/plan"
	"koff/model/java"
)

// keepsNumberText: offsets taken from stored values (an export file, another
// connector's offsets) are written to the offsets topic with their number
// text as stored (-0.0, 1E2, 1.5e-400 stay so), so that export, reset,
// import restores every value byte for byte. Offsets typed for set are
// written as a task would write them (Java's double forms). Through
// Connect's REST API the worker re-serialises every offset either way.
func keepsNumberText(k plan.Kind) bool {
	return k == plan.KindImport || k == plan.KindCopy || k == plan.KindRewind
}

// keptNumberNotes says, of an offset written with its number text as given,
// what a task reads when that differs (beyond 64 bits, beyond or below a
// double, -0.0): the plan warns, as get flags such a row java-number.
func keptNumberNotes(off java.Object) []string {
	if !java.JavaReadsDiffer(off) {
		return nil
	}
	return []string{"written as given, " + string(java.AppendJackson(nil, off)) + ": a task reads " + string(java.JavaForm(off))}
}
