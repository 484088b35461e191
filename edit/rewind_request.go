package edit

import (
	"fmt"
	"time"

	"koff/model/java"
)

// The command line (koff set NAME --to-datetime T) and the dashboard's
// "rewind to a time" build their rewinds here, so both read the same times,
// ask for the same request and print the same plan.

// timeLayouts are the forms a time may be typed in: RFC 3339, or without a
// zone (the local time), or a day (its midnight, local).
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"}

// ParseTime reads a time as --to-datetime, --since and --until take it.
func ParseTime(s string) (time.Time, error) {
	for _, layout := range timeLayouts {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time like 2026-11-29T08:00:00Z", s)
}

// NewRewindRequest is the rewind koff set NAME --to-datetime AT asks for:
// partition is --partition's JSON ("" for every partition) and ifNewer
// --if-newer's word ("" leaves alone what it cannot place).
func NewRewindRequest(name string, at time.Time, partition string, ifNewer IfNewer) (RewindRequest, error) {
	req := RewindRequest{Connector: name, At: at, IfNewer: ifNewer}
	switch ifNewer {
	case IfNewerLeave, IfNewerReset, IfNewerOldest:
	default:
		return req, fmt.Errorf("--if-newer is reset or oldest, got %q", string(ifNewer))
	}
	if partition != "" {
		p, err := ParsePartition(partition)
		if err != nil {
			return req, fmt.Errorf("--partition: %v", err)
		}
		req.Partitions = []java.Object{p}
	}
	return req, nil
}

// Command is the command line of a rewind (a replan after a stop shows the
// import of the same values instead).
func (rw *Rewind) Command(c CommandLine) string {
	args := []string{"set", rw.Connector, "--to-datetime", rw.At.Format(time.RFC3339Nano)}
	for _, p := range rw.Partitions {
		args = append(args, "--partition", string(java.AppendJackson(nil, p)))
	}
	if rw.IfNewer != "" {
		args = append(args, "--if-newer", string(rw.IfNewer))
	}
	return c.Args(args)
}

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
// alone ("" when none are).
func (rw *Rewind) LeftText() string {
	left := rw.Left()
	if len(left) == 0 {
		return ""
	}
	return fmt.Sprintf("%d partition(s) left alone: --if-newer reset deletes their offsets, --if-newer oldest takes their oldest retained commit", len(left))
}

// NothingText says why a rewind has no plan.
func (rw *Rewind) NothingText() string {
	if len(rw.Left()) > 0 {
		return "every partition is as it was then, or left alone"
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
