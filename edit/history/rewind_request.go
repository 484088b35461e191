package history

import (
	"fmt"
	"strings"

	"koff/model"
)

// The command line (koff set NAME --to-datetime T) and the dashboard's
// "rewind to a time" build their rewinds here, so both read the same times,
// ask for the same request and print the same plan.

// Describe says which commit the rewind takes for the partition (its value,
// time, timestamp type and place in the offsets topic) or why it leaves it
// alone. value makes JSON safe to show and note koff's sentences.
func (c RewindChoice) Describe(value, note func(string) string) string {
	switch c.Action {
	case RewindSet:
		return fmt.Sprintf("%s, committed %s%s", value(string(c.Value)), CommitText(*c.Took), c.byEdit(note))
	case RewindReset:
		if c.Took != nil {
			return "deleted: a tombstone was in force, committed " + CommitText(*c.Took) + c.byEdit(note)
		}
		return "deleted (--if-newer reset): " + note(c.Reason)
	case RewindOldest:
		return fmt.Sprintf("%s, its oldest retained commit %s%s (--if-newer oldest): %s", value(string(c.Value)), CommitText(*c.Took), c.byEdit(note), note(c.Reason))
	case RewindUnchanged:
		return "unchanged: in force then and now, committed " + CommitText(*c.Took) + c.byEdit(note)
	}
	return "left alone: " + note(c.Reason)
}

// LeftText is the line after the choices when some partitions are left
// alone ("" when none are): it names each, so that a list cut short by a
// screen still says which.
func (rw *Rewind) LeftText() string {
	left := rw.Left()
	if len(left) == 0 {
		return ""
	}
	return fmt.Sprintf("%s left alone (%s): --if-newer reset deletes their offsets, --if-newer oldest takes their oldest retained commit", partitionCount(len(left)), leftNames(left))
}

// LeftSummary says, in one line, which partitions a rewind left alone and
// why ("" when none were): what the command line says on stderr as it
// exits ExitLeftAlone, and the dashboard when nothing is left to change.
func (rw *Rewind) LeftSummary() string {
	left := rw.Left()
	if len(left) == 0 {
		return ""
	}
	var parts []string
	for _, c := range left[:min(len(left), leftNamed)] {
		parts = append(parts, c.Partition+" ("+c.Reason+")")
	}
	if more := len(left) - leftNamed; more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more, each listed in the plan", more))
	}
	return fmt.Sprintf("%s of %s left alone, not rewound to %s: %s", partitionCount(len(left)), rw.Connector, model.TimeText(rw.At), strings.Join(parts, "; "))
}

// leftNamed is how many partitions left alone one line names: the plan
// lists every one of them.
const leftNamed = 10

func leftNames(left []RewindChoice) string {
	var names []string
	for _, c := range left[:min(len(left), leftNamed)] {
		names = append(names, c.Partition)
	}
	if more := len(left) - leftNamed; more > 0 {
		names = append(names, fmt.Sprintf("and %d more", more))
	}
	return strings.Join(names, ", ")
}

func partitionCount(n int) string {
	if n == 1 {
		return "1 partition"
	}
	return fmt.Sprintf("%d partitions", n)
}

// NothingText says why a rewind has no plan, naming the partitions left
// alone.
func (rw *Rewind) NothingText() string {
	if left := rw.Left(); len(left) > 0 {
		return fmt.Sprintf("every partition is as it was then, or left alone: %s", leftNames(left))
	}
	return "every partition is as it was then"
}

// byEdit says a commit was koff's own edit, as koff history marks it: "
// ← koff set ID by USER at TIME" ("" for a worker's flush).
func (c RewindChoice) byEdit(note func(string) string) string {
	if c.TookEdit == nil {
		return ""
	}
	return " ← " + note(c.TookEdit.String())
}
