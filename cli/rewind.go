package cli

import (
	"errors"
	"fmt"
	"io"

	"koff/edit/history"
	"koff/edit/plan"
)

// rewindSource runs set --to-datetime for a source connector: each
// partition back to the value committed at or before t, from the offsets
// topic's retained history. It reports false, having done nothing, when
// the connector has no source offsets (a sink: its group is set from its
// data topics' record times instead). read is the session's read of the
// history, if it made one.
func rewindSource(s *editSession, o *setOptions, req plan.RewindRequest, read *history.RewindRead) (bool, error) {
	name := req.Connector
	var rw *history.Rewind
	var err error
	if read != nil {
		rw, err = s.ed.PlanRewindRead(s.ctx, read)
	} else {
		rw, err = s.ed.PlanRewind(s.ctx, req)
	}
	if errors.Is(err, history.ErrNotSourceRewind) {
		if o.ifNewer != "" {
			return true, usagef("--if-newer is for source connectors; %s has no source offsets", name)
		}
		return false, nil
	}
	if err != nil {
		return true, err
	}
	printRewind(s.env.Stdout, rw, timeEcho(rw.At, s.env))
	if rw.Plan == nil {
		fmt.Fprintf(s.env.Stdout, "nothing to change: %s\n", noteField(rw.NothingText()))
	} else if err := s.runPlans([]*plan.Plan{rw.Plan}, o.writeFlags); err != nil {
		return true, err
	}
	if left := rw.LeftSummary(); left != "" {
		// The partitions asked for that were not put back: a script must
		// not take them for done.
		return true, leftAloneError{left}
	}
	return true, nil
}

// leftAloneError: a rewind left partitions it was asked for as they are
// (ExitLeftAlone), whatever it did with the others.
type leftAloneError struct{ msg string }

func (e leftAloneError) Error() string { return e.msg }

// printRewind says, for every partition, which commit the rewind takes
// (its time, timestamp type and place in the offsets topic) or why it
// leaves the partition alone.
// at is the rewind's time as the reader is told it (timeEcho).
func printRewind(w io.Writer, rw *history.Rewind, at string) {
	fmt.Fprintf(w, "Rewind %s to %s: each partition's newest commit at or before it\n", field(rw.Connector), at)
	for _, c := range rw.Choices {
		fmt.Fprintf(w, "  %s  %s\n", jsonField(c.Partition), c.Describe(jsonField, noteField))
	}
	if left := rw.LeftText(); left != "" {
		fmt.Fprintf(w, "  %s\n", noteField(left))
	}
}
